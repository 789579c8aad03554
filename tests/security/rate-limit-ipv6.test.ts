// Same class as issue 23, finding 4 (getting past the per-IP limits): one IPv6 host usually holds
// a whole /64, so counting per address let it rotate addresses and never meet a limit. The gateway
// counts an IPv6 client by its /64 (an IPv4-mapped address as the IPv4 address).
import { beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

// The gateway's real rate limits; one tenant for the whole file (each test uses its own addresses).
const t = useGatewayTest({
  env: { TRUSTED_PROXIES: "127.0.0.1,::1,::ffff:127.0.0.1" },
  routes: (origin) => origin.route("/v1/free", json(200, { ok: true })),
  devNode: false,
  gatewayOptions: { rateLimits: {} },
  resetEachTest: false,
});
let base: string;

beforeAll(async () => {
  const { tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free", rateLimitPerMinute: 3 });
  base = `${t.urls[0]}/gw/${slug}`;
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
