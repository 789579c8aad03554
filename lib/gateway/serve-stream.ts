// A streaming endpoint once paid for (spec 4.7): the origin must send its headers within
// streamHeadersTimeoutMs, then its event stream goes to the client unbuffered (EventStreamRelay:
// keep-alives, idle and lifetime limits, a time_pass window's payment_required frame). A stream
// that delivered no content gives its deduction back afterwards. Streams that cost nothing per
// connection are capped per holder (stream-slots.ts).
import type { GatewayDeps } from "./gateway-deps.ts";
import { EventStreamRelay } from "./event-stream-relay.ts";
import { callOrigin, isRetryableUpstreamStatus } from "@/lib/origin/origin-call.ts";
import { originRequest, type OriginRequestDeps } from "./origin-request.ts";
import { answerUpstreamFailure, originOutcomeHeaders, writeOriginResponse } from "./origin-response.ts";
import { rateLimitClient } from "@/lib/client-address.ts";
import type { PaidCall } from "./request-context.ts";
import { noteOutcome } from "./request-usage.ts";
import { originResponseHeaders, paymentHeaders, paymentNotCharged } from "./respond.ts";
import { sendError } from "./write-response.ts";

/** What a stream needs: the origin's pools, the stream caps and the ticker that times every stream. */
export type ServeStreamDeps = OriginRequestDeps & Pick<GatewayDeps, "clock" | "log" | "ticker" | "sessionStreams" | "freeStreams">;

/**
 * Serves a streaming endpoint for at most `maxDurationMs`. A time_pass session holds at most
 * GATEWAY_STREAMS_PER_SESSION streams at once, a client IP at most GATEWAY_FREE_STREAMS_PER_IP on
 * one tenant's free endpoints; other models pay per connection.
 */
export async function serveStream(deps: ServeStreamDeps, call: PaidCall, maxDurationMs: number): Promise<void> {
  const { ctx, tenant, reservation } = call;
  const session = reservation.windowEndsAt !== null && reservation.sessionId !== undefined;
  if (!session && reservation.kind !== "free") return streamFromOrigin(deps, call, maxDurationMs);
  const slots = session ? deps.sessionStreams : deps.freeStreams;
  const slot = await slots.acquire(session ? `session:${reservation.sessionId}` : `free:${tenant.id}:${rateLimitClient(ctx.clientIp)}`);
  if (!slot) {
    await reservation.refund();
    const holder = session ? "This session already holds" : "This address already holds";
    const scope = session ? "one session" : "one address on this API's free endpoints";
    return sendError(ctx, "rate_limited", `${holder} ${slots.limit} streams, the most ${scope} may hold at once; close one and retry`, {
      "retry-after": "5",
      ...(session ? paymentHeaders(paymentNotCharged) : {}),
    });
  }
  try {
    return await streamFromOrigin(deps, call, maxDurationMs);
  } finally {
    slot.release();
  }
}

/** Origin headers within streamHeadersTimeoutMs, then the event stream; a non-SSE answer is sent as an ordinary response. */
async function streamFromOrigin(deps: ServeStreamDeps, call: PaidCall, maxDurationMs: number): Promise<void> {
  const { ctx, endpoint, reservation } = call;
  const { limits } = deps;
  const result = await callOrigin(originRequest(deps, call, limits.streamHeadersTimeoutMs));
  if (result.kind !== "response") return answerUpstreamFailure(call, result);
  if (isRetryableUpstreamStatus(result.statusCode)) {
    await reservation.refund();
    return writeOriginResponse(ctx, result, originOutcomeHeaders(call, "refunded", false));
  }
  const contentType = String(result.headers["content-type"] ?? "").toLowerCase();
  if (result.statusCode >= 300 || !contentType.startsWith("text/event-stream")) {
    await reservation.commit();
    return writeOriginResponse(ctx, result, originOutcomeHeaders(call, result.statusCode >= 400 ? "rejected" : "served", false));
  }
  const headers = originResponseHeaders(result.headers, { ...originOutcomeHeaders(call, "served", false), "x-accel-buffering": "no" }, ctx.cookieScope);
  headers["cache-control"] ??= "no-cache";
  delete headers["content-length"];
  ctx.res.writeHead(result.statusCode, headers);
  ctx.res.flushHeaders();
  const streamed = await deps.ticker.run(
    new EventStreamRelay({
      res: ctx.res,
      body: result.body,
      clock: deps.clock,
      keepAliveMs: limits.streamKeepAliveMs,
      idleTimeoutMs: (endpoint.idleTimeoutSeconds ?? limits.streamIdleSeconds) * 1000,
      maxDurationMs,
      windowEndsAt: reservation.windowEndsAt,
      closeGraceMs: limits.streamCloseGraceMs,
      // A per_request proof is consumed by the first content it buys; a stream with none releases it.
      onFirstContent: () => void reservation.commit().catch((err) => deps.log.error("stream commit failed", { requestId: ctx.requestId, error: err })),
    }),
  );
  // A stream that delivered no content gives its deduction back afterwards (spec 4.7 rule 6).
  if (streamed.contentSeen) await commitServedStream(deps, ctx.requestId, reservation);
  else {
    await reservation.refund();
    noteOutcome(ctx.usage, reservation, "refunded", false);
  }
}

/** Tries after the first attempt at the stream's end: 0.5, 1, 2 and 4 s apart (a PostgreSQL restart). */
const END_COMMIT_RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000];

/**
 * A stream that delivered content is paid: its commit (consuming a proof) was started at the first
 * content without waiting; if it failed (PostgreSQL restarting), a proof would stay claimed and be
 * redeemable again once its lease ran out. At the end it is tried again, joining an attempt still
 * running and retrying a failed one, a few times over about 8 s; the last failure is logged with
 * what an operator needs to reconcile it.
 */
async function commitServedStream(deps: Pick<GatewayDeps, "log">, requestId: string, reservation: PaidCall["reservation"]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await reservation.commit();
      return;
    } catch (err) {
      const delay = END_COMMIT_RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        deps.log.error("a served stream's payment could not be committed; its claim lapses at the lease's end", {
          requestId,
          kind: reservation.kind,
          error: err,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
