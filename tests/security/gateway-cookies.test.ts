// Issue 23, finding 7: cookies must not cross the gateway. The visitor's Cookie header (the
// dashboard's session cookie included: cookies ignore ports) never reaches an origin, and an
// origin's Set-Cookie never reaches the client, unless the endpoint opts in (`forwardCookies`);
// even then the platform's own cookies stay behind and no cookie is relayed that could reach the
// site or another tenant. Also here, the same class: other origin response headers that would act
// on the platform (CORS, HSTS, Clear-Site-Data, Alt-Svc, our own payment headers) do not cross.
// Real gateway, a recording origin; SITE_URL http://hub.test, tenants at <slug>.gw.hub.test or /gw/<slug>.
import { beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useGatewayTest } from "@/tests/helpers/gateway.ts";
import type { TestOrigin } from "@/tests/helpers/origin.ts";

let slug: string;

const originCookies = [
  "sid=abc; Path=/; HttpOnly",
  "prefs=1",
  "wide=1; Domain=hub.test; Path=/",
  "tenants=1; Domain=gw.hub.test",
  "authjs.session-token=fixated; Path=/; HttpOnly",
  "__Secure-authjs.session-token=fixated; Path=/; Secure",
  "hub-lnurl-auth=fixated; Path=/api/lnurl-auth",
];

const visitorCookies = [
  "authjs.session-token=dashboard-session",
  "__Secure-authjs.session-token=dashboard-session",
  "__Host-authjs.csrf-token=csrf",
  "authjs.callback-url=http%3A%2F%2Fhub.test",
  "hub-lnurl-auth=k1-secret",
  "theme=dark",
  "cart=7",
].join("; ");

/** The origin's routes: every one sets cookies and platform-acting headers. */
function originRoutes(origin: TestOrigin) {
  for (const path of ["/v1/plain", "/v1/cookies", "/v1/cached"]) {
    origin.route(path, (_req, res) => {
      res.setHeader("set-cookie", originCookies);
      res.writeHead(200, {
        "content-type": "application/json",
        "access-control-allow-origin": "https://evil.test",
        "access-control-allow-credentials": "true",
        "access-control-allow-methods": "PUT",
        "access-control-expose-headers": "X-Origin-Thing",
        "x-origin-thing": "kept",
        "strict-transport-security": "max-age=0",
        "clear-site-data": '"cookies", "storage"',
        "alt-svc": 'h2="elsewhere.test:443"',
        "service-worker-allowed": "/",
        nel: '{"report_to":"default","max_age":86400,"include_subdomains":true}',
        "report-to": '{"group":"default","max_age":86400,"endpoints":[{"url":"https://collector.test"}]}',
        "x-hub-payment": "reverted",
        "x-hub-payment-code": "upstream_failed_retryable",
        "x-session-token": "hst_from_the_origin",
        "x-data-cost-sats": "0",
        "x-request-id": "origin-chosen",
      });
      res.end("{}");
    });
  }
}

const t = useGatewayTest({ env: { SITE_URL: "http://hub.test", GATEWAY_URL_TEMPLATE: "http://{slug}.gw.hub.test" }, routes: originRoutes });

beforeEach(async () => {
  const { prisma } = t.ctx.db;
  const tenant = await tenantFactory(prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  slug = tenant.slug;
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/plain" });
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/cookies", forwardCookies: true });
  await endpointFactory(prisma, tenant.tenantId, { path: "/v1/cached", cacheTtlSeconds: 60 });
});

/** A GET through the gateway: by path (`/gw/<slug>`) with the given Host, or by the tenant's own host. */
async function get(path: string, options: { host?: string; hostForm?: boolean; cookie?: string } = {}) {
  const url = options.hostForm ? `${t.urls[0]}${path}` : `${t.urls[0]}/gw/${slug}${path}`;
  const headers: Record<string, string> = {};
  if (options.hostForm) headers.host = `${slug}.gw.hub.test`;
  else if (options.host) headers.host = options.host;
  if (options.cookie) headers.cookie = options.cookie;
  const res = await request(url, { headers });
  await res.body.dump();
  const setCookie = res.headers["set-cookie"];
  return { status: res.statusCode, headers: res.headers, setCookie: setCookie === undefined ? [] : [setCookie].flat() };
}

describe("cookies through the gateway", () => {
  it("never forwards the visitor's cookies to an origin, nor the origin's Set-Cookie back, by default", async () => {
    const res = await get("/v1/plain", { cookie: visitorCookies });
    expect(res.status).toBe(200);
    expect(t.origin.received.at(-1)!.headers.cookie).toBeUndefined();
    expect(res.setCookie).toEqual([]);
  });

  it("forwards the visitor's cookies to an endpoint that opts in, except the platform's own", async () => {
    await get("/v1/cookies", { cookie: visitorCookies });
    expect(t.origin.received.at(-1)!.headers.cookie).toBe("theme=dark; cart=7");
    await get("/v1/cookies", { cookie: "authjs.session-token=dashboard-session" });
    expect(t.origin.received.at(-1)!.headers.cookie).toBeUndefined();
  });

  it("relays an opted-in origin's host-only cookies scoped to the tenant's path on a shared gateway host", async () => {
    const res = await get("/v1/cookies", { host: "api.gw.test" });
    expect(res.setCookie).toEqual([`sid=abc; Path=/gw/${slug}; HttpOnly`, "prefs=1"]);
  });

  it("relays an opted-in origin's host-only cookies unchanged on the tenant's own host", async () => {
    const res = await get("/v1/cookies", { hostForm: true });
    expect(res.status).toBe(200);
    expect(res.setCookie).toEqual(["sid=abc; Path=/; HttpOnly", "prefs=1"]);
  });

  it("relays no cookie when the gateway is reached on the site's host (cookies ignore ports)", async () => {
    expect((await get("/v1/cookies", { host: "hub.test:8402" })).setCookie).toEqual([]);
    expect((await get("/v1/cookies", { host: "HUB.test" })).setCookie).toEqual([]);
  });

  it("never caches a response the origin set cookies on, even when they were withheld", async () => {
    expect((await get("/v1/cached")).headers["x-cache"]).toBe("MISS");
    expect((await get("/v1/cached")).headers["x-cache"]).toBe("MISS");
    expect(t.origin.received.filter((r) => r.url === "/v1/cached")).toHaveLength(2);
  });
});

describe("origin response headers that would act on the platform", () => {
  it("keeps CORS the gateway's, drops host-wide policies and never relays the gateway's own headers", async () => {
    const res = await get("/v1/plain");
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(res.headers["access-control-allow-methods"]).toBeUndefined();
    // The origin's exposed headers are added to the gateway's, never in place of them.
    const exposed = String(res.headers["access-control-expose-headers"]).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(["X-Hub-Payment", "X-Session-Token", "WWW-Authenticate", "X-Origin-Thing"]));
    expect(res.headers["x-origin-thing"]).toBe("kept");
    for (const name of ["strict-transport-security", "clear-site-data", "alt-svc", "service-worker-allowed", "nel", "report-to"]) {
      expect(res.headers[name], name).toBeUndefined();
    }
    // A free call: no payment happened, so no payment header may claim one.
    for (const name of ["x-hub-payment", "x-hub-payment-code", "x-session-token", "x-data-cost-sats"]) expect(res.headers[name], name).toBeUndefined();
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
