// "Test connection": one signed probe to the saved origin (verifiable with our SDK, marked as a
// probe), status and latency; the first active endpoint is probed when there is one; 5xx and
// unreachable are reported, not thrown; a missing or refused (private) origin is a 422 on originUrl.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { POST as originTestRoute } from "@/app/api/tenants/[tenantId]/origin/test/route.ts";
import { verifyGatewayRequest } from "@l402-hub/sdk/origin";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { testOriginConnection } from "@/lib/health/test-origin-connection.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let origin: TestOrigin;
beforeEach(async () => {
  origin = await startTestOrigin();
});
afterEach(async () => {
  await origin.close();
});

async function tenantWithOrigin(originUrl: string | null) {
  const t = api.test();
  const created = await seedTenant(t);
  await t.db.prisma.tenant.update({ where: { id: created.tenantId }, data: { originUrl } });
  return created;
}

describe("POST /api/tenants/:id/origin/test", () => {
  it("sends a signed probe the SDK verifies and reports status and latency", async () => {
    origin.route("/base/", json(200, { ok: true }));
    const { tenantId, apiKey } = await tenantWithOrigin(`${origin.url}/base`);
    const res = await call(originTestRoute, { method: "POST", path: `/tenants/${tenantId}/origin/test`, params: { tenantId }, token: apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, statusCode: 200, error: null, method: "GET", path: "/" });
    expect(res.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(origin.received).toHaveLength(1);
    const probe = origin.received[0];
    expect(probe.headers["x-hub-probe"]).toBe("1");
    const secrets = await getOriginSecrets({ prisma: api.test().db.prisma, appSecret: api.test().config.appSecret, tenantId });
    const verdict = await verifyGatewayRequest({ method: probe.method, path: "/", headers: probe.headers, rawBody: probe.body, secrets: [secrets] });
    expect(verdict).toEqual({ ok: true });
  });

  it("probes the first active endpoint with its example, and reports a 5xx as not reachable", async () => {
    origin.route("/v1/items/42", json(503, { error: "down" }));
    const { tenantId } = await tenantWithOrigin(origin.url);
    await api.test().db.prisma.endpoint.create({
      data: { tenantId, method: "get", path: "/v1/items/{id}", exampleRequest: { path: { id: "42" }, query: { q: "x" } } },
    });
    const result = await testOriginConnection({ prisma: api.test().db.prisma, appSecret: api.test().config.appSecret, tenantId, allowPrivate: true });
    expect(result).toMatchObject({ ok: false, statusCode: 503, error: "origin answered 503", method: "GET", path: "/v1/items/42?q=x" });
    expect(origin.received[0].url).toBe("/v1/items/42?q=x");
  });

  it("reports an unreachable origin without throwing", async () => {
    const url = origin.url;
    await origin.close();
    origin = await startTestOrigin();
    const { tenantId } = await tenantWithOrigin(url);
    const result = await testOriginConnection({
      prisma: api.test().db.prisma,
      appSecret: api.test().config.appSecret,
      tenantId,
      allowPrivate: true,
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ ok: false, statusCode: null, latencyMs: null });
    expect(result.error).toMatch(/could not be reached/);
  });

  it("asks for an origin first (422 on originUrl)", async () => {
    const { tenantId, apiKey } = await tenantWithOrigin(null);
    const res = await call(originTestRoute, { method: "POST", path: `/tenants/${tenantId}/origin/test`, params: { tenantId }, token: apiKey });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fields).toEqual([{ field: "originUrl", message: "set an origin URL before testing it", rule: "missing" }]);
  });

  it("refuses private and reserved targets unless private origins are allowed, before any connection", async () => {
    origin.route("/", json(200, {}));
    const { tenantId } = await tenantWithOrigin(origin.url);
    const { prisma } = api.test().db;
    const appSecret = api.test().config.appSecret;
    await expect(testOriginConnection({ prisma, appSecret, tenantId, allowPrivate: false })).rejects.toMatchObject({
      code: "validation_failed",
      details: { fields: [{ field: "originUrl", rule: "blocked_address", message: expect.stringContaining("127.0.0.1") }] },
    });
    // A public-looking name that resolves to the cloud metadata address is refused too.
    await prisma.tenant.update({ where: { id: tenantId }, data: { originUrl: "http://metadata.example.test/" } });
    const resolver = async () => [{ address: "169.254.169.254", family: 4 }];
    await expect(testOriginConnection({ prisma, appSecret, tenantId, allowPrivate: false, resolver })).rejects.toMatchObject({
      details: { fields: [{ field: "originUrl", rule: "blocked_address" }] },
    });
    expect(origin.received).toHaveLength(0);
  });
});
