// The technical endpoints on a fixed test market: the readings match indicators.ts, the trend and
// entry-timing rules read rises, falls, supports and resistances as documented, the volume profile
// finds its point of control and value area, and short or bad input answers 422 / fails validation.
import { describe, expect, it } from "vitest";
import type { EndpointRequest } from "../endpoint.ts";
import { entryTimingEndpoint, indicatorsEndpoint, technicalEndpoints, trendEndpoint, volumeProfileEndpoint } from "../endpoints/technical.ts";
import type { Candle, Timeframe } from "../model/types.ts";
import { indicatorSeries } from "./indicators.ts";
import { technicalSection, volumeProfile } from "./technical.ts";
import { candlesFromCloses, linearCloses, TestMarketSource } from "./test-source.ts";

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const request: EndpointRequest = { headers: {}, probe: false };

function marketWith(series: Partial<Record<Timeframe, number[]>>, options: { volume?: (index: number) => number; range?: number } = {}) {
  const candles = Object.fromEntries(
    Object.entries(series).map(([timeframe, closes]) => [timeframe, candlesFromCloses(closes!, { timeframe: timeframe as Timeframe, end: NOW, ...options })]),
  );
  return new TestMarketSource({ now: NOW, candles: { binance: candles, kraken: candles } });
}

async function call<T>(
  endpoint: {
    params: { parse(input: unknown): unknown };
    handle(deps: never, params: never, request: EndpointRequest): Promise<{ status?: number; body: unknown }>;
  },
  source: TestMarketSource,
  query: Record<string, string> = {},
) {
  const answer = await endpoint.handle({ source } as never, endpoint.params.parse(query) as never, request);
  return { status: answer.status ?? 200, body: answer.body as T };
}

describe("/v1/technical/*", () => {
  it("describes every endpoint at its spec path and price, with exchange as its only parameter", () => {
    expect(technicalEndpoints.map((e) => [e.path, e.price, e.model])).toEqual([
      ["/v1/technical/indicators", 3, "per_request"],
      ["/v1/technical/trend", 3, "per_request"],
      ["/v1/technical/entry-timing", 3, "per_request"],
      ["/v1/technical/volume-profile", 3, "per_request"],
    ]);
    for (const endpoint of technicalEndpoints) {
      expect(endpoint.params.safeParse({ exchange: "nyse" }).success).toBe(false);
      expect(endpoint.params.safeParse({ timeframe: "1h" }).success).toBe(false);
      expect(endpoint.params.parse({})).toEqual({ exchange: "binance" });
      expect(endpoint.params.safeParse(endpoint.example).success).toBe(true);
    }
  });

  it("answers the newest indicator readings of the venue's hourly candles, as indicatorSeries computes them", async () => {
    const closes = Array.from({ length: 300 }, (_, t) => 90_000 + 2_000 * Math.sin(t / 9) + 10 * t);
    const source = marketWith({ "1h": closes });
    const { status, body } = await call<{ exchange: string; candles: number; indicators: Record<string, unknown>; meta: { source: string } }>(
      indicatorsEndpoint,
      source,
      { exchange: "kraken" },
    );
    expect(status).toBe(200);
    expect(body.exchange).toBe("kraken");
    expect(body.candles).toBe(250);
    expect(body.meta.source).toBe("simulated");
    const expected = indicatorSeries(candlesFromCloses(closes, { end: NOW }).slice(-250)).at(-1)!;
    expect(body.indicators.rsi14).toBeCloseTo(expected.rsi14!, 2);
    expect(body.indicators.ema200).toBeCloseTo(expected.ema200!, 2);
    expect((body.indicators.macd as { histogram: number }).histogram).toBeCloseTo(expected.macd!.histogram, 2);
    expect(indicatorsEndpoint.response.safeParse(body).success).toBe(true);
  });

  it("answers 422 insufficient_candles, naming the count, below 14 candles", async () => {
    const source = marketWith({ "1h": linearCloses(10, 100, 110), "4h": linearCloses(5, 100, 110), "1d": linearCloses(3, 100, 110) });
    for (const endpoint of technicalEndpoints) {
      const { status, body } = await call<{ error: { code: string; details: { candles: number; minimum: number } } }>(endpoint, source);
      expect(status, endpoint.path).toBe(422);
      expect(body.error.code).toBe("insufficient_candles");
      expect(body.error.details.minimum).toBe(14);
    }
  });

  it("reads a steady rise as up on every timeframe, a steady fall as down, a flat market as sideways", async () => {
    const rise = marketWith({ "1h": linearCloses(260, 80_000, 90_000), "4h": linearCloses(260, 60_000, 90_000), "1d": linearCloses(260, 30_000, 90_000) });
    const up = await call<{ direction: string; strength: string; timeframes: Array<{ direction: string }> }>(trendEndpoint, rise);
    expect(up.body.direction).toBe("up");
    expect(up.body.strength).toBe("strong");
    expect(up.body.timeframes.map((t) => t.direction)).toEqual(["up", "up", "up"]);
    expect(trendEndpoint.response.safeParse(up.body).success).toBe(true);

    const fall = marketWith({ "1h": linearCloses(260, 90_000, 80_000), "4h": linearCloses(260, 90_000, 60_000) });
    const down = await call<{ direction: string; timeframes: Array<{ timeframe: string }> }>(trendEndpoint, fall);
    expect(down.body.direction).toBe("down");
    // No daily candles: that timeframe is left out, the others still answer.
    expect(down.body.timeframes.map((t) => t.timeframe)).toEqual(["1h", "4h"]);

    const flat = marketWith({ "1h": Array.from({ length: 260 }, () => 85_000) });
    const sideways = await call<{ direction: string; strength: string }>(trendEndpoint, flat);
    expect(sideways.body).toMatchObject({ direction: "sideways", strength: "weak" });
  });

  it("scores a sell-off into support on heavy buying as a long setup, and a rally into resistance as stretched", async () => {
    // 200 hours around 85k, then a slide to just above the range's low, the last candle a high-volume green one.
    const base = Array.from({ length: 200 }, (_, t) => 85_000 + 1_500 * Math.sin(t / 6));
    const slide = [...base, ...linearCloses(12, 85_000, 83_700), 83_760];
    const oversold = marketWith({ "1h": slide }, { volume: (index) => (index === slide.length - 1 ? 400 : 100) });
    const long = await call<{ entry_timing: { score: number; suggestion: string; components: Array<{ name: string; signal: number }> } }>(
      entryTimingEndpoint,
      oversold,
    );
    expect(long.body.entry_timing.suggestion).toBe("long_setup");
    expect(long.body.entry_timing.score).toBeGreaterThanOrEqual(65);
    expect(long.body.entry_timing.components.find((c) => c.name === "volume")!.signal).toBe(1);
    expect(entryTimingEndpoint.response.safeParse(long.body).success).toBe(true);

    const rally = [...base, ...linearCloses(12, 85_000, 86_400)];
    const stretched = await call<{ entry_timing: { score: number; suggestion: string; levels: { distance_to_resistance_atr: number } } }>(
      entryTimingEndpoint,
      marketWith({ "1h": rally }),
    );
    expect(stretched.body.entry_timing.suggestion).toBe("short_setup");
    expect(stretched.body.entry_timing.score).toBeLessThanOrEqual(35);
  });

  it("finds the point of control and grows the value area to 70 % of the volume", async () => {
    const at = (close: number, volume: number, index: number): Candle => ({ time: index * 3_600_000, open: close, high: close, low: close, close, volume });
    const profile = volumeProfile([at(100, 10, 0), at(110, 70, 1), at(120, 20, 2)], 4);
    // Buckets of 5 from 100: [100,105) 10, [105,110) 0, [110,115) 70, [115,120] 20.
    expect(profile.buckets.map((b) => b.volume)).toEqual([10, 0, 70, 20]);
    expect(profile.point_of_control).toEqual({ price: 112.5, price_low: 110, price_high: 115, volume: 70 });
    expect(profile.value_area).toEqual({ low: 110, high: 115, volume_share: 0.7 });
    expect(profile.position).toBe("above_value");

    // A candle spanning two buckets splits its volume by overlap.
    const split = volumeProfile([{ time: 0, open: 100, high: 110, low: 100, close: 110, volume: 10 }, at(120, 30, 1)], 2);
    expect(split.buckets.map((b) => b.volume)).toEqual([10, 30]);
    const spread = volumeProfile([{ time: 0, open: 100, high: 120, low: 100, close: 120, volume: 40 }], 4);
    expect(spread.buckets.map((b) => b.volume)).toEqual([10, 10, 10, 10]);
    expect(spread.value_area.volume_share).toBeGreaterThanOrEqual(0.7);

    const source = marketWith({ "1h": Array.from({ length: 200 }, (_, t) => 85_000 + 500 * Math.sin(t / 4)) });
    const { body } = await call<{ candles: number; profile: { buckets: unknown[]; value_area: { volume_share: number } } }>(volumeProfileEndpoint, source);
    expect(body.candles).toBe(168);
    expect(body.profile.buckets).toHaveLength(24);
    expect(body.profile.value_area.volume_share).toBeGreaterThanOrEqual(0.7);
    expect(volumeProfileEndpoint.response.safeParse(body).success).toBe(true);
  });

  it("offers a technical section for /v1/market/intelligence, shorter under summary", async () => {
    const source = marketWith({ "1h": linearCloses(260, 80_000, 90_000), "4h": linearCloses(260, 60_000, 90_000) });
    const full = await technicalSection({ source }, { exchange: "binance", detail: "full" });
    expect(Object.keys(full)).toEqual(["exchange", "timeframe", "indicators", "trend", "entry_timing"]);
    const summary = await technicalSection({ source }, { exchange: "binance", detail: "summary" });
    expect(summary).toMatchObject({ exchange: "binance", timeframe: "1h", trend_direction: "up" });
    expect(JSON.stringify(summary).length).toBeLessThan(JSON.stringify(full).length / 4);
  });
});
