// per_kb: a response is charged by its size (docs/decisions.md, per_kb). The origin body is
// buffered (up to what the balance pays for, and perKbMaxBytes) so its size is known, charged in
// one conditional debit, then written in slices; if the client leaves mid-body, the part its
// socket never took is refunded. A body larger than the balance pays for is neither delivered nor
// charged: a fresh 402.
import type { Readable } from "node:stream";
import { formatKb, perKbCost } from "@/lib/pricing/quote.ts";
import { challengeAgain, type ChallengeDeps } from "./answer-refusal.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import type { OriginResponse } from "@/lib/origin/origin-call.ts";
import { answerUpstreamFailure, originOutcomeHeaders } from "./origin-response.ts";
import type { PaidCall, RequestContext } from "./request-context.ts";
import { originResponseHeaders, paymentHeaders, paymentNotCharged, type CallOutcome } from "./respond.ts";
import type { PerKbMeter } from "./reserve-payment.ts";
import { sendError } from "./write-response.ts";

/** A per_kb body is written in slices of this size, so a client that leaves pays for the slices it took. */
const perKbWriteSliceBytes = 64 * 1024;

/** What a metered call needs beyond a challenge: the per_kb size cap and the log. */
export type ServeMeteredDeps = ChallengeDeps & Pick<GatewayDeps, "limits" | "log">;

/**
 * Measures, charges and sends a per_kb origin response (`outcome`: served or rejected by the
 * origin; `cacheMiss`: the endpoint caches, so the answer says `X-Cache: MISS`; `keep` stores the
 * body once it was charged).
 */
export async function serveMetered(
  deps: ServeMeteredDeps,
  call: PaidCall,
  result: OriginResponse,
  outcome: CallOutcome,
  cacheMiss: boolean,
  keep?: (body: Buffer) => void,
): Promise<void> {
  const { ctx, reservation } = call;
  const { limits } = deps;
  const meter = reservation.meter!;
  const affordable = meter.affordableBytes();
  const cap = Math.min(affordable, limits.perKbMaxBytes);
  const read = await readCapped(result.body, cap, Number(result.headers["content-length"] ?? NaN));
  if (read.kind === "error") {
    return answerUpstreamFailure(call, { kind: ctx.abort.aborted ? "aborted" : "unreachable", message: "The origin broke off its response" });
  }
  if (read.kind === "too_large") {
    if (affordable > limits.perKbMaxBytes) {
      return sendError(
        ctx,
        "bad_gateway",
        `The response is larger than the ${limits.perKbMaxBytes / 1048576} MB a per_kb endpoint can meter`,
        paymentHeaders(paymentNotCharged),
      );
    }
    return challengeAgain(deps, call);
  }
  const charged = await meter.charge(read.body.length);
  if (!charged.ok) return challengeAgain(deps, call);
  const extra = originOutcomeHeaders(call, outcome, cacheMiss);
  extra["x-data-size-kb"] = formatKb(read.body.length);
  extra["x-data-cost-sats"] = String(charged.costSats);
  extra["content-length"] = String(read.body.length);
  const headers = originResponseHeaders(result.headers, extra, ctx.cookieScope);
  sendMetered(deps, ctx, meter, charged.costSats, result.statusCode, headers, read.body);
  keep?.(read.body);
}

/**
 * Sends a charged per_kb body. The charge covers what the client's socket took: the body is
 * written in slices, each counted once its write completed (handed to the kernel), and if the
 * response closes before all of it was, the part never handed over is refunded. A client that
 * reads most of the body and then resets pays for what it was sent (docs/decisions.md, per_kb).
 */
export function sendMetered(
  deps: Pick<GatewayDeps, "log">,
  ctx: RequestContext,
  meter: PerKbMeter,
  costSats: number,
  statusCode: number,
  headers: Record<string, string | string[]>,
  body: Buffer,
): void {
  const { res } = ctx;
  let handedOver = 0;
  const refundUndelivered = () => {
    const refund = costSats - perKbCost(handedOver, meter.unitCostSats);
    if (refund > 0) meter.uncharge(refund).catch((err) => deps.log.error("per_kb refund failed", { requestId: ctx.requestId, error: err }));
  };
  // The client left while the charge was being taken: nothing was handed over.
  if (res.destroyed) return refundUndelivered();
  res.once("close", () => {
    // Completions of writes that finished just before the close run first.
    if (handedOver < body.length) setImmediate(refundUndelivered);
  });
  res.writeHead(statusCode, headers);
  if (ctx.req.method === "HEAD") {
    // HEAD is charged as GET, as before: the origin produced the body and the head tells its size.
    handedOver = body.length;
    return void res.end();
  }
  let offset = 0;
  const writeSlices = () => {
    while (offset < body.length && !res.destroyed) {
      const slice = body.subarray(offset, offset + perKbWriteSliceBytes);
      offset += slice.length;
      const more = res.write(slice, (err) => {
        if (!err) handedOver += slice.length;
      });
      // Backpressure: at most one slice waits beyond the socket's buffer.
      if (!more && offset < body.length) return void res.once("drain", writeSlices);
    }
    if (!res.destroyed) res.end();
  };
  writeSlices();
}

/**
 * Reads an origin body of at most `cap` bytes. A larger one, declared or counted, is abandoned
 * unread: it is never delivered, so it is never charged.
 */
async function readCapped(
  body: Readable,
  cap: number,
  declaredLength: number,
): Promise<{ kind: "ok"; body: Buffer } | { kind: "too_large" } | { kind: "error" }> {
  if (Number.isFinite(declaredLength) && declaredLength > cap) {
    body.on("error", () => {}); // undici reports its own abort as an error
    body.destroy();
    return { kind: "too_large" };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > cap) return { kind: "too_large" }; // leaving the loop destroys the body
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { kind: "error" };
  }
  return { kind: "ok", body: Buffer.concat(chunks, size) };
}
