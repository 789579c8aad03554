// The wrapper of the public directory API routes (spec 4.3, 5.2): no authentication, the directory
// rate limits (lib/directory/rate-limit.ts) before anything else, the one error model of withErrors,
// and CORS open to every origin so browser agents and other directories can read it.
import { checkDirectoryRateLimit, requestClientIp, type DirectoryRateLimits } from "@/lib/directory/rate-limit.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { withErrors, type RouteArgs, type RouteHandler } from "./handler.ts";

/** Response headers every directory API answer carries. */
const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining",
};

/**
 * `route` is the path template the per-path limit counts under (e.g. `/directory/:slug`).
 * `limits` exists for tests; production uses the spec's numbers.
 */
export function withDirectoryApi(
  route: string,
  handler: (args: RouteArgs<undefined>) => Promise<Response>,
  options: { limits?: DirectoryRateLimits } = {},
): RouteHandler {
  const inner = withErrors(handler);
  return async (req, routeContext) => {
    let res: Response | null = null;
    let limitHeaders: Record<string, string> = {};
    try {
      const ctx = await getServerContext();
      const decision = await checkDirectoryRateLimit({ store: ctx.store, ip: requestClientIp(req.headers), route, limits: options.limits });
      if (!decision.ok) {
        res = Response.json(
          {
            error: {
              code: "rate_limited",
              message: `Too many requests (${decision.limit} per minute ${decision.scope === "path" ? `on ${route}` : "on the directory API"}); retry in ${decision.retryAfterSeconds} s`,
            },
          },
          { status: 429, headers: { "retry-after": String(decision.retryAfterSeconds), "cache-control": "no-store" } },
        );
      } else {
        limitHeaders = { "x-ratelimit-limit": String(decision.limit), "x-ratelimit-remaining": String(Math.max(0, decision.remaining)) };
      }
    } catch {
      // The store or the context is unavailable: serve without counting; `inner` reports a
      // context failure through the one error model.
    }
    res ??= await inner(req, routeContext);
    for (const [name, value] of Object.entries({ ...corsHeaders, ...limitHeaders })) res.headers.set(name, value);
    return res;
  };
}
