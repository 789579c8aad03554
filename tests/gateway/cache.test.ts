// Response caching end to end (spec 4.1 rule 4): GET 2xx only, X-Cache / X-Cache-Age, bypasses for
// responses the origin marks private, and payment still applying to hits. With REDIS_URL the cache
// is shared by both gateway instances; without it each instance has its own bounded memory cache.
import { beforeEach, describe, expect, it } from "vitest";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { usingRedis } from "@/tests/helpers/context.ts";
import { call, header, payChallenge, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";

const clock = testClock();

/** Origin answers: a body naming how many times it was asked, with per-route headers. */
const extraHeaders: Record<string, Record<string, string | string[]>> = {
  "/v1/nostore": { "cache-control": "no-store" },
  "/v1/private": { "cache-control": "private, max-age=60" },
  "/v1/cookie": { "set-cookie": ["session=abc; HttpOnly"] },
  "/v1/vary": { vary: "Authorization" },
};

// The clock only moves forward here (an hour per test), so nothing cached in the store outlives its test.
const t = useGatewayTest({
  gateways: 2,
  gatewayOptions: { clock: clock.now },
  routes: (origin) => {
    for (const path of ["/v1/free", "/v1/paid", "/v1/bucket", "/v1/kb", "/v1/post", ...Object.keys(extraHeaders)]) {
      origin.route(path, (req, res) => {
        const query = new URL(req.url, "http://o").searchParams;
        const hits = origin.received.filter((r) => r.url.split("?")[0] === path).length;
        const status = Number(query.get("status") ?? 200);
        const body = path === "/v1/kb" ? "k".repeat(2048) : JSON.stringify({ path, hits, q: query.get("q") });
        res.writeHead(status, { "content-type": "application/json", "cache-control": "public, max-age=60", ...extraHeaders[path] }).end(body);
      });
    }
  },
});

let base: string;
let base2: string;
let otherBase: string;

beforeEach(async () => {
  await t.ctx.reset();
  // Each test moves the clock past every entry an earlier test stored (TTLs are 60 s).
  clock.advance(3_600_000);
  t.gateways.forEach((g) => g.tenants.invalidate());
  t.origin.received.length = 0;
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  const cached = { cacheTtlSeconds: 60 };
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free", ...cached });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 2, ...cached });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 5, tokenBudget: 4, ...cached });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/kb", pricingModel: "per_kb", priceSats: 10, unitCostSats: 1, ...cached });
  await endpointFactory(t.ctx.db.prisma, tenantId, { method: "POST", path: "/v1/post", ...cached });
  for (const path of Object.keys(extraHeaders)) await endpointFactory(t.ctx.db.prisma, tenantId, { path, ...cached });
  const other = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await endpointFactory(t.ctx.db.prisma, other.tenantId, { path: "/v1/free", ...cached });
  base = `${t.urls[0]}/gw/${slug}`;
  base2 = `${t.urls[1]}/gw/${slug}`;
  otherBase = `${t.urls[0]}/gw/${other.slug}`;
});

const originCalls = (path: string) => t.origin.received.filter((r) => r.url.split("?")[0] === path).length;

describe("response cache", () => {
  it("answers MISS, then HIT with its age, per query, until the TTL ends", async () => {
    const miss = await call(`${base}/v1/free?q=1`);
    expect([miss.status, header(miss, "x-cache"), header(miss, "x-cache-age")]).toEqual([200, "MISS", undefined]);
    clock.advance(7_000);
    const hit = await call(`${base}/v1/free?q=1`);
    expect([hit.status, header(hit, "x-cache"), header(hit, "x-cache-age"), hit.text]).toEqual([200, "HIT", "7", miss.text]);
    expect(header(hit, "content-type")).toBe("application/json");
    expect(header(hit, "x-request-id")).not.toBe(header(miss, "x-request-id"));
    expect(header(await call(`${base}/v1/free?q=2`), "x-cache")).toBe("MISS");
    // Shared through Redis; without it each instance keeps its own.
    expect(header(await call(`${base2}/v1/free?q=1`), "x-cache")).toBe(usingRedis ? "HIT" : "MISS");
    // Another tenant's same path is another key.
    expect(header(await call(`${otherBase}/v1/free?q=1`), "x-cache")).toBe("MISS");
    clock.advance(60_000);
    expect(header(await call(`${base}/v1/free?q=1`), "x-cache")).toBe("MISS");
    expect(originCalls("/v1/free")).toBe(usingRedis ? 4 : 5);
  });

  it("still charges for a hit: a per_request proof is consumed and a session debited", async () => {
    const first = await payChallenge(t.devNode, await call(`${base}/v1/paid`));
    const miss = await call(`${base}/v1/paid`, { authorization: first.authorization });
    expect([miss.status, header(miss, "x-cache"), header(miss, "x-hub-payment")]).toEqual([200, "MISS", "charged"]);
    // No payment, no data: the cache never bypasses the 402.
    const unpaid = await call(`${base}/v1/paid`);
    expect([unpaid.status, header(unpaid, "x-cache")]).toEqual([402, undefined]);
    const second = await payChallenge(t.devNode, await call(`${base}/v1/paid`));
    const hit = await call(`${base}/v1/paid`, { authorization: second.authorization });
    expect([hit.status, header(hit, "x-cache"), header(hit, "x-hub-payment")]).toEqual([200, "HIT", "charged"]);
    expect((await t.ctx.db.prisma.proof.findUniqueOrThrow({ where: { paymentHash: second.paymentHash } })).state).toBe("consumed");
    expect((await call(`${base}/v1/paid`, { authorization: second.authorization })).status).toBe(402);
    expect(originCalls("/v1/paid")).toBe(1);

    const bucket = await payChallenge(t.devNode, await call(`${base}/v1/bucket`));
    const opened = await call(`${base}/v1/bucket`, { authorization: bucket.authorization });
    const token = header(opened, "x-session-token")!;
    const bucketHit = await call(`${base}/v1/bucket`, { "x-session-token": token });
    expect([header(bucketHit, "x-cache"), header(bucketHit, "x-session-balance")]).toEqual(["HIT", "2"]);

    const kb = await payChallenge(t.devNode, await call(`${base}/v1/kb`));
    const kbMiss = await call(`${base}/v1/kb`, { authorization: kb.authorization });
    expect([header(kbMiss, "x-cache"), header(kbMiss, "x-data-cost-sats"), header(kbMiss, "x-session-balance")]).toEqual(["MISS", "2", "8"]);
    const kbHit = await call(`${base}/v1/kb`, { "x-session-token": header(kbMiss, "x-session-token")! });
    expect([header(kbHit, "x-cache"), header(kbHit, "x-data-size-kb"), header(kbHit, "x-data-cost-sats"), header(kbHit, "x-session-balance")]).toEqual([
      "HIT",
      "2",
      "2",
      "6",
    ]);
    expect(kbHit.text).toHaveLength(2048);
  });

  it("never stores what the origin marks no-store or private, sets cookies on, or varies on other headers", async () => {
    for (const path of Object.keys(extraHeaders)) {
      expect(header(await call(`${base}${path}`), "x-cache"), path).toBe("MISS");
      expect(header(await call(`${base}${path}`), "x-cache"), path).toBe("MISS");
      expect(originCalls(path), path).toBe(2);
    }
  });

  it("caches neither other methods nor non-2xx answers", async () => {
    const post = await call(`${base}/v1/post`, { "content-type": "application/json" }, "POST", "{}");
    expect([post.status, header(post, "x-cache")]).toEqual([200, undefined]);
    await call(`${base}/v1/post`, { "content-type": "application/json" }, "POST", "{}");
    expect(originCalls("/v1/post")).toBe(2);
    for (let i = 0; i < 2; i++) {
      const failed = await call(`${base}/v1/free?status=503`);
      expect([failed.status, header(failed, "x-cache")]).toEqual([503, "MISS"]);
    }
    expect(originCalls("/v1/free")).toBe(2);
  });
});
