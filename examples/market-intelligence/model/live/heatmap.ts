// The live liquidation heatmap is an estimate: Binance publishes no positions by leverage. Method
// (docs/market-live-source.md): open interest (USD) is taken as opened over the last
// `HEATMAP_ENTRY_HOURS` hourly candles, in proportion to each hour's volume, at its typical price
// (high + low + close) / 3; both sides hold the whole open interest (every contract has a long and a
// short). Each entry is split over leverage tiers; a long at entry e with leverage L is liquidated near
// e × (1 − 1/L + mm), a short near e × (1 + 1/L − mm) (mm = maintenance margin). Positions whose
// liquidation price the market has already traded through since their hour are dropped (they are gone).
// The result is bucketed around the reference (mark) price.
import { PERP_SYMBOL, type Candle, type LiquidationHeatmap } from "../types.ts";

export const HEATMAP_ENTRY_HOURS = 72;
/** Assumed share of open interest per leverage: a documented guess, not an upstream figure. */
export const LEVERAGE_TIERS: ReadonlyArray<{ leverage: number; share: number }> = [
  { leverage: 5, share: 0.15 },
  { leverage: 10, share: 0.3 },
  { leverage: 25, share: 0.3 },
  { leverage: 50, share: 0.15 },
  { leverage: 100, share: 0.1 },
];
export const MAINTENANCE_MARGIN = 0.004;
/** Buckets are 0.25 % of the reference price (rounded to $10) and span ±20 % around it. */
const BUCKET_FRACTION = 0.0025;
const RANGE_FRACTION = 0.2;

export function estimateHeatmap(input: { openInterestUsd: number; referencePrice: number; hourly: Candle[]; time: number }): LiquidationHeatmap {
  const { openInterestUsd, referencePrice, time } = input;
  const hourly = input.hourly.slice(-HEATMAP_ENTRY_HOURS);
  const bucketSizeUsd = Math.max(10, Math.round((referencePrice * BUCKET_FRACTION) / 10) * 10);
  const low = Math.floor((referencePrice * (1 - RANGE_FRACTION)) / bucketSizeUsd) * bucketSizeUsd;
  const count = Math.ceil((referencePrice * (1 + RANGE_FRACTION) - low) / bucketSizeUsd);
  const buckets = Array.from({ length: count }, (_, index) => ({
    priceLow: low + index * bucketSizeUsd,
    priceHigh: low + (index + 1) * bucketSizeUsd,
    longLiquidationUsd: 0,
    shortLiquidationUsd: 0,
  }));
  const totalVolume = hourly.reduce((sum, candle) => sum + candle.volume, 0);
  // Walk newest to oldest, keeping the lowest low and highest high traded since each hour.
  let lowestSince = Infinity;
  let highestSince = -Infinity;
  for (let index = hourly.length - 1; index >= 0; index -= 1) {
    const candle = hourly[index];
    const weight = totalVolume > 0 ? candle.volume / totalVolume : 1 / hourly.length;
    const entry = (candle.high + candle.low + candle.close) / 3;
    for (const tier of LEVERAGE_TIERS) {
      const notional = openInterestUsd * weight * tier.share;
      const longPrice = entry * (1 - 1 / tier.leverage + MAINTENANCE_MARGIN);
      const shortPrice = entry * (1 + 1 / tier.leverage - MAINTENANCE_MARGIN);
      const longBucket = buckets[Math.floor((longPrice - low) / bucketSizeUsd)];
      const shortBucket = buckets[Math.floor((shortPrice - low) / bucketSizeUsd)];
      if (longBucket && lowestSince > longPrice) longBucket.longLiquidationUsd += notional;
      if (shortBucket && highestSince < shortPrice) shortBucket.shortLiquidationUsd += notional;
    }
    lowestSince = Math.min(lowestSince, candle.low);
    highestSince = Math.max(highestSince, candle.high);
  }
  return { symbol: PERP_SYMBOL, time, referencePrice, bucketSizeUsd, buckets };
}
