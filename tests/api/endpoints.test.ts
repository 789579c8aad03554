// Endpoint CRUD: per-model validation, duplicates, tenant scoping, trial start, config events.
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getOne, DELETE as deleteOne, PATCH as patchOne } from "@/app/api/tenants/[tenantId]/endpoints/[endpointId]/route.ts";
import { GET as list, POST as create } from "@/app/api/tenants/[tenantId]/endpoints/route.ts";
import { configChangedChannel } from "@/lib/tenants/config-events.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;

beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

const post = (body: unknown) => call(create, { method: "POST", path: `/tenants/${tenantId}/endpoints`, params: { tenantId }, token: key, body });
const patch = (endpointId: string, body: unknown) =>
  call(patchOne, { method: "PATCH", path: `/tenants/${tenantId}/endpoints/${endpointId}`, params: { tenantId, endpointId }, token: key, body });
const fieldsOf = (res: { body: any }) => (res.body.error?.details?.fields ?? []).map((f: { field: string }) => f.field);
const endpointCount = () => api.test().db.prisma.endpoint.count();

const base = { method: "GET", path: "/v1/quote" };
const valid: Record<string, Record<string, unknown>> = {
  per_request: { pricingModel: "per_request", priceSats: 10 },
  per_kb: { pricingModel: "per_kb", priceSats: 1000, unitCostSats: 2 },
  token_bucket: { pricingModel: "token_bucket", priceSats: 100, tokenBudget: 50 },
  time_pass: { pricingModel: "time_pass", priceSats: 500, durationMinutes: 60 },
  metered: { pricingModel: "metered", priceSats: 1000, unitCostSats: 5 },
};
const required: [string, string][] = [
  ["per_request", "priceSats"],
  ["per_kb", "priceSats"],
  ["per_kb", "unitCostSats"],
  ["token_bucket", "priceSats"],
  ["token_bucket", "tokenBudget"],
  ["time_pass", "priceSats"],
  ["time_pass", "durationMinutes"],
  ["metered", "priceSats"],
  ["metered", "unitCostSats"],
];
const foreign: [string, string, number][] = [
  ["per_request", "tokenBudget", 5],
  ["per_request", "unitCostSats", 1],
  ["per_kb", "durationMinutes", 10],
  ["token_bucket", "unitCostSats", 1],
  ["time_pass", "tokenBudget", 5],
  ["metered", "durationMinutes", 10],
];

describe("POST /api/tenants/:tenantId/endpoints", () => {
  it.each(Object.entries(valid))("creates a %s endpoint (201) and strips internal columns", async (model, pricing) => {
    const res = await post({ ...base, ...pricing, title: "Quote" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...base, ...pricing, title: "Quote", isActive: true, streaming: false, freeTryEnabled: false, forwardCookies: false });
    expect(res.body.pricingModel).toBe(model);
    expect(res.body).not.toHaveProperty("tenantId");
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id",
        "method",
        "path",
        "title",
        "description",
        "docsUrl",
        "pricingModel",
        "priceSats",
        "tokenBudget",
        "durationMinutes",
        "unitCostSats",
        "freeTryEnabled",
        "cacheTtlSeconds",
        "streaming",
        "maxStreamSeconds",
        "idleTimeoutSeconds",
        "rateLimitPerMinute",
        "forwardCookies",
        "parameters",
        "exampleRequest",
        "exampleResponse",
        "isActive",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
  });

  it.each(required)("%s without %s is refused with 422 naming it", async (model, field) => {
    const body: Record<string, unknown> = { ...base, ...valid[model] };
    delete body[field];
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toContain(field);
    expect(res.body.error.message).toContain(`required by pricingModel ${model}`);
    expect(await endpointCount()).toBe(0);
  });

  it.each(foreign)("%s with %s (not used by the model) is refused with 422 naming it", async (model, field, value) => {
    const res = await post({ ...base, ...valid[model], [field]: value });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual([field]);
    expect(await endpointCount()).toBe(0);
  });

  it("accepts an explicit null for a field the model does not use", async () => {
    const res = await post({ ...base, ...valid.per_request, tokenBudget: null });
    expect(res.status).toBe(201);
  });

  it("free endpoints take no pricing fields and no free try", async () => {
    expect((await post({ ...base, priceSats: 10 })).body.error.details.fields[0].field).toBe("priceSats");
    expect(fieldsOf(await post({ ...base, pricingModel: null, freeTryEnabled: true }))).toEqual(["freeTryEnabled"]);
    const free = await post(base);
    expect(free.status).toBe(201);
    expect(free.body.pricingModel).toBeNull();
    expect(await endpointCount()).toBe(1);
  });

  it("refuses per_kb with streaming and says why", async () => {
    const res = await post({ ...base, ...valid.per_kb, streaming: true });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(["streaming"]);
    expect(res.body.error.message).toMatch(/priced as a connection/);
    expect(await endpointCount()).toBe(0);
  });

  it("applies the stream and cache option rules", async () => {
    expect(fieldsOf(await post({ ...base, maxStreamSeconds: 60 }))).toEqual(["maxStreamSeconds"]);
    expect(fieldsOf(await post({ ...base, streaming: true, cacheTtlSeconds: 60 }))).toEqual(["cacheTtlSeconds"]);
    expect(fieldsOf(await post({ ...base, streaming: true, maxStreamSeconds: 60, idleTimeoutSeconds: 120 }))).toEqual(["idleTimeoutSeconds"]);
    expect(fieldsOf(await post({ ...base, ...valid.metered, unitCostSats: 2000 }))).toEqual(["unitCostSats"]);
    const stream = await post({ ...base, ...valid.time_pass, streaming: true, maxStreamSeconds: 600, idleTimeoutSeconds: 30 });
    expect(stream.status).toBe(201);
  });

  it.each([
    ["zero", 0],
    ["negative", -1],
    ["fraction", 1.5],
    ["above 1 BTC", 100_000_001],
    ["string", "10"],
  ])("refuses a %s price", async (_label, priceSats) => {
    const res = await post({ ...base, pricingModel: "per_request", priceSats });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(["priceSats"]);
  });

  it.each([
    ["no leading slash", "v1/quote"],
    ["dot-dot segment", "/v1/../admin"],
    ["empty segment", "/v1//quote"],
    ["trailing slash", "/v1/quote/"],
    ["space", "/v1/a b"],
    ["query string", "/v1/quote?x=1"],
    ["partial param", "/v1/id-{id}"],
    ["repeated param", "/v1/{id}/{id}"],
    ["too long", `/${"a".repeat(512)}`],
  ])("refuses a path with %s (422 naming path)", async (_label, path) => {
    const res = await post({ method: "GET", path });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(["path"]);
  });

  it("refuses an unknown method and unknown fields, naming them", async () => {
    expect(fieldsOf(await post({ method: "TRACE", path: "/x" }))).toEqual(["method"]);
    expect(fieldsOf(await post({ ...base, priceSat: 10 }))).toEqual(["priceSat"]);
    expect((await post({ method: "post", path: "/x" })).body.method).toBe("POST");
  });

  it("auto-declares path parameters and refuses declared ones missing from the path", async () => {
    const res = await post({
      method: "GET",
      path: "/v1/entity/{address}/tx/{txid}",
      parameters: [
        { name: "limit", in: "query", type: "integer", description: "max rows" },
        { name: "txid", in: "path", description: "transaction id" },
      ],
      exampleRequest: { query: { limit: 5 } },
      exampleResponse: { ok: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.parameters).toEqual([
      { name: "address", in: "path", required: true, type: "string", description: "" },
      { name: "txid", in: "path", required: true, type: "string", description: "transaction id" },
      { name: "limit", in: "query", required: false, type: "integer", description: "max rows" },
    ]);
    expect(res.body.exampleRequest).toEqual({ query: { limit: 5 } });

    const stray = await post({ method: "GET", path: "/v1/x", parameters: [{ name: "id", in: "path" }] });
    expect(fieldsOf(stray)).toEqual(["parameters.0.name"]);
    expect(fieldsOf(await post({ method: "GET", path: "/v1/y", exampleRequest: { query: "a=1" } }))).toEqual(["exampleRequest.query"]);
  });

  it("answers 409 for a duplicate method + path, and allows another method on the same path", async () => {
    expect((await post({ ...base, ...valid.per_request })).status).toBe(201);
    const dup = await post({ ...base, ...valid.time_pass });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("conflict");
    expect((await post({ ...base, method: "POST" })).status).toBe(201);
    expect(await endpointCount()).toBe(2);
  });

  it("answers 400 for malformed JSON and writes nothing", async () => {
    const res = await post('{"method": "GET", "path": ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_json");
    expect(await endpointCount()).toBe(0);
  });

  it("starts the trial with the first active priced endpoint, not with free or inactive ones", async () => {
    const trial = async () => (await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).trialStartedAt;
    await post({ method: "GET", path: "/free" });
    await post({ method: "GET", path: "/draft", ...valid.per_request, isActive: false });
    expect(await trial()).toBeNull();
    await post({ ...base, ...valid.per_request });
    const started = await trial();
    expect(started).toBeInstanceOf(Date);
    await post({ method: "GET", path: "/v1/other", ...valid.per_request });
    expect(await trial()).toEqual(started);
  });

  it("publishes a config-changed notification for the tenant", async () => {
    const messages: string[] = [];
    const unsubscribe = await api.test().store.subscribe(configChangedChannel, (m) => messages.push(m));
    try {
      await post({ ...base, ...valid.per_request });
      await expect.poll(() => messages).toContainEqual(JSON.stringify({ tenantId }));
    } finally {
      await unsubscribe();
    }
  });
});

describe("GET, PATCH, DELETE /api/tenants/:tenantId/endpoints/:endpointId", () => {
  const get = (endpointId: string) =>
    call(getOne, { method: "GET", path: `/tenants/${tenantId}/endpoints/${endpointId}`, params: { tenantId, endpointId }, token: key });

  it("turns cookie relaying on and off (forwardCookies, a boolean)", async () => {
    const created = (await post({ ...base, ...valid.per_request, forwardCookies: true })).body;
    expect(created.forwardCookies).toBe(true);
    expect((await patch(created.id, { forwardCookies: false })).body.forwardCookies).toBe(false);
    const refused = await patch(created.id, { forwardCookies: "yes" });
    expect(refused.status).toBe(422);
    expect(fieldsOf(refused)).toEqual(["forwardCookies"]);
  });

  it("lists and reads endpoints of this tenant only", async () => {
    const a = (await post({ ...base, ...valid.per_request })).body;
    await post({ method: "GET", path: "/a-free" });
    const listed = await call(list, { method: "GET", path: `/tenants/${tenantId}/endpoints`, params: { tenantId }, token: key });
    expect(listed.status).toBe(200);
    expect(listed.body.endpoints.map((e: { path: string }) => e.path)).toEqual(["/a-free", "/v1/quote"]);
    expect((await get(a.id)).body).toEqual(a);

    const other = await seedTenant(api.test(), "other", "other@example.com");
    const otherGet = await call(getOne, {
      method: "GET",
      path: `/tenants/${other.tenantId}/endpoints/${a.id}`,
      params: { tenantId: other.tenantId, endpointId: a.id },
      token: other.apiKey,
    });
    expect(otherGet.status).toBe(404);
    const otherPatch = await call(patchOne, {
      method: "PATCH",
      path: `/tenants/${other.tenantId}/endpoints/${a.id}`,
      params: { tenantId: other.tenantId, endpointId: a.id },
      token: other.apiKey,
      body: { priceSats: 1 },
    });
    expect(otherPatch.status).toBe(404);
    expect((await get(a.id)).body.priceSats).toBe(10);
  });

  it("updates fields and validates the merged result", async () => {
    const { id } = (await post({ ...base, ...valid.token_bucket })).body;
    const priced = await patch(id, { priceSats: 200, title: "Bucket" });
    expect(priced.status).toBe(200);
    expect(priced.body).toMatchObject({ priceSats: 200, tokenBudget: 50, title: "Bucket" });

    // Switching model clears the stored fields the new model does not use...
    const switched = await patch(id, { pricingModel: "per_request" });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ pricingModel: "per_request", priceSats: 200, tokenBudget: null });
    // ...but a field sent in the patch that the model does not use is refused.
    expect(fieldsOf(await patch(id, { tokenBudget: 10 }))).toEqual(["tokenBudget"]);
    // A model whose required field is missing after the merge names it.
    expect(fieldsOf(await patch(id, { pricingModel: "time_pass" }))).toEqual(["durationMinutes"]);
    expect((await get(id)).body).toMatchObject({ pricingModel: "per_request", priceSats: 200 });
  });

  it("refuses a patch that makes a per_kb endpoint stream, leaving it unchanged", async () => {
    const created = (await post({ ...base, ...valid.per_kb })).body;
    const res = await patch(created.id, { streaming: true });
    expect(res.status).toBe(422);
    expect(fieldsOf(res)).toEqual(["streaming"]);
    expect((await get(created.id)).body).toEqual(created);
  });

  it("answers 409 when a patch collides with another endpoint, and 400 for malformed JSON", async () => {
    await post({ ...base, ...valid.per_request });
    const { id } = (await post({ method: "GET", path: "/v1/other" })).body;
    expect((await patch(id, { path: "/v1/quote" })).status).toBe(409);
    expect((await patch(id, "{oops")).status).toBe(400);
    expect((await get(id)).body.path).toBe("/v1/other");
  });

  it("drops stored path parameters that a new path no longer has", async () => {
    const { id } = (await post({ method: "GET", path: "/v1/{a}", parameters: [{ name: "a", in: "path", description: "A" }] })).body;
    const res = await patch(id, { path: "/v1/{b}" });
    expect(res.status).toBe(200);
    expect(res.body.parameters).toEqual([{ name: "b", in: "path", required: true, type: "string", description: "" }]);
  });

  it("starts the trial when a patch publishes a priced endpoint", async () => {
    const { id } = (await post({ ...base, ...valid.per_request, isActive: false })).body;
    await patch(id, { isActive: true });
    expect((await api.test().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).trialStartedAt).toBeInstanceOf(Date);
  });

  it("deletes (204), then 404; refuses while paid sessions are live (409)", async () => {
    const del = (endpointId: string) =>
      call(deleteOne, { method: "DELETE", path: `/tenants/${tenantId}/endpoints/${endpointId}`, params: { tenantId, endpointId }, token: key });
    const { id } = (await post({ ...base, ...valid.time_pass })).body;
    await api.test().db.prisma.paymentSession.create({
      data: { tenantId, endpointId: id, model: "time_pass", tokenHash: "h1", paymentHash: "p1", expiresAt: new Date(Date.now() + 60_000) },
    });
    const busy = await del(id);
    expect(busy.status).toBe(409);
    expect(busy.body.error.details).toEqual({ activeSessions: 1 });
    await api.test().db.prisma.paymentSession.updateMany({ data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await del(id)).status).toBe(204);
    expect((await get(id)).status).toBe(404);
    expect((await del(id)).status).toBe(404);
  });
});
