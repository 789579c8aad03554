// Issue 23, finding 12 (part): every unknown slug used to add a tenant-cache entry and cost a
// database query before any rate limit. Now the gateway's tenant lookups per IP are limited
// (429 + Retry-After beyond), and remembered unknown names are bounded in memory.
// Real gateway and database; the client IP comes from X-Forwarded-For (loopback is trusted).
import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import type { PrismaClient } from "@/lib/db/client.ts";
import { TenantCache } from "@/lib/gateway/tenant-cache.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let lookups = 0;

/** The real client, counting the gateway's tenant lookups. */
function countingPrisma(real: PrismaClient): PrismaClient {
  return new Proxy(real, {
    get(target, property, receiver) {
      if (property !== "tenant") return Reflect.get(target, property, receiver);
      const tenants = target.tenant;
      return new Proxy(tenants, {
        get(t, name, r) {
          if (name !== "findUnique") return Reflect.get(t, name, r);
          return (args: Parameters<PrismaClient["tenant"]["findUnique"]>[0]) => {
            lookups += 1;
            return t.findUnique(args);
          };
        },
      });
    },
  });
}

// The gateway's real rate limits, reading tenants through the counting client.
const t = useGatewayTest({
  env: { TRUSTED_PROXIES: "127.0.0.1,::1,::ffff:127.0.0.1" },
  routes: (origin) => origin.route("/v1/free", json(200, { ok: true })),
  devNode: false,
  gatewayOptions: (ctx) => ({ prisma: countingPrisma(ctx.db.prisma), rateLimits: {} }),
});

beforeEach(() => {
  lookups = 0;
});

const randomSlug = () => `no-${randomBytes(6).toString("hex")}`;

async function get(slug: string, ip: string) {
  const res = await request(`${t.urls[0]}/gw/${slug}/v1/free`, { headers: { "x-forwarded-for": ip } });
  const text = await res.body.text();
  return { status: res.statusCode, retryAfter: res.headers["retry-after"], text };
}

describe("a flood of unknown API names", () => {
  it("costs at most 60 database lookups a minute per IP, then 429 with Retry-After", async () => {
    const ip = "203.0.113.50";
    const results = [];
    for (let i = 0; i < 70; i++) results.push(await get(randomSlug(), ip));
    expect(results.slice(0, 60).every((r) => r.status === 404)).toBe(true);
    expect(results.slice(60).every((r) => r.status === 429)).toBe(true);
    expect(Number(results[60].retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(results[60].text).error.code).toBe("rate_limited");
    expect(lookups).toBe(60);

    // Another address still reaches a real API, and a known tenant costs no lookup once cached.
    const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
    await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free" });
    expect((await get(slug, "203.0.113.51")).status).toBe(200);
    expect((await get(slug, ip)).status).toBe(200); // cached: this IP's lookup budget is not asked
  });

  it("answers a repeated unknown name from memory", async () => {
    const slug = randomSlug();
    for (let i = 0; i < 10; i++) expect((await get(slug, "203.0.113.52")).status).toBe(404);
    expect(lookups).toBe(1);
  });

  it("remembers a bounded number of unknown names", async () => {
    const cache = new TenantCache({ prisma: t.ctx.db.prisma, store: t.ctx.store, appSecret: t.ctx.config.appSecret, maxUnknownSlugs: 50 });
    for (let i = 0; i < 120; i++) expect(await cache.get(randomSlug())).toBeNull();
    expect(cache.size).toBeLessThanOrEqual(50);
  });
});
