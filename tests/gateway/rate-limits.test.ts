// Rate limits through the real gateway (spec 8): anonymous per-endpoint limit with Retry-After,
// credentialed callers skipping it, demotion after repeated forgeries, trusted proxies.
// What counts as credentialed, and the challenge limit: tests/security/rate-limit-credentials.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { call, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { json } from "@/tests/helpers/origin.ts";

// The default limits: this file tests them.
const t = useGatewayTest({
  env: { TRUSTED_PROXIES: "127.0.0.1,::1,::ffff:127.0.0.1" },
  gatewayOptions: { rateLimits: {} },
  resetEachTest: false,
  routes: (origin) => {
    origin.route("/v1/free", json(200, { ok: true }));
    origin.route("/v1/limited", json(200, { ok: true }));
    origin.route("/v1/pass", json(200, { ok: true }));
  },
});
let base: string;

beforeAll(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free" });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/limited", rateLimitPerMinute: 2 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 1 });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/pass", pricingModel: "time_pass", priceSats: 1, durationMinutes: 60 });
  base = `${t.urls[0]}/gw/${slug}`;
});

async function status(path: string, ip: string, headers: Record<string, string> = {}) {
  const res = await request(`${base}${path}`, { headers: { "x-forwarded-for": ip, ...headers } });
  await res.body.dump();
  return { status: res.statusCode, retryAfter: res.headers["retry-after"] };
}

describe("gateway rate limits", () => {
  it("answers 429 with Retry-After after 30 anonymous requests per endpoint per minute", async () => {
    const results = [];
    for (let i = 0; i < 32; i++) results.push(await status("/v1/free", "198.51.100.1"));
    expect(results.slice(0, 30).every((r) => r.status === 200)).toBe(true);
    expect(results[30].status).toBe(429);
    expect(Number(results[30].retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await status("/v1/free", "198.51.100.2")).status).toBe(200);
  });

  it("applies the provider's per-endpoint limit", async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await status("/v1/limited", "198.51.100.3")).status);
    expect(codes).toEqual([200, 200, 429]);
  });

  it("lets credentialed callers past the anonymous limit until repeated forgeries demote them", async () => {
    const ip = "198.51.100.4";
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/pass`, { "x-forwarded-for": ip }));
    const genuine = { authorization };
    const before = [];
    for (let i = 0; i < 40; i++) before.push((await status("/v1/pass", ip, genuine)).status);
    expect(before.every((s) => s === 200)).toBe(true);
    const forged = { authorization: `L402 ${Buffer.from("not a macaroon").toString("base64")}:${"a".repeat(64)}` };
    const forgedCodes = [];
    for (let i = 0; i < 5; i++) forgedCodes.push((await status("/v1/paid", ip, forged)).status);
    expect(forgedCodes).toEqual([401, 401, 401, 401, 401]);
    // Demoted: the genuine credential now counts against the anonymous limit (the challenge was its first request).
    const after = [];
    for (let i = 0; i < 30; i++) after.push((await status("/v1/pass", ip, genuine)).status);
    expect(after).toEqual([...Array(29).fill(200), 429]);
  });
});
