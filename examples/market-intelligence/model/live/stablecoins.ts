// DefiLlama's key-less stablecoins API (`https://stablecoins.llama.fi/stablecoins`): each pegged
// asset's circulating supply now and a week ago, by peg currency. The model lists the largest
// USD-pegged coins by supply.
import type { Stablecoin } from "../types.ts";
import { asArray, asObject } from "./decode.ts";
import { UpstreamProtocolError, type UpstreamClient } from "./upstream-client.ts";

/** DefiLlama refreshes supplies about hourly. */
export const STABLECOINS_TTL_MS = 600_000;
/** How many USD-pegged coins the live source lists, largest first. */
export const STABLECOINS_LISTED = 8;

export async function fetchStablecoins(client: UpstreamClient, now: number): Promise<Stablecoin[]> {
  return client.get(
    "/stablecoins",
    { includePrices: "true" },
    {
      ttlMs: STABLECOINS_TTL_MS,
      decode: (answer) => {
        if (answer.status >= 400) throw new UpstreamProtocolError(`HTTP ${answer.status}`);
        const assets = asArray(asObject(answer.body, "stablecoins answer").peggedAssets, "peggedAssets");
        const coins: Stablecoin[] = [];
        for (const value of assets) {
          const asset = asObject(value, "pegged asset");
          if (asset.pegType !== "peggedUSD") continue;
          const supply = Number((asset.circulating as Record<string, unknown> | undefined)?.peggedUSD);
          const weekAgo = Number((asset.circulatingPrevWeek as Record<string, unknown> | undefined)?.peggedUSD);
          if (!(supply > 0) || typeof asset.symbol !== "string") continue;
          coins.push({ symbol: asset.symbol, time: now, supplyUsd: supply, change7dPct: weekAgo > 0 ? ((supply - weekAgo) / weekAgo) * 100 : 0 });
        }
        return coins.sort((a, b) => b.supplyUsd - a.supplyUsd).slice(0, STABLECOINS_LISTED);
      },
    },
  );
}
