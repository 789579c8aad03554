// Sends what the origin answered to the client: its status and headers with ours on top
// (respond.ts), and its body as it arrives, with backpressure both ways; or, when the origin could
// not be reached or ran out of time, an error after the payment was given back.
import type { Readable } from "node:stream";
import type { ServerResponse } from "node:http";
import { noteOutcome } from "./request-usage.ts";
import { DirectBody, relayEnd, type DirectOriginResponse, type OriginFailure, type OriginResponse } from "@/lib/origin/origin-call.ts";
import type { PaidCall, RequestContext } from "./request-context.ts";
import { originResponseHeaders, outcomeHeaders, upstreamFailureCode, type CallOutcome } from "./respond.ts";
import { MAX_CACHED_BODY_BYTES } from "./response-cache.ts";
import { sendError } from "./write-response.ts";

/**
 * Streams the origin's response to the client with our headers on top. With `keep`, the body is
 * also collected (up to the cache's entry limit) and handed over once fully delivered.
 */
export async function writeOriginResponse(
  ctx: RequestContext,
  response: OriginResponse | DirectOriginResponse,
  extra: Record<string, string>,
  keep?: (body: Buffer) => void,
): Promise<void> {
  const headers = originResponseHeaders(response.headers, extra, ctx.cookieScope);
  // Headers leave with the first body chunk: one write instead of two (SSE flushes its own, in serve-stream.ts).
  ctx.res.writeHead(response.statusCode, headers);
  const chunks: Buffer[] = [];
  let kept = 0;
  const collect = keep
    ? (chunk: Buffer) => {
        kept += chunk.length;
        if (kept <= MAX_CACHED_BODY_BYTES) chunks.push(chunk);
      }
    : undefined;
  try {
    if (response.body instanceof DirectBody) await response.body.pipeTo(ctx.res, collect);
    else {
      // A second 'data' listener sees the same chunks pipe() writes: the cache copy costs no extra stream.
      if (collect) response.body.on("data", collect);
      await pipeBody(response.body, ctx.res);
    }
    if (keep && kept <= MAX_CACHED_BODY_BYTES) keep(Buffer.concat(chunks));
  } catch (err) {
    if (!ctx.res.destroyed) ctx.res.destroy(err as Error);
    response.body.destroy();
  }
}

/**
 * The headers of a call's outcome (respond.ts), noted for the usage counters ("refunded" here means
 * the origin failed), with `X-Cache: MISS` when the endpoint caches and the origin answered.
 */
export function originOutcomeHeaders({ ctx, reservation }: PaidCall, outcome: CallOutcome, cacheMiss: boolean): Record<string, string> {
  noteOutcome(ctx.usage, reservation, outcome, outcome === "refunded");
  const headers = outcomeHeaders(reservation, outcome);
  if (cacheMiss) headers["x-cache"] = "MISS";
  return headers;
}

/** Answers an origin that could not be reached (502) or timed out (504); the reservation is given back first. */
export async function answerUpstreamFailure(call: PaidCall, failure: OriginFailure): Promise<void> {
  await call.reservation.refund();
  if (failure.kind === "aborted") return noteOutcome(call.ctx.usage, call.reservation, "refunded", false);
  return sendError(call.ctx, upstreamFailureCode(failure.kind), failure.message, originOutcomeHeaders(call, "refunded", false));
}

/**
 * Pipes an origin body into the response; resolves once the response finished, rejects when the
 * body fails or the client goes away first. What stream/promises' pipeline does for two streams,
 * without the AbortController and AbortError (a DOMException with a stack) it makes per call.
 */
function pipeBody(body: Readable, res: ServerResponse): Promise<void> {
  const end = relayEnd(res);
  if (!res.destroyed) {
    body.once("error", end.fail);
    body.pipe(res);
  }
  return end.done;
}
