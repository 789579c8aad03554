// Provider sign-in for the dashboard (Auth.js v5): the configuration is lib/auth/auth-config.ts,
// built lazily from the server context so Next's bundle shares server.ts's database. "Sign in with
// Lightning" (LNURL-auth) lives beside Auth.js in lib/auth/lnurl-auth.ts and writes the same
// database Session rows.
//
// Auth.js builds every absolute URL it mails or redirects to (magic links, OAuth redirect_uri,
// redirects after sign-in) from the URL of the request it is handed. Its route handlers would be
// handed Next's URL and its server actions one built from Host / X-Forwarded-Host, both of which a
// caller chooses; so every request reaches Auth.js rebuilt on SITE_URL instead.
import { Auth, raw, skipCSRFCheck } from "@auth/core";
import NextAuth, { type NextAuthConfig } from "next-auth";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { createLogger } from "@/lib/logging/logger.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { AUTH_BASE_PATH, buildAuthConfig, siteOrigin } from "./auth-config.ts";

export { emailSignInEnabled } from "./auth-config.ts";

async function authConfigFromContext(): Promise<{ authConfig: NextAuthConfig; origin: string }> {
  const { config, db } = await getServerContext();
  const log = createLogger(config.logLevel, { part: "auth" });
  return { authConfig: buildAuthConfig({ config, prisma: db.prisma, log }), origin: siteOrigin(config) };
}

export const { handlers, auth } = NextAuth(async () => (await authConfigFromContext()).authConfig);

/**
 * The same request addressed to the site's own origin. A plain Request: NextRequest would turn a
 * loopback host such as 127.0.0.1 into "localhost" again.
 */
function atSiteOrigin(req: Request, origin: string): Request {
  const url = new URL(req.url);
  const init = { method: req.method, headers: req.headers, body: req.body, signal: req.signal, duplex: "half" } as RequestInit;
  return new Request(`${origin}${url.pathname}${url.search}`, init);
}

async function onSite(req: Request): Promise<never> {
  const { config } = await getServerContext();
  // next-auth's handler type says NextRequest; it only reads what a Request has.
  return atSiteOrigin(req, siteOrigin(config)) as never;
}

/** Auth.js's route handlers (app/api/auth/[...nextauth]), on SITE_URL whatever host was asked for. */
export const authRouteHandlers = {
  GET: async (req: Request) => handlers.GET(await onSite(req)),
  POST: async (req: Request) => handlers.POST(await onSite(req)),
};

/**
 * Runs an Auth.js action from a server action, as next-auth's own signIn/signOut do (no CSRF token:
 * Next checks a server action's Origin itself) but on SITE_URL, and copies Auth.js's cookies into
 * the response. Returns where Auth.js wants the browser to go.
 */
async function runAuthAction(action: string, form: Record<string, string>): Promise<string> {
  const [{ authConfig, origin }, incoming] = await Promise.all([authConfigFromContext(), headers()]);
  const url = `${origin}${AUTH_BASE_PATH}/${action}`;
  const req = new Request(url, {
    method: "POST",
    // Only the cookies: nothing else of the caller's request is Auth.js's business.
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: incoming.get("cookie") ?? "" },
    body: new URLSearchParams(form),
  });
  const result = await Auth(req, { ...authConfig, raw, skipCSRFCheck });
  const jar = await cookies();
  for (const c of result.cookies ?? []) jar.set(c.name, c.value, c.options as Parameters<typeof jar.set>[2]);
  return result.redirect ?? url;
}

export type SignInOptions = {
  /** Same-site path to return to after sign-in. */
  redirectTo: string;
  /** false: return the next URL instead of redirecting there. */
  redirect?: boolean;
  /** The address a magic link goes to (e-mail sign-in). */
  email?: string;
};

/** Starts a sign-in with a provider from a server action (the /signin forms). */
export async function signIn(provider: "nodemailer" | "github", { redirectTo, redirect: follow = true, email }: SignInOptions): Promise<string> {
  const next = await runAuthAction(`signin/${provider}`, { callbackUrl: redirectTo, ...(email === undefined ? {} : { email }) });
  if (follow) redirect(next);
  return next;
}

/** Ends the Auth.js session from a server action and goes to `redirectTo`. */
export async function signOut({ redirectTo }: { redirectTo: string }): Promise<never> {
  redirect(await runAuthAction("signout", { callbackUrl: redirectTo }));
}

/** The signed-in user's id for the current request (server side), or null without a session. */
export async function getSignedInUserId(): Promise<string | null> {
  const session = await auth();
  return session?.user?.id ?? null;
}
