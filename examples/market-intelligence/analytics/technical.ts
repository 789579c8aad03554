// What the technical endpoints answer, from a venue's candles: the latest indicator readings, the
// trend per timeframe, the entry-timing score and the volume profile. Indicator math comes from
// indicators.ts (trading-signals); the rules that turn readings into words are here, written down in
// docs/market-verdict.md ("Technical readings").
import { getAverage } from "trading-signals";
import type { Candle, MarketSource, Timeframe, Venue } from "../model/types.ts";
import { IndicatorCache, InsufficientCandlesError, MIN_INDICATOR_CANDLES, type TrendPoint } from "./indicators.ts";

/** The indicators and entry timing read hourly candles: short enough to act on, long enough for EMA 200 (8 days). */
export const INDICATOR_TIMEFRAME: Timeframe = "1h";
/** Candles loaded per timeframe: EMA 200 plus 50 to converge from the library's first-price seed. */
export const INDICATOR_CANDLES = 250;
/** Trend is read on three timeframes and combined with these weights (the slower, the heavier). */
export const TREND_TIMEFRAMES = ["1h", "4h", "1d"] as const satisfies readonly Timeframe[];
export type TrendTimeframe = (typeof TREND_TIMEFRAMES)[number];
export const TREND_WEIGHTS: Record<TrendTimeframe, number> = { "1h": 0.2, "4h": 0.3, "1d": 0.5 };
/** The volume profile spans the last 7 days of hourly candles in 24 price buckets. */
export const VOLUME_PROFILE_CANDLES = 168;
export const VOLUME_PROFILE_BUCKETS = 24;
export const VALUE_AREA_SHARE = 0.7;
/** Support and resistance for entry timing: the low and high of the 48 hourly candles before the last. */
export const LEVEL_LOOKBACK = 48;

export type TrendDirection = "up" | "down" | "sideways";
export type TrendStrength = "weak" | "moderate" | "strong" | "unknown";

/** Reads a venue's newest candles; fewer than MIN_INDICATOR_CANDLES is InsufficientCandlesError. */
export async function recentCandles(source: MarketSource, venue: Venue, timeframe: Timeframe, limit = INDICATOR_CANDLES): Promise<Candle[]> {
  const candles = await source.candles(venue, timeframe, { limit });
  if (candles.length < MIN_INDICATOR_CANDLES) throw new InsufficientCandlesError(candles.length);
  return candles;
}

const caches = new WeakMap<MarketSource, IndicatorCache>();

/**
 * The indicator series of a venue's candles, through a per-source IndicatorCache: a repeated
 * request while the newest candle forms costs one update, not the whole series.
 */
export function venueIndicators(source: MarketSource, venue: Venue, timeframe: Timeframe, candles: Candle[]): TrendPoint[] {
  let cache = caches.get(source);
  if (!cache) caches.set(source, (cache = new IndicatorCache()));
  return cache.series(`${venue}:${timeframe}:${candles.length}`, candles);
}

// ---- latest indicators -----------------------------------------------------------------------

export interface IndicatorReadings {
  time: string;
  close: number;
  rsi14: number | null;
  macd: { macd: number; signal: number; histogram: number } | null;
  bollinger: { upper: number; middle: number; lower: number; percent_b: number; bandwidth: number } | null;
  atr14: number | null;
  atr14_pct: number | null;
  ema20: number | null;
  ema50: number | null;
  ema200: number | null;
  vwap: number | null;
  adx14: number | null;
}

/** The newest candle's readings, with Bollinger %B (0 = lower band, 1 = upper) and bandwidth (band width / middle). */
export function latestReadings(points: TrendPoint[]): IndicatorReadings {
  const last = points[points.length - 1];
  const bands = last.bollinger;
  return {
    time: new Date(last.time).toISOString(),
    close: last.close,
    rsi14: round(last.rsi14, 2),
    macd: last.macd && { macd: round(last.macd.macd, 2)!, signal: round(last.macd.signal, 2)!, histogram: round(last.macd.histogram, 2)! },
    bollinger: bands && {
      upper: round(bands.upper, 2)!,
      middle: round(bands.middle, 2)!,
      lower: round(bands.lower, 2)!,
      percent_b: round(percentB(last.close, bands), 4)!,
      bandwidth: round((bands.upper - bands.lower) / bands.middle, 6)!,
    },
    atr14: round(last.atr14, 2),
    atr14_pct: last.atr14 === null ? null : round((last.atr14 / last.close) * 100, 4),
    ema20: round(last.ema20, 2),
    ema50: round(last.ema50, 2),
    ema200: round(last.ema200, 2),
    vwap: round(last.vwap, 2),
    adx14: round(last.adx14, 2),
  };
}

// ---- trend -----------------------------------------------------------------------------------

export interface TrendReading {
  timeframe: TrendTimeframe;
  direction: TrendDirection;
  /** From ADX(14): below 20 weak, 20–40 moderate, 40 and up strong; unknown before ADX warms up. */
  strength: TrendStrength;
  /** Mean of the votes, −1 (every reading down) … 1 (every reading up). */
  score: number;
  adx14: number | null;
  votes: {
    price_vs_ema20: number | null;
    ema20_vs_ema50: number | null;
    ema50_vs_ema200: number | null;
    macd_histogram: number | null;
    directional_index: number | null;
  };
  candles: number;
}

/**
 * One timeframe's trend. Each available reading votes +1 (up) or −1 (down): close vs EMA 20, EMA 20
 * vs EMA 50, EMA 50 vs EMA 200, the MACD histogram's sign, +DI vs −DI. Their mean ≥ 0.5 reads up,
 * ≤ −0.5 down, otherwise sideways.
 */
export function trendReading(timeframe: TrendTimeframe, points: TrendPoint[]): TrendReading {
  const last = points[points.length - 1];
  const votes = {
    price_vs_ema20: vote(last.close, last.ema20),
    ema20_vs_ema50: vote(last.ema20, last.ema50),
    ema50_vs_ema200: vote(last.ema50, last.ema200),
    macd_histogram: last.macd ? Math.sign(last.macd.histogram) : null,
    directional_index: vote(last.plusDi14, last.minusDi14),
  };
  const cast = Object.values(votes).filter((value): value is number => value !== null);
  const score = cast.length ? getAverage(cast) : 0;
  return {
    timeframe,
    direction: directionOf(score),
    strength: strengthOf(last.adx14),
    score: round(score, 3)!,
    adx14: round(last.adx14, 2),
    votes,
    candles: points.length,
  };
}

export interface CombinedTrend {
  direction: TrendDirection;
  strength: TrendStrength;
  /** Weighted mean of the timeframes' scores (weights TREND_WEIGHTS, renormalised over those read). */
  score: number;
  timeframes: TrendReading[];
}

export function combineTrends(readings: TrendReading[]): CombinedTrend {
  const weight = readings.reduce((sum, reading) => sum + TREND_WEIGHTS[reading.timeframe], 0);
  const score = weight ? readings.reduce((sum, reading) => sum + TREND_WEIGHTS[reading.timeframe] * reading.score, 0) / weight : 0;
  const withAdx = readings.filter((reading) => reading.adx14 !== null);
  const adxWeight = withAdx.reduce((sum, reading) => sum + TREND_WEIGHTS[reading.timeframe], 0);
  const adx = adxWeight ? withAdx.reduce((sum, reading) => sum + TREND_WEIGHTS[reading.timeframe] * reading.adx14!, 0) / adxWeight : null;
  return { direction: directionOf(score), strength: strengthOf(adx), score: round(score, 3)!, timeframes: readings };
}

/** Reads the trend on every trend timeframe that has enough candles (at least one must). */
export async function venueTrend(source: MarketSource, venue: Venue): Promise<CombinedTrend> {
  const readings: TrendReading[] = [];
  let shortest: InsufficientCandlesError | null = null;
  for (const timeframe of TREND_TIMEFRAMES) {
    try {
      readings.push(trendReading(timeframe, venueIndicators(source, venue, timeframe, await recentCandles(source, venue, timeframe))));
    } catch (error) {
      if (!(error instanceof InsufficientCandlesError)) throw error;
      shortest = error;
    }
  }
  if (!readings.length) throw shortest ?? new InsufficientCandlesError(0);
  return combineTrends(readings);
}

// ---- entry timing ----------------------------------------------------------------------------

export const ENTRY_WEIGHTS = { rsi: 0.3, bollinger: 0.25, levels: 0.3, volume: 0.15 } as const;

export interface EntryComponent {
  name: keyof typeof ENTRY_WEIGHTS;
  /** −1 (unfavourable for a long entry) … 1 (favourable); null when the reading is not warmed up. */
  signal: number | null;
  weight: number;
  reason: string;
}

export interface EntryTiming {
  /** 0 … 100: 50 is no edge, higher favours a long entry now, lower favours waiting (or a short). */
  score: number;
  suggestion: "long_setup" | "wait" | "short_setup";
  summary: string;
  components: EntryComponent[];
  levels: { support: number; resistance: number; distance_to_support_atr: number | null; distance_to_resistance_atr: number | null };
  volume_ratio: number;
  disclaimer: string;
}

/**
 * The entry-timing rule set on hourly candles (docs/market-verdict.md):
 * - RSI: (50 − RSI) / 20, clamped to ±1 (oversold favours a long entry, overbought does not);
 * - Bollinger: 1 − 2 × %B, clamped (at the lower band +1, at the upper −1);
 * - levels: support/resistance are the low/high of the previous 48 candles; (d_res − d_sup) /
 *   (d_res + d_sup) in ATR units (near support +1, near resistance −1); below support −0.5 (breakdown), above resistance 0;
 * - volume: the last candle's volume over the mean of the 20 before, (ratio − 1) clamped, signed by
 *   the candle's direction (heavy buying +, heavy selling −).
 * The score is 50 + 50 × the weighted mean; ≥ 65 reads long_setup, ≤ 35 short_setup, else wait.
 */
export function entryTiming(candles: Candle[], points: TrendPoint[]): EntryTiming {
  const last = points[points.length - 1];
  const candle = candles[candles.length - 1];
  const previous = candles.slice(-1 - LEVEL_LOOKBACK, -1);
  const support = Math.min(...previous.map((c) => c.low));
  const resistance = Math.max(...previous.map((c) => c.high));
  const atr = last.atr14;
  const components: EntryComponent[] = [];

  const rsi = last.rsi14;
  components.push({
    name: "rsi",
    signal: rsi === null ? null : clamp((50 - rsi) / 20),
    weight: ENTRY_WEIGHTS.rsi,
    reason:
      rsi === null
        ? "RSI(14) not warmed up"
        : rsi <= 30
          ? `RSI ${rsi.toFixed(1)}: oversold`
          : rsi >= 70
            ? `RSI ${rsi.toFixed(1)}: overbought`
            : `RSI ${rsi.toFixed(1)}: neutral range`,
  });

  const bands = last.bollinger;
  const b = bands ? percentB(last.close, bands) : null;
  components.push({
    name: "bollinger",
    signal: b === null ? null : clamp(1 - 2 * b),
    weight: ENTRY_WEIGHTS.bollinger,
    reason:
      b === null
        ? "Bollinger bands not warmed up"
        : b <= 0.2
          ? `%B ${b.toFixed(2)}: at the lower band`
          : b >= 0.8
            ? `%B ${b.toFixed(2)}: at the upper band`
            : `%B ${b.toFixed(2)}: inside the bands`,
  });

  const toSupport = candle.close - support;
  const toResistance = resistance - candle.close;
  let levelSignal: number | null;
  let levelReason: string;
  if (candle.close < support) {
    levelSignal = -0.5;
    levelReason = `below the ${LEVEL_LOOKBACK}-hour support ${support.toFixed(2)}: breakdown`;
  } else if (candle.close > resistance) {
    levelSignal = 0;
    levelReason = `above the ${LEVEL_LOOKBACK}-hour resistance ${resistance.toFixed(2)}: breakout, no overhead level`;
  } else {
    levelSignal = toSupport + toResistance > 0 ? clamp((toResistance - toSupport) / (toResistance + toSupport)) : 0;
    levelReason =
      levelSignal >= 0
        ? `closer to support ${support.toFixed(2)} than to resistance ${resistance.toFixed(2)}`
        : `closer to resistance ${resistance.toFixed(2)} than to support ${support.toFixed(2)}`;
  }
  components.push({ name: "levels", signal: levelSignal, weight: ENTRY_WEIGHTS.levels, reason: levelReason });

  const before = candles.slice(-21, -1).map((c) => c.volume);
  const average = before.length ? getAverage(before) : 0;
  const ratio = average > 0 ? candle.volume / average : 1;
  const direction = Math.sign(candle.close - candle.open);
  components.push({
    name: "volume",
    signal: clamp(ratio - 1) * direction,
    weight: ENTRY_WEIGHTS.volume,
    reason: `last candle volume ${ratio.toFixed(2)}× the 20-candle mean on a ${direction > 0 ? "rising" : direction < 0 ? "falling" : "flat"} candle`,
  });

  const read = components.filter((component) => component.signal !== null);
  const weight = read.reduce((sum, component) => sum + component.weight, 0);
  const mean = weight ? read.reduce((sum, component) => sum + component.weight * component.signal!, 0) / weight : 0;
  const score = Math.round(50 + 50 * mean);
  const suggestion = score >= 65 ? "long_setup" : score <= 35 ? "short_setup" : "wait";
  const strongest = [...read].sort((a, b) => Math.abs(b.weight * b.signal!) - Math.abs(a.weight * a.signal!)).slice(0, 2);
  const because = strongest.map((component) => component.reason).join("; ");
  const summary =
    suggestion === "long_setup"
      ? `Timing favours a long entry (${because}).`
      : suggestion === "short_setup"
        ? `Timing is stretched for a long entry; waiting or a short setup fits better (${because}).`
        : `No timing edge: the readings are mixed (${because}).`;
  return {
    score,
    suggestion,
    summary,
    components: components.map((component) => ({ ...component, signal: round(component.signal, 3) })),
    levels: {
      support: round(support, 2)!,
      resistance: round(resistance, 2)!,
      distance_to_support_atr: atr ? round(toSupport / atr, 2) : null,
      distance_to_resistance_atr: atr ? round(toResistance / atr, 2) : null,
    },
    volume_ratio: round(ratio, 3)!,
    disclaimer: "Derived from indicator rules on historical candles; not investment advice.",
  };
}

// ---- volume profile --------------------------------------------------------------------------

export interface VolumeProfile {
  buckets: Array<{ price_low: number; price_high: number; volume: number; share: number }>;
  point_of_control: { price: number; price_low: number; price_high: number; volume: number };
  value_area: { low: number; high: number; volume_share: number };
  total_volume: number;
  price: number;
  /** Where the last close sits relative to the value area. */
  position: "above_value" | "inside_value" | "below_value";
}

/**
 * Volume by price: each candle's volume spread evenly over its low–high range and added to the
 * buckets that range overlaps (a candle with no range adds all of it to its close's bucket). The
 * point of control is the fullest bucket; the value area grows from it, one neighbour at a time
 * (the fuller of the next bucket above and below), until it holds 70 % of the volume.
 */
export function volumeProfile(candles: Candle[], bucketCount = VOLUME_PROFILE_BUCKETS): VolumeProfile {
  const low = Math.min(...candles.map((c) => c.low));
  const high = Math.max(...candles.map((c) => c.high));
  const size = (high - low) / bucketCount || 1;
  const volumes = new Array<number>(bucketCount).fill(0);
  const bucketOf = (price: number) => Math.min(bucketCount - 1, Math.max(0, Math.floor((price - low) / size)));
  for (const candle of candles) {
    const range = candle.high - candle.low;
    if (range <= 0) {
      volumes[bucketOf(candle.close)] += candle.volume;
      continue;
    }
    for (let index = bucketOf(candle.low); index <= bucketOf(candle.high); index++) {
      const overlap = Math.min(candle.high, low + (index + 1) * size) - Math.max(candle.low, low + index * size);
      if (overlap > 0) volumes[index] += (candle.volume * overlap) / range;
    }
  }
  const total = volumes.reduce((sum, volume) => sum + volume, 0);
  const poc = volumes.indexOf(Math.max(...volumes));
  let from = poc;
  let to = poc;
  let inside = volumes[poc];
  while (inside < VALUE_AREA_SHARE * total && (from > 0 || to < bucketCount - 1)) {
    const below = from > 0 ? volumes[from - 1] : -1;
    const above = to < bucketCount - 1 ? volumes[to + 1] : -1;
    if (above >= below) inside += volumes[++to];
    else inside += volumes[--from];
  }
  const edge = (index: number) => round(low + index * size, 2)!;
  const price = candles[candles.length - 1].close;
  const valueLow = edge(from);
  const valueHigh = edge(to + 1);
  return {
    buckets: volumes.map((volume, index) => ({
      price_low: edge(index),
      price_high: edge(index + 1),
      volume: round(volume, 4)!,
      share: total ? round(volume / total, 4)! : 0,
    })),
    point_of_control: { price: round(low + (poc + 0.5) * size, 2)!, price_low: edge(poc), price_high: edge(poc + 1), volume: round(volumes[poc], 4)! },
    value_area: { low: valueLow, high: valueHigh, volume_share: total ? round(inside / total, 4)! : 0 },
    total_volume: round(total, 4)!,
    price,
    position: price > valueHigh ? "above_value" : price < valueLow ? "below_value" : "inside_value",
  };
}

// ---- the /v1/market/intelligence section -----------------------------------------------------

/** The technical part of /v1/market/intelligence: the summary keeps the headline numbers, full adds every reading. */
export async function technicalSection(
  deps: { source: MarketSource },
  { exchange, detail }: { exchange: Venue; detail: "full" | "summary" },
): Promise<Record<string, unknown>> {
  const candles = await recentCandles(deps.source, exchange, INDICATOR_TIMEFRAME);
  const points = venueIndicators(deps.source, exchange, INDICATOR_TIMEFRAME, candles);
  const readings = latestReadings(points);
  const trend = await venueTrend(deps.source, exchange);
  const entry = entryTiming(candles, points);
  if (detail === "summary") {
    return {
      exchange,
      timeframe: INDICATOR_TIMEFRAME,
      close: readings.close,
      rsi14: readings.rsi14,
      macd_histogram: readings.macd?.histogram ?? null,
      trend_direction: trend.direction,
      trend_strength: trend.strength,
      entry_score: entry.score,
      entry_suggestion: entry.suggestion,
    };
  }
  return { exchange, timeframe: INDICATOR_TIMEFRAME, indicators: readings, trend, entry_timing: entry };
}

// ---- small helpers ---------------------------------------------------------------------------

function percentB(close: number, bands: { upper: number; lower: number }): number {
  const width = bands.upper - bands.lower;
  return width > 0 ? (close - bands.lower) / width : 0.5;
}

function vote(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.sign(a - b);
}

function directionOf(score: number): TrendDirection {
  return score >= 0.5 ? "up" : score <= -0.5 ? "down" : "sideways";
}

function strengthOf(adx: number | null): TrendStrength {
  if (adx === null) return "unknown";
  return adx < 20 ? "weak" : adx < 40 ? "moderate" : "strong";
}

export function clamp(value: number, limit = 1): number {
  return Math.max(-limit, Math.min(limit, value));
}

export function round(value: number | null, digits: number): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
