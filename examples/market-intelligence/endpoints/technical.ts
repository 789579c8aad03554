// GET /v1/technical/{indicators,trend,entry-timing,volume-profile} (3 sats each): a venue's candles
// read through the indicators of analytics/indicators.ts (trading-signals) and the rules of
// analytics/technical.ts, documented in docs/market-verdict.md ("Technical readings"). Indicators and
// entry timing read the newest 250 hourly candles; the trend reads 1h, 4h and 1d; the volume profile
// the last 7 days of hourly candles. Fewer than 14 candles is a 422 `insufficient_candles`.
import { z } from "zod";
import { exchangeParam, jsonEndpoint, responseMeta, responseMetaSchema, type EndpointAnswer } from "../endpoint.ts";
import { InsufficientCandlesError, MIN_INDICATOR_CANDLES } from "../analytics/indicators.ts";
import {
  ENTRY_WEIGHTS,
  entryTiming,
  INDICATOR_CANDLES,
  INDICATOR_TIMEFRAME,
  latestReadings,
  LEVEL_LOOKBACK,
  recentCandles,
  TREND_TIMEFRAMES,
  TREND_WEIGHTS,
  VALUE_AREA_SHARE,
  venueIndicators,
  venueTrend,
  VOLUME_PROFILE_BUCKETS,
  VOLUME_PROFILE_CANDLES,
  volumeProfile,
} from "../analytics/technical.ts";
import type { MarketSource } from "../model/types.ts";

/** What the technical and risk handlers read. */
export interface AnalyticsDeps {
  source: MarketSource;
}

const params = z.strictObject({ exchange: exchangeParam });
const isoSchema = z.iso.datetime().describe("ISO 8601 instant, UTC");
const nullableNumber = z.number().nullable();
const directionSchema = z.enum(["up", "down", "sideways"]);
const strengthSchema = z.enum(["weak", "moderate", "strong", "unknown"]).describe("From ADX(14): < 20 weak, 20–40 moderate, ≥ 40 strong");

export const indicatorReadingsSchema = z.object({
  time: isoSchema.describe("Open time of the newest candle"),
  close: z.number(),
  rsi14: nullableNumber.describe("RSI(14), Wilder's smoothing, 0–100"),
  macd: z.object({ macd: z.number(), signal: z.number(), histogram: z.number() }).nullable().describe("MACD(12, 26, 9), USD"),
  bollinger: z
    .object({ upper: z.number(), middle: z.number(), lower: z.number(), percent_b: z.number(), bandwidth: z.number() })
    .nullable()
    .describe("Bollinger(20, 2σ); percent_b 0 = lower band, 1 = upper; bandwidth = (upper − lower) / middle"),
  atr14: nullableNumber.describe("ATR(14), USD"),
  atr14_pct: nullableNumber.describe("ATR(14) as a percentage of the close"),
  ema20: nullableNumber,
  ema50: nullableNumber,
  ema200: nullableNumber,
  vwap: nullableNumber.describe("Session VWAP since 00:00 UTC"),
  adx14: nullableNumber.describe("ADX(14), 0–100"),
});

const trendReadingSchema = z.object({
  timeframe: z.enum(TREND_TIMEFRAMES),
  direction: directionSchema,
  strength: strengthSchema,
  score: z.number().describe("Mean of the votes, −1 … 1"),
  adx14: nullableNumber,
  votes: z
    .object({
      price_vs_ema20: nullableNumber,
      ema20_vs_ema50: nullableNumber,
      ema50_vs_ema200: nullableNumber,
      macd_histogram: nullableNumber,
      directional_index: nullableNumber,
    })
    .describe("+1 up, −1 down, null before the reading warms up"),
  candles: z.number().int(),
});

export const trendSchema = z.object({
  direction: directionSchema,
  strength: strengthSchema,
  score: z.number().describe(`Weighted mean of the timeframes' scores (${TREND_TIMEFRAMES.map((t) => `${t} ${TREND_WEIGHTS[t]}`).join(", ")})`),
  timeframes: z.array(trendReadingSchema),
});

export const entryTimingSchema = z.object({
  score: z.number().int().min(0).max(100).describe("50 = no edge; higher favours a long entry now, lower favours waiting or a short"),
  suggestion: z.enum(["long_setup", "wait", "short_setup"]),
  summary: z.string(),
  components: z.array(z.object({ name: z.enum(["rsi", "bollinger", "levels", "volume"]), signal: nullableNumber, weight: z.number(), reason: z.string() })),
  levels: z.object({ support: z.number(), resistance: z.number(), distance_to_support_atr: nullableNumber, distance_to_resistance_atr: nullableNumber }),
  volume_ratio: z.number(),
  disclaimer: z.string(),
});

const volumeProfileSchema = z.object({
  buckets: z.array(z.object({ price_low: z.number(), price_high: z.number(), volume: z.number().describe("BTC"), share: z.number() })),
  point_of_control: z.object({ price: z.number(), price_low: z.number(), price_high: z.number(), volume: z.number() }),
  value_area: z.object({ low: z.number(), high: z.number(), volume_share: z.number() }),
  total_volume: z.number(),
  price: z.number(),
  position: z.enum(["above_value", "inside_value", "below_value"]),
});

function withMeta<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ exchange: z.string(), ...shape, meta: responseMetaSchema });
}

/** Spec 2 §7 rule 2: too few candles is an error answer naming the count, never a 500. */
export function insufficientCandlesAnswer(error: InsufficientCandlesError): EndpointAnswer {
  return {
    status: 422,
    body: { error: { code: "insufficient_candles", message: error.message, details: { candles: error.candles, minimum: MIN_INDICATOR_CANDLES } } },
  };
}

/** Runs a handler's body, turning InsufficientCandlesError into its 422. */
export async function answerWithCandles(body: () => Promise<Record<string, unknown>>): Promise<EndpointAnswer> {
  try {
    return { status: 200, body: await body() };
  } catch (error) {
    if (error instanceof InsufficientCandlesError) return insufficientCandlesAnswer(error);
    throw error;
  }
}

export const indicatorsEndpoint = jsonEndpoint({
  path: "/v1/technical/indicators",
  price: 3,
  summary: "RSI, MACD, Bollinger, ATR, EMAs, VWAP and ADX on a venue's hourly candles",
  description: `The newest readings of RSI(14), MACD(12, 26, 9), Bollinger(20, 2), ATR(14), EMA 20/50/200, session VWAP and ADX(14), computed on the venue's newest ${INDICATOR_CANDLES} ${INDICATOR_TIMEFRAME} candles (trading-signals). A reading is null until it has warmed up; fewer than ${MIN_INDICATOR_CANDLES} candles answers 422 insufficient_candles.`,
  params,
  response: withMeta({ timeframe: z.literal(INDICATOR_TIMEFRAME), candles: z.number().int(), indicators: indicatorReadingsSchema }),
  example: { exchange: "binance" },
  handle: (deps: AnalyticsDeps, { exchange }) =>
    answerWithCandles(async () => {
      const candles = await recentCandles(deps.source, exchange, INDICATOR_TIMEFRAME);
      return {
        exchange,
        timeframe: INDICATOR_TIMEFRAME,
        candles: candles.length,
        indicators: latestReadings(venueIndicators(deps.source, exchange, INDICATOR_TIMEFRAME, candles)),
        meta: responseMeta(deps.source, {
          window: { from: new Date(candles[0].time).toISOString(), to: new Date(candles[candles.length - 1].time).toISOString() },
        }),
      };
    }),
});

export const trendEndpoint = jsonEndpoint({
  path: "/v1/technical/trend",
  price: 3,
  summary: "Trend direction and strength per timeframe (1h, 4h, 1d) and combined",
  description:
    "Per timeframe, five readings vote up (+1) or down (−1): close vs EMA 20, EMA 20 vs EMA 50, EMA 50 vs EMA 200, the MACD histogram's sign and +DI vs −DI; their mean ≥ 0.5 reads up, ≤ −0.5 down, otherwise sideways. Strength comes from ADX(14). The combined trend weights 1d 0.5, 4h 0.3, 1h 0.2. A timeframe with fewer than 14 candles is left out; all of them short answers 422.",
  params,
  response: withMeta(trendSchema.shape),
  example: { exchange: "binance" },
  handle: (deps: AnalyticsDeps, { exchange }) =>
    answerWithCandles(async () => ({ exchange, ...(await venueTrend(deps.source, exchange)), meta: responseMeta(deps.source) })),
});

export const entryTimingEndpoint = jsonEndpoint({
  path: "/v1/technical/entry-timing",
  price: 3,
  summary: "An entry-timing score from RSI, Bollinger position, support/resistance and volume",
  description: `A documented rule set on hourly candles, not advice. Components (weights ${Object.entries(ENTRY_WEIGHTS)
    .map(([name, weight]) => `${name} ${weight}`)
    .join(
      ", ",
    )}), each −1 … 1 where + favours a long entry: RSI (50 − RSI) / 20; Bollinger 1 − 2 × %B; levels: position between the low and high of the previous ${LEVEL_LOOKBACK} candles (below support −0.5, above resistance 0); volume: the last candle's volume against the 20 before, signed by its direction. Score = 50 + 50 × weighted mean: ≥ 65 long_setup, ≤ 35 short_setup, otherwise wait.`,
  params,
  response: withMeta({ timeframe: z.literal(INDICATOR_TIMEFRAME), price: z.number(), entry_timing: entryTimingSchema }),
  example: { exchange: "binance" },
  handle: (deps: AnalyticsDeps, { exchange }) =>
    answerWithCandles(async () => {
      const candles = await recentCandles(deps.source, exchange, INDICATOR_TIMEFRAME);
      return {
        exchange,
        timeframe: INDICATOR_TIMEFRAME,
        price: candles[candles.length - 1].close,
        entry_timing: entryTiming(candles, venueIndicators(deps.source, exchange, INDICATOR_TIMEFRAME, candles)),
        meta: responseMeta(deps.source),
      };
    }),
});

export const volumeProfileEndpoint = jsonEndpoint({
  path: "/v1/technical/volume-profile",
  price: 3,
  summary: "Volume by price over the last 7 days: point of control and the 70 % value area",
  description: `The venue's last ${VOLUME_PROFILE_CANDLES} ${INDICATOR_TIMEFRAME} candles in ${VOLUME_PROFILE_BUCKETS} equal price buckets between their lowest low and highest high; each candle's volume is spread evenly over its range. The point of control is the fullest bucket; the value area grows from it towards the fuller neighbour until it holds ${VALUE_AREA_SHARE * 100} % of the volume.`,
  params,
  response: withMeta({ timeframe: z.literal(INDICATOR_TIMEFRAME), candles: z.number().int(), profile: volumeProfileSchema }),
  example: { exchange: "binance" },
  handle: (deps: AnalyticsDeps, { exchange }) =>
    answerWithCandles(async () => {
      const candles = await recentCandles(deps.source, exchange, INDICATOR_TIMEFRAME, VOLUME_PROFILE_CANDLES);
      return { exchange, timeframe: INDICATOR_TIMEFRAME, candles: candles.length, profile: volumeProfile(candles), meta: responseMeta(deps.source) };
    }),
});

export const technicalEndpoints = [indicatorsEndpoint, trendEndpoint, entryTimingEndpoint, volumeProfileEndpoint];
