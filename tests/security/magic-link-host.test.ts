// Host header injection (issue 23, finding 1): every absolute URL the sign-in flows mail, redirect
// to or put in a QR code is built from SITE_URL, whatever Host, X-Forwarded-Host and
// X-Forwarded-Proto a caller sends. A sign-in request for a victim's address with
// `X-Forwarded-Host: evil.test` used to mail the victim a genuine link to evil.test.
// Real Auth.js route handlers and the /signin form's server action (its request headers come from
// `next/headers`, replaced here by what the attacker sent), on a real database.
import { NextRequest } from "next/server";
import { beforeEach, describe, expect, it, vi } from "vitest";

const incoming = vi.hoisted(() => ({ headers: new Headers(), jar: new Map<string, string>() }));
vi.mock("next/headers", () => ({
  headers: async () => incoming.headers,
  cookies: async () => ({
    get: (name: string) => (incoming.jar.has(name) ? { name, value: incoming.jar.get(name) } : undefined),
    set: (name: string, value: string) => void incoming.jar.set(name, value),
  }),
}));

import { POST as lnurlChallenge } from "@/app/api/lnurl-auth/challenge/route.ts";
import { PATCH as patchTenant } from "@/app/api/tenants/[tenantId]/route.ts";
import { authRouteHandlers, signIn, signOut } from "@/lib/auth/next-auth.ts";
import { deliverSignInMail } from "@/lib/auth/sign-in-mail.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { call, seedTenant, useApiContext } from "@/tests/api/helpers.ts";

const SITE = "http://127.0.0.1:3000";
const api = useApiContext({ NODE_ENV: "development", SITE_URL: SITE, GITHUB_ID: "gh-client", GITHUB_SECRET: "gh-secret" });

/** What an attacker sends to make the platform believe it is evil.test. */
const FORGED = { host: "evil.test", "x-forwarded-host": "evil.test", "x-forwarded-proto": "https" };

/** A route handler request the way Next builds it (localhost URL), with the attacker's headers. */
function routeRequest(path: string, init: { method?: string; headers?: Record<string, string>; body?: URLSearchParams } = {}): NextRequest {
  return new NextRequest(`http://localhost:3000${path}`, { method: init.method ?? "GET", headers: { ...FORGED, ...init.headers }, body: init.body });
}

function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

async function mailedUrl(to: string): Promise<URL> {
  const mail = await api.test().db.prisma.devMail.findFirstOrThrow({ where: { to }, orderBy: { createdAt: "desc" } });
  expect(mail.text).toContain(mail.url);
  return new URL(mail.url);
}

/** Asks Auth.js's route handlers for a magic link, with a CSRF token as the browser would. */
async function requestMagicLink(email: string, callbackUrl = "/dashboard"): Promise<Response> {
  const csrf = await authRouteHandlers.GET(routeRequest("/api/auth/csrf"));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const body = new URLSearchParams({ csrfToken, email, callbackUrl });
  return authRouteHandlers.POST(
    routeRequest("/api/auth/signin/nodemailer", {
      method: "POST",
      body,
      headers: { cookie: cookiesOf(csrf), "content-type": "application/x-www-form-urlencoded" },
    }),
  );
}

beforeEach(() => {
  incoming.headers = new Headers(FORGED);
  incoming.jar.clear();
});

describe("sign-in URLs come from SITE_URL, never from request headers", () => {
  it("mails the magic link on SITE_URL when the sign-in POST names another host", async () => {
    const res = await requestMagicLink("victim@example.com");
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).origin).toBe(SITE);
    const link = await mailedUrl("victim@example.com");
    expect(link.origin).toBe(SITE);
    expect(new URL(link.searchParams.get("callbackUrl")!).origin).toBe(SITE);
    const mail = await api.test().db.prisma.devMail.findFirstOrThrow({ where: { to: "victim@example.com" } });
    expect(mail.subject).toBe("Sign in to L402 Hub (127.0.0.1:3000)");
    expect(`${mail.subject}\n${mail.text}`).not.toContain("evil.test");
  });

  it("mails the magic link on SITE_URL from the /signin form's server action", async () => {
    const next = await signIn("nodemailer", { email: "victim@example.com", redirectTo: "/dashboard", redirect: false });
    expect(new URL(next).origin).toBe(SITE);
    const link = await mailedUrl("victim@example.com");
    expect(link.origin).toBe(SITE);
    expect(new URL(link.searchParams.get("callbackUrl")!).origin).toBe(SITE);
    // Cookie names follow SITE_URL's scheme (http here), not the forged X-Forwarded-Proto.
    expect([...incoming.jar.keys()].some((name) => name.startsWith("__Secure-"))).toBe(false);
  });

  it("signs out from the server action and lands on SITE_URL", async () => {
    const { prisma } = api.test().db;
    const user = await prisma.user.create({ data: { email: "leaving@example.com" } });
    await prisma.session.create({ data: { sessionToken: "leaving-session", userId: user.id, expires: new Date(Date.now() + 3600_000) } });
    incoming.headers = new Headers({ ...FORGED, cookie: "authjs.session-token=leaving-session" });
    const thrown = await signOut({ redirectTo: "/" }).catch((err: { digest?: string }) => err);
    expect(String((thrown as { digest?: string }).digest)).toMatch(new RegExp(`^NEXT_REDIRECT;[a-z]+;${SITE.replace(/\./g, "\\.")}/;`));
    expect(await prisma.session.count({ where: { sessionToken: "leaving-session" } })).toBe(0);
    expect(incoming.jar.get("authjs.session-token")).toBe("");
  });

  it("redirects to SITE_URL after the mailed link is opened under another host", async () => {
    await requestMagicLink("victim@example.com", "/dashboard/acme");
    const link = await mailedUrl("victim@example.com");
    const res = await authRouteHandlers.GET(routeRequest(`${link.pathname}${link.search}`));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`${SITE}/dashboard/acme`);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true);
  });

  it("sends GitHub a redirect_uri on SITE_URL", async () => {
    const csrf = await authRouteHandlers.GET(routeRequest("/api/auth/csrf"));
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const res = await authRouteHandlers.POST(
      routeRequest("/api/auth/signin/github", {
        method: "POST",
        body: new URLSearchParams({ csrfToken, callbackUrl: "/dashboard" }),
        headers: { cookie: cookiesOf(csrf), "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    expect(res.status).toBe(302);
    const authorize = new URL(res.headers.get("location")!);
    expect(authorize.origin).toBe("https://github.com");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${SITE}/api/auth/callback/github`);
  });

  it("never mails a link to another origin, whatever code path asks", async () => {
    const { config, db } = api.test();
    const url = "https://evil.test/api/auth/callback/nodemailer?token=abc&email=victim%40example.com";
    await expect(deliverSignInMail({ config, prisma: db.prisma, log: createLogger("silent"), to: "victim@example.com", url })).rejects.toThrow(/SITE_URL/);
    expect(await db.prisma.devMail.count()).toBe(0);
  });

  it("puts the LNURL-auth callback on SITE_URL", async () => {
    const res = await call(lnurlChallenge, { method: "POST", path: "/lnurl-auth/challenge", headers: FORGED });
    expect(res.status).toBe(200);
    expect(new URL(res.body.callbackUrl).origin).toBe(SITE);
  });
});

describe("same-site writes are judged against SITE_URL", () => {
  it("refuses a session write whose Origin matches only the forged host", async () => {
    const { tenantId } = await seedTenant(api.test());
    const { prisma } = api.test().db;
    const owner = await prisma.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
    await prisma.session.create({ data: { sessionToken: "owner-session", userId: owner.id, expires: new Date(Date.now() + 3600_000) } });
    const cookie = "authjs.session-token=owner-session";
    // Next sets X-Forwarded-Proto on every request it hands on; Auth.js picks cookie names by it.
    const evilHost = { host: "evil.test", "x-forwarded-host": "evil.test", "x-forwarded-proto": "http" };
    incoming.headers = new Headers({ ...evilHost, cookie });
    const path = `/tenants/${tenantId}`;
    const forged = await call(patchTenant, {
      method: "PATCH",
      path,
      params: { tenantId },
      body: { name: "pwned" },
      headers: { ...evilHost, cookie, origin: "http://evil.test" },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("forbidden");
    const same = await call(patchTenant, { method: "PATCH", path, params: { tenantId }, body: { name: "Renamed" }, headers: { cookie, origin: SITE } });
    expect(same.status).toBe(200);
    expect((await prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } })).name).toBe("Renamed");
  });
});
