// Issue 23, finding 4: a request counts as credentialed (skipping the anonymous limits for the
// 3,000/min backstop) only once its credential was verified. A junk X-Session-Token on a
// per_request or free endpoint, a forged L402 credential or one issued for another endpoint are
// anonymous; and a caller cannot make a tenant's wallet create invoices without bound.
// Real gateway with the default limits, real origin, dev node; the client IP comes from
// X-Forwarded-For (loopback is a trusted proxy here).
import { beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { attenuateAuthorization } from "@/tests/helpers/attenuate.ts";
import { call, header, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

// The gateway's real rate limits (rateLimits: {}), not the helper's noRateLimits.
const t = useGatewayTest({
  env: { TRUSTED_PROXIES: "127.0.0.1,::1,::ffff:127.0.0.1" },
  routes: (origin) => {
    for (const path of ["/v1/free", "/v1/paid", "/v1/paid2", "/v1/paid3", "/v1/pass"]) origin.route(path, json(200, { ok: true }));
  },
  gatewayOptions: { rateLimits: {} },
});
let base: string;
let otherBase: string;
let tenantId: string;
let ipCounter = 0;

/** A fresh client address per test, so counters of one test never decide another's. */
const freshIp = () => `198.51.100.${++ipCounter}`;

beforeEach(async () => {
  const { ctx, origin, devNode } = t;
  const gatewayUrl = t.urls[0];
  const tenant = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  tenantId = tenant.tenantId;
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/free" });
  for (const path of ["/v1/paid", "/v1/paid2", "/v1/paid3"])
    await endpointFactory(ctx.db.prisma, tenantId, { path, pricingModel: "per_request", priceSats: 1 });
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/pass", pricingModel: "time_pass", priceSats: 5, durationMinutes: 60 });
  const other = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, other.tenantId, devNode.nodePubkey);
  await endpointFactory(ctx.db.prisma, other.tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 1 });
  base = `${gatewayUrl}/gw/${tenant.slug}`;
  otherBase = `${gatewayUrl}/gw/${other.slug}`;
});

async function statuses(url: string, ip: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await request(url, { headers: { "x-forwarded-for": ip, ...headers } });
    await res.body.dump();
    codes.push(res.statusCode);
  }
  return codes;
}

/** The status codes expected of `count` anonymous requests to one endpoint: 30 answered, then 429. */
const anonymous = (answered: number, count: number) => [...Array(30).fill(answered), ...Array(count - 30).fill(429)];

describe("what counts as credentialed", () => {
  it("gives a junk X-Session-Token on a per_request endpoint the anonymous limit (and no more invoices)", async () => {
    const ip = freshIp();
    expect(await statuses(`${base}/v1/paid`, ip, 32, { "x-session-token": "junk" })).toEqual(anonymous(402, 32));
    expect(await t.ctx.db.prisma.invoice.count()).toBe(30);
  });

  it("gives a junk X-Session-Token on a free endpoint the anonymous limit", async () => {
    expect(await statuses(`${base}/v1/free`, freshIp(), 32, { "x-session-token": "junk" })).toEqual(anonymous(200, 32));
  });

  it("counts a forged L402 credential against the anonymous limit from the first request", async () => {
    const forged = { authorization: `L402 ${Buffer.from("not a macaroon").toString("base64")}:${"a".repeat(64)}` };
    const codes = await statuses(`${base}/v1/paid`, freshIp(), 31, forged);
    expect(codes.slice(0, 30).every((c) => c === 401)).toBe(true);
    expect(codes[30]).toBe(429);
  });

  it("counts a genuine credential of another endpoint as anonymous (it is not a credential there)", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/paid2`));
    const codes = await statuses(`${base}/v1/paid`, freshIp(), 31, { authorization });
    expect(codes.slice(0, 30).every((c) => c === 401)).toBe(true);
    expect(codes[30]).toBe(429);
  });

  it("counts credit presented at another provider or on a session endpoint as anonymous (a 402 there, not a forgery)", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/paid`, { "x-hub-credit": "100" }));
    for (const url of [`${otherBase}/v1/paid`, `${base}/v1/pass`]) {
      const codes = await statuses(url, freshIp(), 31, { authorization });
      expect(codes, url).toEqual(anonymous(402, 31));
    }
  });

  it("counts a delegated credential used outside its method caveat as anonymous (it is refused there)", async () => {
    const ip = freshIp();
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/pass`, { "x-forwarded-for": ip }));
    const postOnly = { authorization: attenuateAuthorization(authorization, ["method=POST"]) };
    const codes = await statuses(`${base}/v1/pass`, ip, 30, postOnly);
    expect(codes.slice(0, 29).every((c) => c === 401)).toBe(true);
    expect(codes[29]).toBe(429); // the challenge above was this IP's first anonymous request to /v1/pass
  });

  it("lets a verified credential past the anonymous limit", async () => {
    const ip = freshIp();
    const { authorization } = await payChallenge(t.devNode, await call(`${base}/v1/pass`, { "x-forwarded-for": ip }));
    const codes = await statuses(`${base}/v1/pass`, ip, 40, { authorization });
    expect(codes.every((c) => c === 200)).toBe(true);
  });

  it("demotes an IP whose session tokens are unknown (a forgery needs the database to tell)", async () => {
    const ip = freshIp();
    const junk = { "x-session-token": `hst_${"A".repeat(43)}` };
    expect(await statuses(`${base}/v1/pass`, ip, 5, junk)).toEqual([401, 401, 401, 401, 401]);
    // Demoted: these now count against the anonymous limit (the 5 before them were not counted).
    expect(await statuses(`${base}/v1/pass`, ip, 31, junk)).toEqual([...Array(30).fill(401), 429]);
  });
});

describe("invoice creation per IP and tenant", () => {
  it("answers 429 with Retry-After once an IP asked one tenant for 60 challenges in a minute", async () => {
    const ip = freshIp();
    const codes = [
      ...(await statuses(`${base}/v1/paid`, ip, 21)),
      ...(await statuses(`${base}/v1/paid2`, ip, 21)),
      ...(await statuses(`${base}/v1/paid3`, ip, 21)),
    ];
    expect(codes.filter((c) => c === 402)).toHaveLength(60);
    expect(codes.slice(60)).toEqual([429, 429, 429]);
    expect(await t.ctx.db.prisma.invoice.count({ where: { tenantId } })).toBe(60);

    const refused = await call(`${base}/v1/paid`, { "x-forwarded-for": ip });
    expect(refused.status).toBe(429);
    expect(Number(header(refused, "retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.json.error.code).toBe("rate_limited");
    expect(refused.json.error.message).toMatch(/60 payment challenges per minute/);
    // Other callers, and the same caller at another provider, are not affected.
    expect((await call(`${base}/v1/paid`, { "x-forwarded-for": freshIp() })).status).toBe(402);
    expect((await call(`${otherBase}/v1/paid`, { "x-forwarded-for": ip })).status).toBe(402);
  });
});
