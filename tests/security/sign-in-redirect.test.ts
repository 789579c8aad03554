// Open redirect after sign-in (issue 23, finding 11): `/%09/evil.example` passed the callback check
// and, decoded from the query string, became `/<tab>/evil.example`, which browsers read as
// `//evil.example`. Only a same-site path is kept, judged after percent-decoding (repeatedly) and
// after stripping what browsers strip; anything else becomes /dashboard. Checked through the
// function, the /signin page's redirect for a signed-in visitor, and Auth.js's redirect after the
// magic link is opened (the callbackUrl it carries).
import { NextRequest } from "next/server";
import { describe, expect, it, vi } from "vitest";

const session = vi.hoisted(() => ({ userId: null as string | null }));
vi.mock("@/lib/auth/next-auth.ts", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/auth/next-auth.ts")>()),
  // The /signin page asks whether the visitor is signed in; here they are.
  auth: async () => (session.userId ? { user: { id: session.userId } } : null),
}));

import SignInPage from "@/app/signin/page.tsx";
import { safeCallbackUrl } from "@/app/dashboard/session.ts";
import { authRouteHandlers } from "@/lib/auth/next-auth.ts";
import { useApiContext } from "@/tests/api/helpers.ts";

const SITE = "http://127.0.0.1:3000";
const api = useApiContext({ NODE_ENV: "development", SITE_URL: SITE });

/** Spellings that leave the site in some browser, or are not a path at all. */
const BYPASSES = [
  "/%09/evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/%0a/evil.example",
  "/%0d%0a/evil.example",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "/\\/evil.example",
  "\\\\evil.example",
  "/%5Cevil.example",
  "/%5c%5cevil.example",
  "/%2F%2Fevil.example",
  "/%2f/evil.example",
  "%2F%2Fevil.example",
  "/%252F%252Fevil.example",
  "/%25252F%25252Fevil.example",
  "/%2509/evil.example",
  " //evil.example",
  "\u0000//evil.example",
  "\t//evil.example",
  "/\u0000/evil.example",
  "https://evil.example",
  "http:evil.example",
  "//evil.example/dashboard",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "evil.example",
  "dashboard",
  "%",
  "/%E0%A4%A",
  "",
];

/** Same-site paths that must survive untouched. */
const KEPT = ["/dashboard", "/dashboard/acme/origin", "/dashboard/acme?tab=members#invite", "/directory?search=a%20b", "/", "/dashboard/a%2Fb"];

describe("the callback path check", () => {
  it.each(BYPASSES)("turns %j into /dashboard", (value) => {
    expect(safeCallbackUrl(value)).toBe("/dashboard");
  });

  it.each(KEPT)("keeps %j", (value) => {
    expect(safeCallbackUrl(value)).toBe(value);
  });

  it("falls back without a value", () => {
    expect(safeCallbackUrl(null)).toBe("/dashboard");
    expect(safeCallbackUrl(undefined)).toBe("/dashboard");
  });
});

/** Where Next's redirect() sends the browser (it throws an error carrying the location). */
async function redirectOf(render: Promise<unknown>): Promise<string> {
  const error = await render.then(
    () => expect.unreachable("the page rendered instead of redirecting"),
    (err: unknown) => err as { digest?: string },
  );
  const match = /^NEXT_REDIRECT;[a-z]+;(.*);\d+;$/s.exec(String(error.digest));
  expect(match, String(error.digest)).not.toBeNull();
  return match![1];
}

describe("the /signin page for a signed-in visitor", () => {
  it.each([...BYPASSES.filter(Boolean), "/%09/evil.example?x=1"])("sends %j to /dashboard", async (callbackUrl) => {
    session.userId = "signed-in";
    expect(await redirectOf(SignInPage({ searchParams: Promise.resolve({ callbackUrl }) }))).toBe("/dashboard");
  });

  it("sends a same-site path there", async () => {
    session.userId = "signed-in";
    expect(await redirectOf(SignInPage({ searchParams: Promise.resolve({ callbackUrl: "/dashboard/acme/origin" }) }))).toBe("/dashboard/acme/origin");
  });
});

function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** E-mail sign-in through Auth.js's route handlers; returns where opening the mailed link leads. */
async function landingAfterMagicLink(email: string, callbackUrl: string): Promise<string> {
  const csrf = await authRouteHandlers.GET(new NextRequest(`${SITE}/api/auth/csrf`));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const asked = await authRouteHandlers.POST(
    new NextRequest(`${SITE}/api/auth/signin/nodemailer`, {
      method: "POST",
      headers: { cookie: cookiesOf(csrf), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrfToken, email, callbackUrl }),
    }),
  );
  expect(asked.status).toBe(302);
  const mail = await api.test().db.prisma.devMail.findFirstOrThrow({ where: { to: email }, orderBy: { createdAt: "desc" } });
  const link = new URL(mail.url);
  const opened = await authRouteHandlers.GET(new NextRequest(`${SITE}${link.pathname}${link.search}`));
  expect(opened.status).toBe(302);
  return opened.headers.get("location")!;
}

describe("Auth.js's redirect after the magic link", () => {
  it.each(["/%09/evil.example", "/\t/evil.example", "/%2F%2Fevil.example", "/%5Cevil.example", "https://evil.example/dashboard", "javascript:alert(1)"])(
    "lands %j on the site's /dashboard",
    async (callbackUrl) => {
      expect(await landingAfterMagicLink("someone@example.com", callbackUrl)).toBe(`${SITE}/dashboard`);
    },
  );

  it("keeps a same-site path", async () => {
    expect(await landingAfterMagicLink("someone@example.com", "/dashboard/acme?tab=members")).toBe(`${SITE}/dashboard/acme?tab=members`);
    expect(await landingAfterMagicLink("someone@example.com", `${SITE}/dashboard/acme`)).toBe(`${SITE}/dashboard/acme`);
  });
});
