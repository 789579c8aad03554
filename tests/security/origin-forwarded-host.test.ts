// Same class as issue 23, findings 1 and 4 (a request header trusted as if the platform had said
// it): X-Forwarded-Host and X-Forwarded-Proto sent to origins came from the client's Host header
// and a fixed "http". An origin that builds links from them, behind an endpoint that caches,
// served an attacker's host to every later caller (the cache key has no Host). Both now come from
// the tenant's configured gateway address (GATEWAY_URL_TEMPLATE).
import { beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";

let slug: string;

const t = useGatewayTest({
  env: { GATEWAY_URL_TEMPLATE: "https://{slug}.gw.example.com" },
  routes: (origin) => {
    origin.route("/v1/links", (req, res) => {
      const self = `${req.headers["x-forwarded-proto"]}://${req.headers["x-forwarded-host"]}/v1/links?page=2`;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ next: self }));
    });
  },
});

beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  slug = tenant.slug;
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/links", cacheTtlSeconds: 60 });
});

/** The origin's "next" link through the path form, with the given Host (or the gateway's own address). */
async function next(host?: string): Promise<string> {
  const res = await request(`${t.urls[0]}/gw/${slug}/v1/links`, { headers: host ? { host } : {} });
  return ((await res.body.json()) as { next: string }).next;
}

describe("X-Forwarded-Host and X-Forwarded-Proto to origins", () => {
  it("name the tenant's configured gateway address, whatever Host the client sent", async () => {
    expect(await next("evil.test")).toBe(`https://${slug}.gw.example.com/v1/links?page=2`);
    expect(t.origin.received.at(-1)!.headers["x-forwarded-host"]).toBe(`${slug}.gw.example.com`);
    // The cached answer a later caller gets carries no trace of the first caller's Host.
    expect(await next()).toBe(`https://${slug}.gw.example.com/v1/links?page=2`);
    expect(t.origin.received.filter((r) => r.url === "/v1/links")).toHaveLength(1);
  });
});
