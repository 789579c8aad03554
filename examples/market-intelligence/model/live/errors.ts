// The live source's one failure type and how the origin answers it. An upstream that is throttled,
// banned, down or answering garbage surfaces as `UpstreamUnavailableError(upstream, reason)`:
// `Availability` methods turn it into `available: false` with the reason, every other method throws
// it, and the origin maps it to a 503 naming the upstream (`upstreamUnavailableAnswer`).
import { errorAnswer, type JsonAnswer } from "../../../shared/origin-server.ts";

/** The upstreams the live source reads, as errors and docs name them. */
export type UpstreamName =
  "binance" | "coinbase" | "kraken" | "bitstamp" | "okx" | "binance-futures" | "deribit" | "mempool.space" | "alternative.me" | "defillama";

/** An upstream could not answer now; `retryAt` (epoch ms) is when the live source will try it again, if known. */
export class UpstreamUnavailableError extends Error {
  constructor(
    readonly upstream: UpstreamName,
    readonly reason: string,
    readonly retryAt?: number,
  ) {
    super(`${upstream} unavailable: ${reason}`);
    this.name = "UpstreamUnavailableError";
  }
}

/**
 * Whether `error` is an `UpstreamUnavailableError`, also when it crossed a second copy of this module
 * (by name). The origin imports this file alone (`model/live/errors.ts` loads no adapter, no `ws`):
 *
 *   try { answer = await endpoint.handle(...) }
 *   catch (error) { if (isUpstreamUnavailableError(error)) return upstreamUnavailableAnswer(error, source.now()); throw error; }
 */
export function isUpstreamUnavailableError(error: unknown): error is UpstreamUnavailableError {
  return (
    error instanceof UpstreamUnavailableError ||
    (error instanceof Error && error.name === "UpstreamUnavailableError" && "upstream" in error && "reason" in error)
  );
}

/**
 * The origin's answer to an `UpstreamUnavailableError`: 503 with `{error: {code: "upstream_unavailable",
 * message, upstream, reason}}` and a `Retry-After` (seconds, at least 1) when the source knows when it
 * will try again. `now` is the source's clock so the header agrees with `retryAt`.
 */
export function upstreamUnavailableAnswer(error: UpstreamUnavailableError, now: number = Date.now()): JsonAnswer {
  const answer = errorAnswer(503, "upstream_unavailable", `The live source's upstream ${error.upstream} is unavailable: ${error.reason}`, {
    upstream: error.upstream,
    reason: error.reason,
  });
  if (error.retryAt !== undefined) answer.headers = { "Retry-After": String(Math.max(1, Math.ceil((error.retryAt - now) / 1000))) };
  return answer;
}

/** `Availability` from an upstream read: its data, or `available: false` naming the upstream and why. */
export async function availability<T>(read: () => Promise<T>): Promise<{ available: true; data: T } | { available: false; reason: string }> {
  try {
    return { available: true, data: await read() };
  } catch (error) {
    if (error instanceof UpstreamUnavailableError) return { available: false, reason: error.message };
    throw error;
  }
}

/**
 * Like `Promise.all`, but settles only when every read has: a figure built from several requests
 * fails with the first failure once all are done, so no request is left running (or updating an
 * upstream's backoff) after its caller has moved on.
 */
export async function allSettledOrThrow<T extends readonly unknown[] | []>(reads: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(reads);
  const failed = settled.find((result) => result.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
