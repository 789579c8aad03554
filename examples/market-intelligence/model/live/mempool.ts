// mempool.space's public REST API: recommended fees (`/api/v1/fees/recommended`), the mempool's
// size (`/api/mempool`) and the chain tip (`/api/blocks/tip/height`, plain text); and the network
// figures of the ecosystem endpoint: the next difficulty adjustment (`/api/v1/difficulty-adjustment`),
// hashrate and difficulty (`/api/v1/mining/hashrate/3d`), Lightning totals (`/api/v1/lightning/statistics/latest`).
import type { EcosystemMetrics, MempoolState } from "../types.ts";
import { allSettledOrThrow } from "./errors.ts";
import { asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, type UpstreamAnswer, type UpstreamClient } from "./upstream-client.ts";

/** Fees and the mempool change with each transaction; mempool.space recomputes them every few seconds. */
export const MEMPOOL_TTL_MS = { fees: 10_000, mempool: 10_000, tip: 10_000, network: 300_000 } as const;

/**
 * Network figures mempool.space offers key-less, in the units of the ecosystem endpoint: hashrate in
 * EH/s, the next adjustment in percent, Lightning capacity in BTC. (Spot ETF flows have no key-less API.)
 */
export type NetworkFigures = Omit<EcosystemMetrics, "spotEtfNetFlowUsd">;

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

export async function fetchNetworkFigures(client: UpstreamClient, now: number): Promise<NetworkFigures> {
  const ttlMs = MEMPOOL_TTL_MS.network;
  const [adjustment, mining, lightning] = await allSettledOrThrow([
    client.get("/api/v1/difficulty-adjustment", {}, { ttlMs, decode: (answer) => asObject(okBody(answer), "difficulty-adjustment") }),
    client.get("/api/v1/mining/hashrate/3d", {}, { ttlMs, decode: (answer) => asObject(okBody(answer), "hashrate") }),
    client.get(
      "/api/v1/lightning/statistics/latest",
      {},
      { ttlMs, decode: (answer) => asObject(asObject(okBody(answer), "lightning statistics").latest, "latest") },
    ),
  ]);
  return {
    time: now,
    hashrateEhs: asNumber(mining.currentHashrate, "currentHashrate") / 1e18,
    difficulty: asNumber(mining.currentDifficulty, "currentDifficulty"),
    blocksToAdjustment: asNumber(adjustment.remainingBlocks, "remainingBlocks"),
    nextAdjustmentPct: asNumber(adjustment.difficultyChange, "difficultyChange"),
    lightningCapacityBtc: asNumber(lightning.total_capacity, "total_capacity") / 1e8,
    lightningNodes: asNumber(lightning.node_count, "node_count"),
    lightningChannels: asNumber(lightning.channel_count, "channel_count"),
  };
}
