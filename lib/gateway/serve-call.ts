// A non-stream call once paid for: a cache hit (the payment still applies, the origin is not
// called), or the origin call, whose answer decides the payment: 2xx/3xx and other 4xx keep the
// charge, 5xx/408/429 and failures give it back (spec 7.3). per_kb answers are measured and
// charged by size (serve-metered.ts); every other body goes to the client as it arrives.
import { formatKb } from "@/lib/pricing/quote.ts";
import { challengeAgain } from "./answer-refusal.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { callOrigin, callOriginDirect, DirectBody, isRetryableUpstreamStatus } from "@/lib/origin/origin-call.ts";
import { originRequest, type OriginRequestDeps } from "./origin-request.ts";
import { answerUpstreamFailure, originOutcomeHeaders, writeOriginResponse } from "./origin-response.ts";
import type { PaidCall } from "./request-context.ts";
import { cacheAgeSeconds, originResponseHeaders, type CallOutcome } from "./respond.ts";
import { cacheKey, isStorableResponse, type CachedResponse } from "./response-cache.ts";
import { sendMetered, serveMetered, type ServeMeteredDeps } from "./serve-metered.ts";

/** What a non-stream call needs: the response cache, the origin's pools, and what a metered answer or a new challenge needs. */
export type ServeCallDeps = ServeMeteredDeps & OriginRequestDeps & Pick<GatewayDeps, "cache">;

/** Serves a non-stream call: cache hit, or origin call then its answer (per_kb: metered). */
export async function serveCall(deps: ServeCallDeps, call: PaidCall): Promise<void> {
  const { ctx, tenant, endpoint, reservation } = call;
  const { clock } = deps;
  const ttl = endpoint.cacheTtlSeconds ?? 0;
  const key =
    ttl > 0 && ctx.req.method === "GET"
      ? cacheKey({
          tenantId: tenant.id,
          method: "GET",
          path: call.path,
          search: call.search,
          acceptEncoding: [ctx.req.headers["accept-encoding"]].flat().join(","),
        })
      : null;
  if (key) {
    const hit = await deps.cache.get(key, clock()).catch((err) => {
      deps.log.warn("response cache read failed", { requestId: ctx.requestId, error: err });
      return null;
    });
    if (hit) return serveCached(deps, call, hit);
  }
  // A metered body is read whole before it is charged; any other goes to the client as it arrives.
  const result = reservation.meter ? await callOrigin(originRequest(deps, call, null)) : await callOriginDirect(originRequest(deps, call, null));
  if (result.kind !== "response") return answerUpstreamFailure(call, result);
  if (isRetryableUpstreamStatus(result.statusCode)) {
    await reservation.refund();
    return writeOriginResponse(ctx, result, originOutcomeHeaders(call, "refunded", key !== null));
  }
  const outcome: CallOutcome = result.statusCode >= 400 ? "rejected" : "served";
  const keep =
    key && isStorableResponse(result.statusCode, result.headers)
      ? (body: Buffer) => storeInCache(deps, key, { statusCode: result.statusCode, headers: result.headers, body, storedAt: clock() }, ttl)
      : undefined;
  if (reservation.meter) {
    if (result.body instanceof DirectBody) throw new Error("A metered call reads its origin body through callOrigin");
    return serveMetered(deps, call, { ...result, body: result.body }, outcome, key !== null, keep);
  }
  await reservation.commit();
  return writeOriginResponse(ctx, result, originOutcomeHeaders(call, outcome, key !== null), keep);
}

/** A cache hit: the payment still applies (docs/decisions.md), the origin is not called. */
async function serveCached(deps: ServeCallDeps, call: PaidCall, hit: CachedResponse): Promise<void> {
  const { ctx, reservation } = call;
  const extra: Record<string, string> = {};
  let costSats = 0;
  if (reservation.meter) {
    const charged = await reservation.meter.charge(hit.body.length);
    if (!charged.ok) return challengeAgain(deps, call);
    costSats = charged.costSats;
    extra["x-data-size-kb"] = formatKb(hit.body.length);
    extra["x-data-cost-sats"] = String(costSats);
  } else {
    await reservation.commit();
  }
  const headers = originResponseHeaders(
    hit.headers,
    {
      ...originOutcomeHeaders(call, "served", false),
      ...extra,
      "x-cache": "HIT",
      "x-cache-age": cacheAgeSeconds(hit.storedAt, deps.clock()),
      "content-length": String(hit.body.length),
    },
    ctx.cookieScope,
  );
  if (reservation.meter) return sendMetered(deps, ctx, reservation.meter, costSats, hit.statusCode, headers, hit.body);
  ctx.res.writeHead(hit.statusCode, headers);
  ctx.res.end(hit.body);
}

function storeInCache(deps: Pick<GatewayDeps, "cache" | "log">, key: string, entry: CachedResponse, ttlSeconds: number): void {
  deps.cache.set(key, entry, ttlSeconds * 1000).catch((err) => deps.log.warn("response cache write failed", { error: err }));
}
