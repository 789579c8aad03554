// mempool.space's public REST API: recommended fees (`/api/v1/fees/recommended`), the mempool's
// size (`/api/mempool`) and the chain tip (`/api/blocks/tip/height`, plain text).
import type { MempoolState } from "../types.ts";
import { allSettledOrThrow } from "./errors.ts";
import { asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, type UpstreamAnswer, type UpstreamClient } from "./upstream-client.ts";

/** Fees and the mempool change with each transaction; mempool.space recomputes them every few seconds. */
export const MEMPOOL_TTL_MS = { fees: 10_000, mempool: 10_000, tip: 10_000 } as const;

function okBody(answer: UpstreamAnswer): unknown {
  if (answer.status >= 400) throw new UpstreamProtocolError(`HTTP ${answer.status}: ${String(answer.body).slice(0, 200)}`);
  return answer.body;
}

export async function fetchMempool(client: UpstreamClient, now: number): Promise<MempoolState> {
  const [fees, mempool, height] = await allSettledOrThrow([
    client.get("/api/v1/fees/recommended", {}, { ttlMs: MEMPOOL_TTL_MS.fees, decode: (answer) => asObject(okBody(answer), "fees") }),
    client.get("/api/mempool", {}, { ttlMs: MEMPOOL_TTL_MS.mempool, decode: (answer) => asObject(okBody(answer), "mempool") }),
    client.get("/api/blocks/tip/height", {}, { ttlMs: MEMPOOL_TTL_MS.tip, decode: (answer) => asNumber(okBody(answer), "tip height") }),
  ]);
  return {
    time: now,
    fastestFee: asNumber(fees.fastestFee, "fastestFee"),
    halfHourFee: asNumber(fees.halfHourFee, "halfHourFee"),
    hourFee: asNumber(fees.hourFee, "hourFee"),
    economyFee: asNumber(fees.economyFee, "economyFee"),
    minimumFee: asNumber(fees.minimumFee, "minimumFee"),
    txCount: asNumber(mempool.count, "count"),
    vsize: asNumber(mempool.vsize, "vsize"),
    blockHeight: height,
  };
}
