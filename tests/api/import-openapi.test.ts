// POST /api/tenants/:tenantId/endpoints/import: an OpenAPI document becomes endpoints, all or nothing.
import { beforeEach, describe, expect, it } from "vitest";
import { POST as importRoute } from "@/app/api/tenants/[tenantId]/endpoints/import/route.ts";
import { buildOpenApiDocument } from "@/lib/directory/openapi.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

const post = (body: unknown, token = key) =>
  call(importRoute, { method: "POST", path: `/tenants/${tenantId}/endpoints/import`, params: { tenantId }, token, body });
const endpoints = () => api.test().db.prisma.endpoint.findMany({ where: { tenantId }, orderBy: { createdAt: "asc" } });

const doc = {
  openapi: "3.1.0",
  info: { title: "Weather", version: "1" },
  components: {
    parameters: { City: { name: "city", in: "query", required: true, schema: { type: "string", example: "Oslo" }, description: "City name" } },
  },
  paths: {
    "/v1/forecast/{day}": {
      parameters: [{ name: "day", in: "path", required: true, schema: { type: "integer" } }],
      get: {
        summary: "Forecast",
        description: "Hourly forecast.",
        externalDocs: { url: "https://example.com/docs" },
        parameters: [{ $ref: "#/components/parameters/City" }],
        "x-l402-pricing": { model: "per_request", priceSats: 10, tokenBudget: null, durationMinutes: null, unitCostSats: null },
        responses: { "200": { description: "ok", content: { "application/json": { example: { tempC: 4 } } } } },
      },
    },
    "/v1/alerts": {
      post: {
        summary: "Alerts",
        "x-streaming": true,
        "x-l402-pricing": { model: "time_pass", priceSats: 100, durationMinutes: 60 },
        requestBody: {
          content: {
            "application/json": {
              schema: { type: "object", required: ["region"], properties: { region: { type: "string", description: "Region code" } } },
              example: { region: "NO" },
            },
          },
        },
        responses: { "200": { description: "stream" } },
      },
    },
    "/v1/ping": { get: { responses: { "200": { description: "ok" } } } },
  },
};

describe("POST /api/tenants/:tenantId/endpoints/import", () => {
  it("creates every operation with parameters, examples, pricing and streaming", async () => {
    const res = await post(doc);
    expect(res.status).toBe(201);
    expect(res.body.endpoints).toHaveLength(3);
    expect(res.body.skipped).toEqual([]);
    const [forecast, alerts, ping] = await endpoints();
    expect(forecast).toMatchObject({
      method: "GET",
      path: "/v1/forecast/{day}",
      title: "Forecast",
      description: "Hourly forecast.",
      docsUrl: "https://example.com/docs",
      pricingModel: "per_request",
      priceSats: 10,
      exampleRequest: { query: { city: "Oslo" } },
      exampleResponse: { tempC: 4 },
    });
    expect(forecast.parameters).toEqual([
      { name: "day", in: "path", required: true, type: "integer", description: "" },
      { name: "city", in: "query", required: true, type: "string", description: "City name" },
    ]);
    expect(alerts).toMatchObject({
      method: "POST",
      pricingModel: "time_pass",
      priceSats: 100,
      durationMinutes: 60,
      streaming: true,
      exampleRequest: { body: { region: "NO" } },
    });
    expect(alerts.parameters).toEqual([{ name: "region", in: "body", required: true, type: "string", description: "Region code" }]);
    expect(ping).toMatchObject({ path: "/v1/ping", pricingModel: null, priceSats: null });
    // Publishing a priced endpoint starts the trial, as a single create does.
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).trialStartedAt).not.toBeNull();
  });

  it("round-trips our own generated OpenAPI document", async () => {
    const generated = buildOpenApiDocument({
      slug: "x",
      name: "X",
      description: "",
      tags: [],
      gatewayUrl: "http://gw",
      pageUrl: "http://site/x",
      endpoints: [
        {
          path: "/v1/a/{id}",
          method: "POST",
          title: "A",
          description: "d",
          docsUrl: null,
          pricingModel: "metered",
          priceSats: 100,
          tokenBudget: null,
          durationMinutes: null,
          unitCostSats: 2,
          freeTryEnabled: false,
          exampleRequest: { body: { q: 1 } },
          exampleResponse: { ok: true },
          streaming: false,
          parameters: [
            { name: "id", in: "path", required: true, type: "string", description: "" },
            { name: "q", in: "body", required: false, type: "integer", description: "" },
          ],
        },
      ],
    });
    expect((await post(generated)).status).toBe(201);
    const [row] = await endpoints();
    expect(row).toMatchObject({
      method: "POST",
      path: "/v1/a/{id}",
      pricingModel: "metered",
      priceSats: 100,
      unitCostSats: 2,
      exampleRequest: { body: { q: 1 } },
      exampleResponse: { ok: true },
    });
  });

  it("refuses the whole document with 422 naming every failing operation and field", async () => {
    const bad = structuredClone(doc) as any;
    bad.paths["/v1/forecast/{day}"].get["x-l402-pricing"] = { model: "per_request" };
    bad.paths["/v1/bad path"] = { get: { responses: {} } };
    const res = await post(bad);
    expect(res.status).toBe(422);
    const problems = res.body.error.details.operations;
    expect(problems.map((p: { operation: string }) => p.operation).sort()).toEqual(["GET /v1/bad path", "GET /v1/forecast/{day}"]);
    expect(problems.find((p: { operation: string }) => p.operation === "GET /v1/forecast/{day}").fields.map((f: { field: string }) => f.field)).toEqual([
      "priceSats",
    ]);
    expect(res.body.error.message).toContain("GET /v1/bad path");
    expect(await endpoints()).toHaveLength(0);
  });

  it("refuses with 409 when an operation already exists, creating nothing", async () => {
    await api.test().db.prisma.endpoint.create({ data: { tenantId, method: "GET", path: "/v1/ping" } });
    const res = await post(doc);
    expect(res.status).toBe(409);
    expect(res.body.error.details.operations).toEqual(["GET /v1/ping"]);
    expect(await endpoints()).toHaveLength(1);
  });

  it("with ?existing=skip, creates the new operations and lists the existing ones as skipped", async () => {
    const { prisma } = api.test().db;
    await prisma.endpoint.create({ data: { tenantId, method: "GET", path: "/v1/ping", title: "Mine" } });
    const skip = (body: unknown, query = "?existing=skip") =>
      call(importRoute, { method: "POST", path: `/tenants/${tenantId}/endpoints/import${query}`, params: { tenantId }, token: key, body });
    const res = await skip(doc);
    expect(res.status).toBe(201);
    expect(res.body.skipped).toEqual(["GET /v1/ping"]);
    expect(res.body.endpoints.map((e: { method: string; path: string }) => `${e.method} ${e.path}`)).toEqual(["GET /v1/forecast/{day}", "POST /v1/alerts"]);
    // The existing endpoint is left exactly as it was.
    expect((await prisma.endpoint.findFirstOrThrow({ where: { tenantId, path: "/v1/ping" } })).title).toBe("Mine");
    // Everything already there: nothing created, everything skipped.
    const again = await skip(doc);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ endpoints: [], skipped: expect.arrayContaining(["GET /v1/ping", "GET /v1/forecast/{day}", "POST /v1/alerts"]) });
    expect(await endpoints()).toHaveLength(3);
    // Invalid operations still refuse the whole document, and an unknown mode is a 422.
    expect((await skip({ ...doc, paths: { ...doc.paths, "/v1/bad path": { get: { responses: {} } } } })).status).toBe(422);
    expect((await skip(doc, "?existing=overwrite")).status).toBe(422);
  });

  it("rejects what is not an OpenAPI 3 document with 422, and needs authentication", async () => {
    for (const body of [
      { swagger: "2.0", paths: {} },
      { openapi: "3.1.0", paths: {} },
      { openapi: "3.0.3", paths: { "/x": { options: {} } } },
    ]) {
      expect((await post(body)).status).toBe(422);
    }
    expect((await call(importRoute, { method: "POST", path: `/tenants/${tenantId}/endpoints/import`, params: { tenantId }, body: doc })).status).toBe(401);
  });
});
