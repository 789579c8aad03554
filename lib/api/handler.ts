// The one wrapper for platform API route handlers (../shared/STYLE.md rule 1): it authenticates, scopes to
// the workspace, parses the JSON body with the route's schema and turns every failure into the one
// error body `{error: {code, message, details?}}`. Handlers only parse, call one lib function and
// shape the response.
import { z } from "zod";
import { authenticateApiKey } from "@/lib/api-keys/authenticate-api-key.ts";
import { safeEqual } from "@/lib/crypto/secret-box.ts";
import { AppError, toErrorResponse, validationError } from "@/lib/errors/index.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { WEB_REQUEST_ID_HEADER } from "@/lib/logging/request-id.ts";
import { readBoundedBody } from "./read-bounded-body.ts";
import { getServerContext, type ServerContext } from "@/lib/server-context.ts";

/** Dynamic route segments as Next 16 passes them (a promise). */
export type RouteParams = Record<string, string>;
export type RouteContext = { params: Promise<RouteParams> };

/** What Next calls: exported as GET/POST/... from a route.ts file. */
export type RouteHandler = (req: Request, route: RouteContext) => Promise<Response>;

/** Largest JSON body the platform API reads. Endpoint examples are the biggest legitimate bodies. */
export const MAX_JSON_BODY_BYTES = 1_000_000;

type BodyOf<S> = S extends z.ZodType ? z.output<S> : undefined;

export type BaseOptions<S extends z.ZodType | undefined> = {
  /** Schema of the JSON body; without it the body is not read. */
  body?: S;
};

export type RouteArgs<S extends z.ZodType | undefined> = {
  req: Request;
  params: RouteParams;
  ctx: ServerContext;
  body: BodyOf<S>;
};

/** Who is calling a workspace route. */
export type Principal = { kind: "api_key"; apiKeyId: string } | { kind: "user"; userId: string; role: "owner" | "member" };

export type WorkspaceOptions<S extends z.ZodType | undefined> = BaseOptions<S> & {
  /**
   * Minimum membership role for signed-in users. Workspace API keys act for the workspace and pass
   * every role check (whoever holds one was given it by an owner).
   */
  role?: "owner" | "member";
};

export type WorkspaceArgs<S extends z.ZodType | undefined> = RouteArgs<S> & { tenantId: string; principal: Principal };

/** Auth.js session cookie names (plain and `__Secure-` on https). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?authjs\.session-token=/;

/** Splits "unrecognized keys" issues into one issue per key, so the 422 names each unknown field. */
function issuesNamingFields(error: z.ZodError): z.ZodError {
  return new z.ZodError(
    error.issues.flatMap((issue): z.core.$ZodIssue[] =>
      issue.code === "unrecognized_keys" ? issue.keys.map((key) => ({ ...issue, path: [...issue.path, key], message: "unknown field" })) : [issue],
    ),
  );
}

/**
 * Reads and validates the JSON body: 413 past MAX_JSON_BODY_BYTES (counted as the bytes arrive),
 * 400 invalid_json when unreadable, 422 naming each bad field.
 */
async function parseJsonBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.output<S>> {
  const text = (await readBoundedBody(req, MAX_JSON_BODY_BYTES)).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError("invalid_json", text.trim() === "" ? "Request body is empty; send a JSON object" : "Request body is not valid JSON");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw validationError(issuesNamingFields(parsed.error));
  return parsed.data;
}

/** Errors only (written whatever LOG_LEVEL says): a handler's unexpected failure, never shown to the client. */
const log = createLogger("error").child({ part: "web" });

function errorResponse(err: unknown, req: Request): Response {
  const { status, body } = toErrorResponse(err, (error) =>
    log.error("platform API request failed", { requestId: req.headers.get(WEB_REQUEST_ID_HEADER), method: req.method, path: new URL(req.url).pathname, error }),
  );
  const headers: Record<string, string> = { "cache-control": "no-store" };
  // A 429 also says when to come back where HTTP clients look for it (details say it to programs).
  const retryAfter = (body.error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (status === 429 && typeof retryAfter === "number") headers["retry-after"] = String(retryAfter);
  return Response.json(body, { status, headers });
}

/** Runs a handler with parsed params/body and the one error mapping; responses are never cached. */
function run<S extends z.ZodType | undefined, A>(
  opts: BaseOptions<S>,
  authorize: (req: Request, params: RouteParams, ctx: ServerContext) => Promise<A>,
  handler: (args: RouteArgs<S> & A) => Promise<Response>,
): RouteHandler {
  return async (req, route) => {
    try {
      const [params, ctx] = await Promise.all([route.params, getServerContext()]);
      const auth = await authorize(req, params, ctx);
      const body = (opts.body ? await parseJsonBody(req, opts.body) : undefined) as BodyOf<S>;
      const res = await handler({ req, params, ctx, body, ...auth });
      if (!res.headers.has("cache-control")) res.headers.set("cache-control", "no-store");
      return res;
    } catch (err) {
      return errorResponse(err, req);
    }
  };
}

function bearerToken(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
  return match ? match[1] : null;
}

/** Public routes: body parsing and error mapping only. */
export function withErrors<S extends z.ZodType | undefined = undefined>(
  handler: (args: RouteArgs<S>) => Promise<Response>,
  opts: BaseOptions<S> = {},
): RouteHandler {
  return run(opts, async () => ({}), handler);
}

/**
 * Public routes with a check that runs before the body is read (a per-client rate limit, which
 * throws its own AppError): otherwise body parsing and error mapping as withErrors.
 */
export function withPublicLimit<S extends z.ZodType | undefined = undefined>(
  limit: (req: Request, ctx: ServerContext) => Promise<void>,
  handler: (args: RouteArgs<S>) => Promise<Response>,
  opts: BaseOptions<S> = {},
): RouteHandler {
  return run(
    opts,
    async (req, _params, ctx) => {
      await limit(req, ctx);
      return {};
    },
    handler,
  );
}

/**
 * Routes for any signed-in user (no workspace): 401 without an Auth.js session, 403 for cross-site
 * writes. next-auth is imported lazily, as in sessionPrincipal, so nothing else loads it.
 */
export function withSignedInUser<S extends z.ZodType | undefined = undefined>(
  handler: (args: RouteArgs<S> & { userId: string }) => Promise<Response>,
  opts: BaseOptions<S> = {},
): RouteHandler {
  return run(
    opts,
    async (req, _params, ctx) => {
      const { getSignedInUserId } = await import("@/lib/auth/next-auth.ts");
      const userId = await getSignedInUserId();
      if (!userId) throw new AppError("unauthorized", "Sign in first: this needs a signed-in session");
      assertSameSiteWrite(req, ctx);
      return { userId };
    },
    handler,
  );
}

/**
 * Platform operator routes: `Authorization: Bearer $HUB_ADMIN_TOKEN`, compared in constant time.
 * Without a configured admin token the routes do not exist (404).
 */
export function withAdmin<S extends z.ZodType | undefined = undefined>(
  handler: (args: RouteArgs<S>) => Promise<Response>,
  opts: BaseOptions<S> = {},
): RouteHandler {
  return run(
    opts,
    async (req, _params, ctx) => {
      const expected = ctx.config.hubAdminToken;
      if (!expected) throw new AppError("not_found", "Not found");
      const token = bearerToken(req);
      if (!token || !safeEqual(token, expected))
        throw new AppError("unauthorized", "A valid admin token is required (Authorization: Bearer <HUB_ADMIN_TOKEN>)");
      return {};
    },
    handler,
  );
}

/**
 * Signed-in user through the Auth.js session cookie. next-auth is imported only here, lazily, so
 * API-key requests (and tests) never load it.
 */
async function sessionPrincipal(req: Request, tenantId: string, ctx: ServerContext): Promise<Principal> {
  const { getSignedInUserId } = await import("@/lib/auth/next-auth.ts");
  const userId = await getSignedInUserId();
  if (!userId) throw new AppError("unauthorized", "Your session has expired; sign in again");
  const membership = await ctx.db.prisma.membership.findUnique({
    where: { tenantId_userId: { tenantId, userId } },
    select: { role: true },
  });
  if (!membership) throw new AppError("not_found", "Workspace not found");
  assertSameSiteWrite(req, ctx);
  return { kind: "user", userId, role: membership.role };
}

/**
 * Cookies ride along on cross-site requests; a browser's Origin header tells us where a write came
 * from, and one from anywhere but the configured site (SITE_URL) is refused (403). Host and
 * X-Forwarded-Host are the caller's to choose, so they never decide what "same site" is.
 */
function assertSameSiteWrite(req: Request, ctx: ServerContext): void {
  const origin = req.headers.get("origin");
  if (["GET", "HEAD"].includes(req.method) || !origin) return;
  const site = new URL(ctx.config.siteUrl).origin;
  if (origin === site) return;
  throw new AppError("forbidden", `Cross-site requests are not allowed (this site is ${site})`);
}

/**
 * 403 with `rule` unless the caller is an owner: a signed-in owner, or a workspace API key (keys
 * act for the workspace and are created by owners). For routes where only some changes are
 * owner-only.
 */
export function assertOwner(principal: Principal, rule: string): void {
  if (principal.kind === "user" && principal.role !== "owner") throw new AppError("forbidden", rule);
}

/**
 * Routes under /api/tenants/:tenantId. Accepts a workspace API key (`Authorization: Bearer`) or a
 * signed-in member's session. A key of another workspace, or a non-member, gets 404 so that
 * workspace ids cannot be probed.
 */
export function withWorkspace<S extends z.ZodType | undefined = undefined>(
  handler: (args: WorkspaceArgs<S>) => Promise<Response>,
  opts: WorkspaceOptions<S> = {},
): RouteHandler {
  return run(
    opts,
    async (req, params, ctx): Promise<{ tenantId: string; principal: Principal }> => {
      const tenantId = params.tenantId;
      if (!tenantId) throw new AppError("internal", "withWorkspace used on a route without :tenantId");
      const token = bearerToken(req);
      let principal: Principal;
      if (token) {
        const key = await authenticateApiKey({ prisma: ctx.db.prisma, key: token });
        if (!key) throw new AppError("unauthorized", "Invalid or revoked API key");
        if (key.tenantId !== tenantId) throw new AppError("not_found", "Workspace not found");
        principal = { kind: "api_key", apiKeyId: key.apiKeyId };
      } else if (SESSION_COOKIE.test(req.headers.get("cookie") ?? "")) {
        principal = await sessionPrincipal(req, tenantId, ctx);
      } else {
        throw new AppError("unauthorized", "Authentication required: send Authorization: Bearer <workspace API key> or sign in");
      }
      if (opts.role === "owner") assertOwner(principal, "Only workspace owners can do this");
      return { tenantId, principal };
    },
    handler,
  );
}
