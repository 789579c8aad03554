// Same class as issue 23, finding 4 (getting past the per-IP limits): one IPv6 host usually holds
// a whole /64, so counting per address let it rotate addresses and never meet a limit. The gateway
// counts an IPv6 client by its /64 (an IPv4-mapped address as the IPv4 address).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { createGateway, type Gateway } from "@/lib/gateway/server.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { createTestContext, type TestContext } from "@/tests/helpers/context.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";

let ctx: TestContext;
let origin: TestOrigin;
let gateway: Gateway;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext({ TRUSTED_PROXIES: "127.0.0.1,::1,::ffff:127.0.0.1" });
  origin = await startTestOrigin();
  origin.route("/v1/free", json(200, { ok: true }));
  const { tenantId, slug } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
  await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/free", rateLimitPerMinute: 3 });
  gateway = createGateway({ config: ctx.config, prisma: ctx.db.prisma, pg: ctx.db.pg, store: ctx.store, devNode: null, log: createLogger("silent") });
  base = `http://127.0.0.1:${await gateway.listen(0, "127.0.0.1")}/gw/${slug}`;
});

afterAll(async () => {
  await gateway?.close();
  await origin?.close();
  await ctx?.close();
});

async function status(ip: string): Promise<number> {
  const res = await request(`${base}/v1/free`, { headers: { "x-forwarded-for": ip } });
  await res.body.dump();
  return res.statusCode;
}

describe("per-IP limits and IPv6", () => {
  it("counts every address of one /64 together", async () => {
    const codes = [];
    for (const ip of ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:0db8:0001:0002:0:0:0:9"]) codes.push(await status(ip));
    expect(codes).toEqual([200, 200, 200, 429]);
    // The next /64 is another client.
    expect(await status("2001:db8:1:3::1")).toBe(200);
  });

  it("counts an IPv4-mapped address as its IPv4 address", async () => {
    const codes = [];
    for (const ip of ["198.51.100.77", "::ffff:198.51.100.77", "198.51.100.77", "::ffff:c633:644d"]) codes.push(await status(ip));
    expect(codes).toEqual([200, 200, 200, 429]);
  });
});
