// The indicators pinned on reference series: Wilder's RSI on the StockCharts reference closes, and
// MACD, Bollinger, EMA and ATR on series whose values are known in closed form.
import { describe, expect, it } from "vitest";
import type { Candle } from "../model/types.ts";
import { IndicatorCache, indicatorSeries, InsufficientCandlesError, MIN_INDICATOR_CANDLES, trendSeries, type TrendPoint } from "./indicators.ts";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 5);

/** Candles from closes, one hour apart, with a fixed range around each close. */
function candlesFromCloses(closes: number[], { range = 0, volume = 1, step = HOUR, start = START } = {}): Candle[] {
  return closes.map((close, index) => ({ time: start + index * step, open: close, high: close + range / 2, low: close - range / 2, close, volume }));
}

// The StockCharts "RSI" ChartSchool table (Wilder's method: SMA seed, then (prev × 13 + x) / 14).
const RSI_CLOSES = [
  44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.1, 45.42, 45.84, 46.08, 45.89, 46.03, 45.61, 46.28, 46.28, 46.0, 46.03, 46.41, 46.22, 45.64, 46.21, 46.25, 45.71,
  46.45, 45.78, 45.35, 44.03, 44.18, 44.22, 44.57, 43.42, 42.66, 43.13,
];
// Wilder's RSI from unrounded averages...
const RSI_WILDER = [70.46, 66.25, 66.48, 69.35, 66.29, 57.92, 62.88, 63.21, 56.01, 62.34, 54.67, 50.39, 40.02, 41.49, 41.9, 45.5, 37.32, 33.09, 37.79];
// ...and as StockCharts publishes it (its averages are rounded to cents, hence up to 0.07 apart).
const RSI_STOCKCHARTS = [70.53, 66.32, 66.55, 69.41, 66.36, 57.97, 62.93, 63.26, 56.06, 62.38, 54.71, 50.42, 39.99, 41.46, 41.87, 45.46, 37.3, 33.08, 37.77];

describe("indicatorSeries", () => {
  it("computes Wilder's RSI(14) on the reference closes, null for the first 14 candles", () => {
    const points = indicatorSeries(candlesFromCloses(RSI_CLOSES));
    expect(points).toHaveLength(RSI_CLOSES.length);
    expect(points.slice(0, 14).every((point) => point.rsi14 === null)).toBe(true);
    const rsi = points.slice(14).map((point) => point.rsi14 as number);
    rsi.forEach((value, index) => {
      expect(value).toBeCloseTo(RSI_WILDER[index], 2);
      expect(Math.abs(value - RSI_STOCKCHARTS[index])).toBeLessThan(0.1);
    });
  });

  it("converges MACD(12, 26, 9), the EMAs and Bollinger(20, 2) to their closed forms on a straight line", () => {
    // Price p(t) = 1000 + 5t. An EMA of n lags a line by slope × (n − 1) / 2, so MACD = 5 × (12.5 − 5.5) = 35
    // and the signal follows it (histogram 0). The 20-candle SMA lags by 5 × 9.5 and the population
    // deviation of 20 equally spaced points is 5 × √((20² − 1) / 12).
    const slope = 5;
    const closes = Array.from({ length: 2000 }, (_, t) => 1000 + slope * t);
    const points = indicatorSeries(candlesFromCloses(closes, { range: 2 }));
    const last = points.at(-1)!;
    expect(last.macd!.macd).toBeCloseTo(slope * 7, 6);
    expect(last.macd!.signal).toBeCloseTo(slope * 7, 6);
    expect(last.macd!.histogram).toBeCloseTo(0, 6);
    expect(last.ema20).toBeCloseTo(last.close - slope * 9.5, 6);
    expect(last.ema50).toBeCloseTo(last.close - slope * 24.5, 6);
    expect(last.ema200).toBeCloseTo(last.close - slope * 99.5, 4);
    const deviation = slope * Math.sqrt((20 * 20 - 1) / 12);
    expect(last.bollinger!.middle).toBeCloseTo(last.close - slope * 9.5, 9);
    expect(last.bollinger!.upper).toBeCloseTo(last.bollinger!.middle + 2 * deviation, 9);
    expect(last.bollinger!.lower).toBeCloseTo(last.bollinger!.middle - 2 * deviation, 9);
    // A rising line: every close 5 above the previous, the candle spans 2, so the true range is 6.
    expect(last.atr14).toBeCloseTo(6, 9);
  });

  it("warms each indicator up at its documented candle", () => {
    const closes = Array.from({ length: 250 }, (_, t) => 100 + Math.sin(t / 5) * 10);
    const points = indicatorSeries(candlesFromCloses(closes, { range: 1 }));
    const firstNonNull = (pick: (point: (typeof points)[number]) => unknown) => points.findIndex((point) => pick(point) !== null);
    expect(firstNonNull((p) => p.rsi14)).toBe(14);
    // The library takes the first candle's high − low as its true range, so ATR needs no previous close.
    expect(firstNonNull((p) => p.atr14)).toBe(13);
    expect(firstNonNull((p) => p.ema20)).toBe(19);
    expect(firstNonNull((p) => p.bollinger)).toBe(19);
    expect(firstNonNull((p) => p.macd)).toBe(33);
    expect(firstNonNull((p) => p.ema50)).toBe(49);
    expect(firstNonNull((p) => p.ema200)).toBe(199);
    expect(firstNonNull((p) => p.vwap)).toBe(0);
  });

  it("restarts VWAP at each UTC midnight for intraday candles and anchors it at the start for daily ones", () => {
    // 30 hourly candles from 20:00 UTC: the day changes at the 5th candle.
    const start = Date.UTC(2026, 0, 5, 20);
    const closes = Array.from({ length: 30 }, (_, t) => 100 + t);
    const hourly = indicatorSeries(candlesFromCloses(closes, { start, volume: 2 }));
    expect(hourly[3].vwap).toBeCloseTo((100 + 101 + 102 + 103) / 4, 9);
    expect(hourly[4].vwap).toBeCloseTo(104, 9);
    expect(hourly[5].vwap).toBeCloseTo(104.5, 9);
    const daily = indicatorSeries(candlesFromCloses(closes, { step: 24 * HOUR }));
    expect(daily[29].vwap).toBeCloseTo(closes.reduce((a, b) => a + b, 0) / closes.length, 9);
  });

  it("throws InsufficientCandlesError below 14 candles and answers from 14", () => {
    const closes = Array.from({ length: MIN_INDICATOR_CANDLES }, (_, t) => 100 + t);
    expect(() => indicatorSeries(candlesFromCloses(closes.slice(1)))).toThrow(InsufficientCandlesError);
    try {
      indicatorSeries(candlesFromCloses(closes.slice(3)));
    } catch (error) {
      expect(error).toBeInstanceOf(InsufficientCandlesError);
      expect((error as InsufficientCandlesError).candles).toBe(11);
      expect((error as Error).message).toMatch(/at least 14 candles/);
    }
    expect(indicatorSeries(candlesFromCloses(closes))).toHaveLength(14);
  });
});

describe("trendSeries", () => {
  it("reads a steady rise as a strong trend with +DI above −DI", () => {
    const closes = Array.from({ length: 120 }, (_, t) => 1000 + 5 * t);
    const last = trendSeries(candlesFromCloses(closes, { range: 4 })).at(-1)!;
    expect(last.adx14).toBeGreaterThan(90);
    expect(last.plusDi14).toBeGreaterThan(last.minusDi14!);
    expect(last.minusDi14).toBeCloseTo(0, 9);
  });
});

describe("IndicatorCache", () => {
  /** Every number of two points, to 6 decimals (the library's replace undoes sums in floating point). */
  function expectSamePoint(actual: TrendPoint, expected: TrendPoint) {
    const flat = (point: TrendPoint) => JSON.parse(JSON.stringify(point)) as Record<string, unknown>;
    const a = flat(actual);
    const e = flat(expected);
    expect(Object.keys(a)).toEqual(Object.keys(e));
    for (const key of Object.keys(e)) {
      const [x, y] = [a[key], e[key]];
      if (typeof y === "number") expect(x, key).toBeCloseTo(y, 6);
      else if (y && typeof y === "object")
        for (const [inner, value] of Object.entries(y)) expect((x as Record<string, number>)[inner], `${key}.${inner}`).toBeCloseTo(value as number, 6);
      else expect(x, key).toBe(y);
    }
  }

  it("answers what trendSeries computes while the forming candle moves, a new candle opens and a closed one is revised", () => {
    const cache = new IndicatorCache();
    const closes = Array.from({ length: 260 }, (_, t) => 85_000 + 900 * Math.sin(t / 6) + 3 * t);
    let candles = candlesFromCloses(closes, { range: 40, volume: 3 }).slice(0, 250);
    const check = () => {
      const cached = cache.series("binance:1h", candles);
      const fresh = trendSeries(candles);
      expect(cached).toHaveLength(fresh.length);
      expectSamePoint(cached.at(-1)!, fresh.at(-1)!);
      expectSamePoint(cached.at(-2)!, fresh.at(-2)!);
    };
    check();
    // The forming candle's close moves up, then down through the previous close, volume grows.
    for (const [delta, volume] of [
      [150, 4],
      [-400, 6],
      [20, 9],
    ]) {
      const last = candles.at(-1)!;
      const close = closes[249] + delta;
      candles = [...candles.slice(0, -1), { ...last, close, high: Math.max(last.high, close), low: Math.min(last.low, close), volume }];
      check();
    }
    // A new candle opens: the window slides by one.
    candles = candlesFromCloses(closes, { range: 40, volume: 3 }).slice(1, 251);
    check();
    // A closed candle is revised (a late trade): recomputed, not replaced.
    candles = candles.map((candle, index) => (index === candles.length - 2 ? { ...candle, close: candle.close + 75, high: candle.high + 75 } : candle));
    check();
    expect(() => cache.series("binance:1h", candles.slice(0, 13))).toThrow(InsufficientCandlesError);
  });
});
