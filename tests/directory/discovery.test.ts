// Per-gateway discovery (spec 4.2) served by the real gateway: l402-gateway.json, an OpenAPI 3.1
// document that a third-party validator accepts, and mcp.json; other well-known names are 404.
import { compileErrors, validate } from "@readme/openapi-parser";
import { beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";

// One gateway with the default rate limits and no wallet: discovery documents cost no invoice.
const t = useGatewayTest({ devNode: false, gatewayOptions: { rateLimits: {} } });
const base = () => t.urls[0];

let tenantId: string;
beforeEach(async () => {
  ({ tenantId } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, {
    slug: "routes",
    name: "Route Planner",
    description: "Shortest paths over a road network.",
    tags: ["maps"],
    originUrl: "http://127.0.0.1:9",
  }));
  const prisma = t.ctx.db.prisma;
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/route",
    title: "Route",
    description: "A route between two points.",
    docsUrl: "https://example.com/docs/route",
    pricingModel: "per_request",
    priceSats: 10,
    freeTryEnabled: true,
    parameters: [
      { name: "from", in: "query", required: true, type: "string", description: "lat,lon" },
      { name: "to", in: "query", required: true, type: "string", description: "lat,lon" },
    ],
    exampleRequest: { query: { from: "57.7,11.9", to: "57.71,11.97" } },
    exampleResponse: { distanceM: 5230, durationS: 540 },
    createdAt: new Date(Date.now() - 3000),
  });
  await endpointFactory(prisma, tenantId, {
    method: "POST",
    path: "/v1/isochrone/{minutes}",
    title: "Isochrone",
    pricingModel: "token_bucket",
    priceSats: 100,
    tokenBudget: 50,
    parameters: [
      { name: "minutes", in: "path", required: true, type: "integer", description: "travel time" },
      { name: "origin", in: "body", required: true, type: "string", description: "lat,lon" },
      { name: "mode", in: "body", required: false, type: "string", description: "car or bike" },
    ],
    exampleRequest: { body: { origin: "57.7,11.9", mode: "bike" } },
    exampleResponse: [{ lat: 57.7, lon: 11.9 }],
    createdAt: new Date(Date.now() - 2000),
  });
  await endpointFactory(prisma, tenantId, {
    method: "GET",
    path: "/v1/traffic",
    title: "Live traffic",
    pricingModel: "time_pass",
    priceSats: 500,
    durationMinutes: 60,
    streaming: true,
    createdAt: new Date(Date.now() - 1000),
  });
  await endpointFactory(prisma, tenantId, { method: "GET", path: "/v1/health", title: "Health" });
  await endpointFactory(prisma, tenantId, { method: "GET", path: "/v1/retired", isActive: false, pricingModel: "per_request", priceSats: 1 });
});

async function wellKnown(name: string, method = "GET") {
  const res = await request(`${base()}/gw/routes/.well-known/${name}`, { method: method as "GET" });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
}

describe("/.well-known/openapi.json", () => {
  it("is valid OpenAPI 3.1 according to @readme/openapi-parser", async () => {
    const res = await wellKnown("openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=60");
    const result = await validate(res.json());
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    expect(result.specification).toBe("OpenAPI");
  });

  it("describes every active endpoint with parameters, body, examples, pricing, streaming and the L402 scheme", async () => {
    const doc = (await wellKnown("openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers).toEqual([{ url: gatewayUrlFor(t.ctx.config, "routes"), description: "Route Planner gateway" }]);
    expect(Object.keys(doc.paths)).toEqual(["/v1/route", "/v1/isochrone/{minutes}", "/v1/traffic", "/v1/health"]);
    expect(doc.components.securitySchemes.L402).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });

    const route = doc.paths["/v1/route"].get;
    expect(route).toMatchObject({
      operationId: "get_v1_route",
      summary: "Route",
      externalDocs: { url: "https://example.com/docs/route" },
      security: [{ L402: [] }],
      "x-l402-pricing": { model: "per_request", priceSats: 10, tokenBudget: null, durationMinutes: null, unitCostSats: null },
      "x-l402-free-try": true,
      "x-streaming": false,
    });
    expect(route.parameters).toEqual([
      { name: "from", in: "query", required: true, description: "lat,lon", schema: { type: "string" }, example: "57.7,11.9" },
      { name: "to", in: "query", required: true, description: "lat,lon", schema: { type: "string" }, example: "57.71,11.97" },
    ]);
    expect(route.responses["200"].content["application/json"].example).toEqual({ distanceM: 5230, durationS: 540 });
    expect(route.responses["402"]).toEqual({ $ref: "#/components/responses/PaymentRequired" });

    const iso = doc.paths["/v1/isochrone/{minutes}"].post;
    expect(iso.parameters).toEqual([{ name: "minutes", in: "path", required: true, description: "travel time", schema: { type: "integer" } }]);
    expect(iso.requestBody).toEqual({
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: { origin: { type: "string", description: "lat,lon" }, mode: { type: "string", description: "car or bike" } },
            required: ["origin"],
          },
          example: { origin: "57.7,11.9", mode: "bike" },
        },
      },
    });
    expect(iso["x-l402-pricing"]).toMatchObject({ model: "token_bucket", priceSats: 100, tokenBudget: 50 });
    expect(iso.responses["200"].content["application/json"].example).toEqual({ body: [{ lat: 57.7, lon: 11.9 }] });

    const traffic = doc.paths["/v1/traffic"].get;
    expect(traffic["x-streaming"]).toBe(true);
    expect(Object.keys(traffic.responses["200"].content)).toEqual(["text/event-stream"]);

    const health = doc.paths["/v1/health"].get;
    expect(health.security).toEqual([]);
    expect(health).not.toHaveProperty("x-l402-pricing");
    expect(Object.keys(health.responses)).toEqual(["200"]);
  });

  it("follows configuration changes as soon as the gateway does", async () => {
    expect(Object.keys((await wellKnown("openapi.json")).json().paths)).toHaveLength(4);
    await t.ctx.db.prisma.endpoint.updateMany({ where: { tenantId, path: "/v1/health" }, data: { isActive: false } });
    await publishConfigChanged({ store: t.ctx.store, tenantId });
    t.gateways[0].tenants.invalidate(tenantId);
    expect(Object.keys((await wellKnown("openapi.json")).json().paths)).toHaveLength(3);
  });
});

describe("/.well-known/l402-gateway.json and mcp.json", () => {
  it("l402-gateway.json lists endpoints with pricing, examples, SDKs and the MCP config URL", async () => {
    const res = await wellKnown("l402-gateway.json");
    expect(res.status).toBe(200);
    const doc = res.json();
    const gw = gatewayUrlFor(t.ctx.config, "routes");
    expect(doc).toMatchObject({
      version: "1.0",
      protocol: "L402",
      slug: "routes",
      name: "Route Planner",
      gateway: gw,
      openApiUrl: `${gw}/.well-known/openapi.json`,
      mcpConfigUrl: `${gw}/.well-known/mcp.json`,
      directoryUrl: `${t.ctx.config.siteUrl}/directory/routes`,
      authentication: { scheme: "L402", header: "Authorization", format: "L402 <macaroon_base64>:<preimage_hex>" },
    });
    expect(doc.sdks.length).toBeGreaterThan(0);
    expect(doc.sdks[0].install).toMatch(/^npm install @l402-hub\/sdk@\d+\.\d+\.\d+$/);
    expect(doc.endpoints).toHaveLength(4);
    expect(doc.endpoints[0]).toMatchObject({
      method: "GET",
      path: "/v1/route",
      url: `${gw}/v1/route`,
      pricing: { model: "per_request", priceSats: 10 },
      exampleRequest: { query: { from: "57.7,11.9", to: "57.71,11.97" } },
      exampleResponse: { distanceM: 5230, durationS: 540 },
    });
    expect(doc.endpoints[3]).toMatchObject({ path: "/v1/health", pricing: null });
  });

  it("mcp.json is the MCP client config pointing at this gateway", async () => {
    const doc = (await wellKnown("mcp.json")).json();
    const server = doc.mcpServers["l402-routes"];
    expect(server.args.slice(-2)).toEqual(["--gateway", gatewayUrlFor(t.ctx.config, "routes")]);
    expect(doc.tools.map((t: { name: string }) => t.name)).toEqual(["get_v1_route", "post_v1_isochrone_by_minutes", "get_v1_traffic", "get_v1_health"]);
    const iso = doc.tools[1];
    expect(iso.inputSchema).toEqual({
      type: "object",
      properties: {
        minutes: { type: "integer", description: "travel time (path)" },
        body: {
          type: "object",
          description: "JSON request body",
          properties: { origin: { type: "string", description: "lat,lon" }, mode: { type: "string", description: "car or bike" } },
          required: ["origin"],
        },
      },
      required: ["minutes", "body"],
    });
  });

  it("answers 404 for other names, 400 for other methods, HEAD without a body", async () => {
    const other = await wellKnown("security.txt");
    expect(other.status).toBe(404);
    expect(other.json().error.code).toBe("not_found");
    const post = await wellKnown("openapi.json", "POST");
    expect(post.status).toBe(400);
    expect(post.headers.allow).toBe("GET, HEAD");
    const head = await wellKnown("openapi.json", "HEAD");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });

  it("is 403 like every path of a suspended API", async () => {
    await t.ctx.db.prisma.tenant.update({ where: { id: tenantId }, data: { status: "suspended" } });
    t.gateways[0].tenants.invalidate(tenantId);
    expect((await wellKnown("openapi.json")).status).toBe(403);
  });
});
