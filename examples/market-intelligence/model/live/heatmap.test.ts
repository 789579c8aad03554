// The heatmap estimate on a flat and on a falling market: where each leverage tier's liquidations
// land, that both sides carry the whole open interest, and that levels already traded through are gone.
import { describe, expect, it } from "vitest";
import type { Candle } from "../types.ts";
import { estimateHeatmap, LEVERAGE_TIERS, MAINTENANCE_MARGIN } from "./heatmap.ts";

const flat = (price: number, hours: number, range = 0): Candle[] =>
  Array.from({ length: hours }, (_, i) => ({ time: i * 3_600_000, open: price, high: price + range, low: price - range, close: price, volume: 1 }));

function bucketOf(heatmap: ReturnType<typeof estimateHeatmap>, price: number) {
  return heatmap.buckets.find((bucket) => bucket.priceLow <= price && price < bucket.priceHigh)!;
}

describe("liquidation heatmap estimate", () => {
  it("puts each tier's longs below and shorts above the entry, the whole open interest on each side", () => {
    const heatmap = estimateHeatmap({ openInterestUsd: 1_000_000, referencePrice: 60_000, hourly: flat(60_000, 10), time: 1 });
    expect(heatmap.bucketSizeUsd).toBe(150);
    const longs = heatmap.buckets.reduce((sum, bucket) => sum + bucket.longLiquidationUsd, 0);
    const shorts = heatmap.buckets.reduce((sum, bucket) => sum + bucket.shortLiquidationUsd, 0);
    expect(longs).toBeCloseTo(1_000_000, 6);
    expect(shorts).toBeCloseTo(1_000_000, 6);
    for (const tier of LEVERAGE_TIERS) {
      expect(bucketOf(heatmap, 60_000 * (1 - 1 / tier.leverage + MAINTENANCE_MARGIN)).longLiquidationUsd).toBeCloseTo(1_000_000 * tier.share, 6);
      expect(bucketOf(heatmap, 60_000 * (1 + 1 / tier.leverage - MAINTENANCE_MARGIN)).shortLiquidationUsd).toBeCloseTo(1_000_000 * tier.share, 6);
    }
  });

  it("drops long liquidation levels the market has already traded through", () => {
    // Ten hours at 60 000, then a wick down to 58 000 (through the 50× and 100× long levels), back at 60 000.
    const hourly = [...flat(60_000, 10), { time: 10 * 3_600_000, open: 60_000, high: 60_000, low: 58_000, close: 60_000, volume: 0 }];
    const heatmap = estimateHeatmap({ openInterestUsd: 1_000_000, referencePrice: 60_000, hourly, time: 1 });
    const longs = heatmap.buckets.reduce((sum, bucket) => sum + bucket.longLiquidationUsd, 0);
    expect(longs).toBeCloseTo(1_000_000 * (1 - 0.15 - 0.1), 6);
    expect(bucketOf(heatmap, 60_000 * (1 - 1 / 100 + MAINTENANCE_MARGIN)).longLiquidationUsd).toBe(0);
  });
});
