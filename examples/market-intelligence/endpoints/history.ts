// The seven /v1/history endpoints (spec 2 §4.2): candles, heatmaps, indicators, order-book walls,
// source snapshots, a venue's summary and the analog search, all read from the history store the
// recorder fills (examples/market-intelligence/history). Lists are newest first and page with
// limit/offset over [start, end); start after end is a 400 naming both. Fewer than 14 candles for
// indicators is a 422 `insufficient_candles` (spec 2 §4.2 rule 5, §7.2). docs/market-history.md.
import { z } from "zod";
import { errorAnswer } from "../../shared/origin-server.ts";
import { InsufficientCandlesError, MIN_INDICATOR_CANDLES, indicatorSeries } from "../analytics/indicators.ts";
import { exchangeParam, instantParam, jsonEndpoint, limitParam, offsetParam, responseMeta, responseMetaSchema, type EndpointAnswer } from "../endpoint.ts";
import { AnalogSeries } from "../history/analog-series.ts";
import { aggregateAnalogs, analogMatch, MAX_ANALOG_SAMPLE, pickNonOverlapping } from "../history/analogs.ts";
import { SNAPSHOT_SOURCES } from "../history/recorder.ts";
import { snakeCaseKeys } from "../history/snake-case.ts";
import { DEFAULT_RETENTION, HISTORY_TIMEFRAMES, SPOT_SYMBOL, TRENDS, type HistoryStore, type HistoryTimeframe, type Page } from "../history/store.ts";
import { DEFAULT_VENUE, PERP_SYMBOL, TIMEFRAME_MS, type MarketSource, type Venue } from "../model/types.ts";

export interface HistoryDeps {
  store: HistoryStore;
  source: MarketSource;
}

const PRICE = 3;
const HOUR = TIMEFRAME_MS["1h"];
const DAY = TIMEFRAME_MS["1d"];
const iso = (time: number) => new Date(time).toISOString();
const isoOrNull = (time: number | null | undefined) => (time === null || time === undefined ? null : iso(time));

// ---- shared parameters -------------------------------------------------------------------------

const timeframeParam = z.enum(HISTORY_TIMEFRAMES).default("1h").describe("Candle timeframe: 1h, 4h or 1d. Default 1h.");
const startParam = instantParam.optional().describe("Window start, ISO 8601 with offset, inclusive (e.g. 2026-01-01T00:00:00Z). Default: no lower bound.");
const endParam = instantParam.optional().describe("Window end, ISO 8601 with offset, exclusive (e.g. 2026-02-01T00:00:00Z). Default: no upper bound.");

/** start after end is a 400 naming both (the server reports the issue's path and message). */
function windowIsOrdered(params: { start?: number; end?: number }, ctx: z.RefinementCtx) {
  if (params.start !== undefined && params.end !== undefined && params.start > params.end)
    ctx.addIssue({
      code: "custom",
      path: ["start"],
      message: `start (${iso(params.start)}) is after end (${iso(params.end)}): start must not be later than end`,
    });
}

/** Both ends of a [min, max] filter, when given, in order. */
function rangeIsOrdered(params: Record<string, unknown>, min: string, max: string, ctx: z.RefinementCtx) {
  const low = params[min];
  const high = params[max];
  if (typeof low === "number" && typeof high === "number" && low > high)
    ctx.addIssue({ code: "custom", path: [min], message: `${min} (${low}) is greater than ${max} (${high}): ${min} must not exceed ${max}` });
}

const pageMetaSchema = responseMetaSchema.extend({
  order: z.literal("newest_first"),
  start: z.string().nullable().describe("The window's start as asked (inclusive), or null"),
  end: z.string().nullable().describe("The window's end as asked (exclusive), or null"),
  limit: z.number().int(),
  offset: z.number().int(),
  count: z.number().int().describe("Items in this page"),
  has_more: z.boolean().describe("True when older items exist in the window beyond this page (ask with offset + limit)"),
});

function pageMeta(
  source: MarketSource,
  params: { start?: number; end?: number; limit: number; offset: number },
  page: Page<unknown>,
  extra: Record<string, unknown> = {},
) {
  return responseMeta(source, {
    ...extra,
    order: "newest_first",
    start: isoOrNull(params.start),
    end: isoOrNull(params.end),
    limit: params.limit,
    offset: params.offset,
    count: page.items.length,
    has_more: page.hasMore,
  });
}

const probeAnswer: EndpointAnswer = { body: { ok: true, probe: true } };

const candleSchema = z.object({
  time: z.string().describe("Open time, ISO 8601 (UTC)"),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number().describe("Base volume, BTC"),
});

// ---- /v1/history/candles -----------------------------------------------------------------------

export const historyCandles = jsonEndpoint({
  path: "/v1/history/candles",
  price: PRICE,
  summary: "Recorded candles of one venue and timeframe",
  description:
    "Candles the recorder stored (a year backfilled on first start, then every closed candle), newest first, paged with limit/offset over [start, end). Prices USD, volume BTC.",
  params: z
    .object({ timeframe: timeframeParam, start: startParam, end: endParam, limit: limitParam(1000, 100), offset: offsetParam, exchange: exchangeParam })
    .strict()
    .superRefine(windowIsOrdered),
  response: z.object({
    exchange: z.string(),
    timeframe: z.enum(HISTORY_TIMEFRAMES),
    candles: z.array(candleSchema).describe("Newest first"),
    meta: pageMetaSchema,
  }),
  example: { timeframe: "1h", limit: "48", exchange: "binance" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const page = await deps.store.candles(params.exchange, params.timeframe, params);
    return {
      body: {
        exchange: params.exchange,
        timeframe: params.timeframe,
        candles: page.items.map((c) => ({ time: iso(c.time), open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume })),
        meta: pageMeta(deps.source, params, page),
      },
    };
  },
});

// ---- /v1/history/heatmaps ----------------------------------------------------------------------

export const historyHeatmaps = jsonEndpoint({
  path: "/v1/history/heatmaps",
  price: PRICE,
  summary: "Recorded liquidation-heatmap snapshots",
  description: `Liquidation-heatmap snapshots of the perpetual (one every 15 minutes, kept ${DEFAULT_RETENTION.snapshots} days), newest first, paged with limit/offset over [start, end).`,
  params: z
    .object({
      symbol: z.enum([PERP_SYMBOL]).default(PERP_SYMBOL).describe(`The perpetual's symbol; only ${PERP_SYMBOL}. Default ${PERP_SYMBOL}.`),
      start: startParam,
      end: endParam,
      limit: limitParam(200, 24),
      offset: offsetParam,
    })
    .strict()
    .superRefine(windowIsOrdered),
  response: z.object({
    symbol: z.string(),
    heatmaps: z
      .array(
        z.object({
          time: z.string().describe("When the snapshot was taken, ISO 8601"),
          reference_price: z.number(),
          bucket_size_usd: z.number(),
          buckets: z.array(z.object({ price_low: z.number(), price_high: z.number(), long_liquidation_usd: z.number(), short_liquidation_usd: z.number() })),
        }),
      )
      .describe("Newest first"),
    meta: pageMetaSchema,
  }),
  example: { symbol: PERP_SYMBOL, limit: "4" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const page = await deps.store.heatmaps(params.symbol, params);
    return {
      body: {
        symbol: params.symbol,
        heatmaps: page.items.map((h) => ({ time: iso(h.time), reference_price: h.referencePrice, bucket_size_usd: h.bucketSizeUsd, buckets: h.buckets })),
        meta: pageMeta(deps.source, params, page),
      },
    };
  },
});

// ---- /v1/history/indicators --------------------------------------------------------------------

/**
 * The indicator series of one window of stored candles, newest first, kept per store and request
 * until the store's candle generation moves (a trigger bumps it on every candle written or removed):
 * stored candles are closed and never change in place, so the same window and the same generation
 * give the same series. The generation is read before the candles, so a write between the two reads
 * leaves an entry that the next request sees as stale. Recomputing 200 candles costs tens of ms.
 */
type IndicatorAnswer = { candlesLoaded: number; points: Array<Record<string, unknown>>; firstTime: number; lastTime: number } | { found: number };
const INDICATOR_CACHE_ENTRIES = 64;
const indicatorAnswers = new WeakMap<HistoryStore, Map<string, { generation: number; answer: IndicatorAnswer }>>();

async function indicatorAnswer(
  store: HistoryStore,
  params: { exchange: Venue; timeframe: HistoryTimeframe; start?: number; end?: number; limit: number },
): Promise<IndicatorAnswer> {
  const generation = await store.candleGeneration();
  let entries = indicatorAnswers.get(store);
  if (!entries) indicatorAnswers.set(store, (entries = new Map()));
  const key = `${params.exchange}|${params.timeframe}|${params.start ?? ""}|${params.end ?? ""}|${params.limit}`;
  const cached = entries.get(key);
  if (cached?.generation === generation) {
    // Most recently used last: the oldest entry is the one dropped.
    entries.delete(key);
    entries.set(key, cached);
    return cached.answer;
  }
  const page = await store.candles(params.exchange, params.timeframe, { ...params, offset: 0 });
  const candles = page.items.reverse();
  let answer: IndicatorAnswer;
  if (candles.length < MIN_INDICATOR_CANDLES) answer = { found: candles.length };
  else {
    try {
      answer = {
        candlesLoaded: candles.length,
        points: (snakeCaseKeys(indicatorSeries(candles)) as Array<Record<string, unknown>>).reverse(),
        firstTime: candles[0].time,
        lastTime: candles[candles.length - 1].time,
      };
    } catch (err) {
      if (!(err instanceof InsufficientCandlesError)) throw err;
      answer = { found: candles.length };
    }
  }
  entries.delete(key);
  entries.set(key, { generation, answer });
  if (entries.size > INDICATOR_CACHE_ENTRIES) entries.delete(entries.keys().next().value!);
  return answer;
}

export const historyIndicators = jsonEndpoint({
  path: "/v1/history/indicators",
  price: PRICE,
  summary: "Indicators over recorded candles",
  description: `The indicator series (RSI, MACD, Bollinger, ATR, EMAs, VWAP) over the newest \`limit\` recorded candles in [start, end), newest first. Needs at least ${MIN_INDICATOR_CANDLES} candles: a window holding fewer answers 422 with error code \`insufficient_candles\` naming how many it found.`,
  params: z
    .object({
      timeframe: timeframeParam,
      start: startParam,
      end: endParam,
      limit: z.coerce
        .number()
        .int()
        .min(MIN_INDICATOR_CANDLES)
        .max(1000)
        .default(200)
        .describe(`Most candles to load (the newest in the window), ${MIN_INDICATOR_CANDLES}–1000, default 200`),
      exchange: exchangeParam,
    })
    .strict()
    .superRefine(windowIsOrdered),
  response: z.object({
    exchange: z.string(),
    timeframe: z.enum(HISTORY_TIMEFRAMES),
    candles_loaded: z.number().int(),
    points: z
      .array(
        z.object({
          time: z.string().describe("The candle's open time"),
          close: z.number(),
          rsi_14: z.number().nullable().describe("RSI(14), Wilder; null while warming up (first 14 candles)"),
          macd: z.object({ macd: z.number(), signal: z.number(), histogram: z.number() }).nullable().describe("MACD(12, 26, 9)"),
          bollinger: z.object({ upper: z.number(), middle: z.number(), lower: z.number() }).nullable().describe("Bollinger(20, 2σ)"),
          atr_14: z.number().nullable(),
          ema_20: z.number().nullable(),
          ema_50: z.number().nullable(),
          ema_200: z.number().nullable(),
          vwap: z.number().nullable().describe("Session VWAP (restarts at UTC midnight on intraday candles)"),
        }),
      )
      .describe("One reading per candle, newest first; null until an indicator has warmed up"),
    meta: responseMetaSchema,
  }),
  example: { timeframe: "1h", limit: "200", exchange: "binance" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const series = await indicatorAnswer(deps.store, params);
    if ("found" in series)
      return errorAnswer(
        422,
        "insufficient_candles",
        `Indicators need at least ${MIN_INDICATOR_CANDLES} candles; ${series.found} ${params.timeframe} candle(s) of ${params.exchange} are recorded` +
          `${params.start !== undefined ? ` from ${iso(params.start)}` : ""}${params.end !== undefined ? ` before ${iso(params.end)}` : ""}. Widen start/end.`,
        { field: params.start !== undefined ? "start" : "end", candles: series.found, required: MIN_INDICATOR_CANDLES },
      );
    return {
      body: {
        exchange: params.exchange,
        timeframe: params.timeframe,
        candles_loaded: series.candlesLoaded,
        points: series.points,
        meta: responseMeta(deps.source, {
          order: "newest_first",
          start: isoOrNull(params.start),
          end: isoOrNull(params.end),
          first_candle: iso(series.firstTime),
          last_candle: iso(series.lastTime),
        }),
      },
    };
  },
});

// ---- /v1/history/order-book-walls --------------------------------------------------------------

export const historyOrderBookWalls = jsonEndpoint({
  path: "/v1/history/order-book-walls",
  price: PRICE,
  summary: "Recorded order-book wall snapshots",
  description: `Snapshots of the confirmed walls on the five spot venues (one every 5 minutes, kept ${DEFAULT_RETENTION.snapshots} days), newest first, paged with limit/offset over [start, end). Each wall names its venue.`,
  params: z
    .object({
      symbol: z.enum([SPOT_SYMBOL]).default(SPOT_SYMBOL).describe(`Spot pair across the five venues; only ${SPOT_SYMBOL}. Default ${SPOT_SYMBOL}.`),
      start: startParam,
      end: endParam,
      limit: limitParam(200, 12),
      offset: offsetParam,
    })
    .strict()
    .superRefine(windowIsOrdered),
  response: z.object({
    symbol: z.string(),
    snapshots: z
      .array(
        z.object({
          time: z.string(),
          wall_count: z.number().int(),
          walls: z.array(
            z
              .object({
                id: z.string(),
                venue: z.string(),
                side: z.enum(["bid", "ask"]),
                price: z.number(),
                size: z.number().describe("BTC"),
                value_usd: z.number(),
                first_seen: z.string(),
                last_seen: z.string(),
                confirmed: z.boolean(),
              })
              .catchall(z.unknown()),
          ),
        }),
      )
      .describe("Newest first"),
    meta: pageMetaSchema,
  }),
  example: { symbol: SPOT_SYMBOL, limit: "12" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const page = await deps.store.wallSnapshots(params.symbol, params);
    return {
      body: {
        symbol: params.symbol,
        snapshots: page.items.map((s) => ({ time: iso(s.time), wall_count: s.wallCount, walls: s.walls })),
        meta: pageMeta(deps.source, params, page),
      },
    };
  },
});

// ---- /v1/history/snapshots ---------------------------------------------------------------------

export const historySnapshots = jsonEndpoint({
  path: "/v1/history/snapshots",
  price: PRICE,
  summary: "Recorded source snapshots",
  description: `Readings of the other sources (every 15 minutes, kept ${DEFAULT_RETENTION.snapshots} days): ${SNAPSHOT_SOURCES.join(", ")}. Newest first, paged with limit/offset over [start, end); without \`source\`, all sources interleaved by time. A reading the upstream could not give is stored with \`available: false\` and its reason.`,
  params: z
    .object({
      source: z
        .enum(SNAPSHOT_SOURCES)
        .optional()
        .describe(`One source: ${SNAPSHOT_SOURCES.join(", ")}. Default: all of them.`),
      start: startParam,
      end: endParam,
      limit: limitParam(200, 24),
      offset: offsetParam,
    })
    .strict()
    .superRefine(windowIsOrdered),
  response: z.object({
    snapshots: z
      .array(
        z.object({
          source: z.enum(SNAPSHOT_SOURCES),
          time: z.string(),
          available: z.boolean(),
          data: z.unknown().describe("The reading, snake_case, when available; null otherwise"),
          reason: z.string().nullable().describe("Why the reading is unavailable, or null"),
        }),
      )
      .describe("Newest first"),
    meta: pageMetaSchema,
  }),
  example: { source: "derivatives", limit: "24" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const page = await deps.store.sourceSnapshots(params.source ?? null, params);
    return {
      body: {
        snapshots: page.items.map((s) => ({
          source: s.source,
          time: iso(s.time),
          available: s.available,
          data: s.available ? s.payload : null,
          reason: s.available ? null : String((s.payload as { reason?: unknown }).reason ?? "unavailable"),
        })),
        meta: pageMeta(deps.source, params, page, { source_filter: params.source ?? null }),
      },
    };
  },
});

// ---- /v1/history/summary -----------------------------------------------------------------------

const RETURN_WINDOWS = [
  { window: "24h", ms: DAY },
  { window: "7d", ms: 7 * DAY },
  { window: "30d", ms: 30 * DAY },
  { window: "90d", ms: 90 * DAY },
  { window: "365d", ms: 365 * DAY },
] as const;

/** The candle half of a venue's summary: counts over a year of candles, so kept until the candles change. */
async function readCandleSummary(store: HistoryStore, venue: Venue) {
  const coverage = await store.coverage(venue);
  const lastTime = coverage.find((c) => c.timeframe === "1h")?.last ?? null;
  if (lastTime === null) return { coverage, closes: [], range: { high: null, low: null, highTime: null, lowTime: null } };
  const [closes, range] = await Promise.all([
    store.closesAtOrBefore(venue, [lastTime, ...RETURN_WINDOWS.map((w) => lastTime - w.ms)]),
    store.range(venue, lastTime + HOUR - 365 * DAY),
  ]);
  return { coverage, closes, range };
}
type CandleSummary = Awaited<ReturnType<typeof readCandleSummary>>;
const candleSummaries = new WeakMap<HistoryStore, Map<Venue, { generation: number; summary: CandleSummary }>>();

async function candleSummary(store: HistoryStore, venue: Venue): Promise<CandleSummary> {
  const generation = await store.candleGeneration();
  let byVenue = candleSummaries.get(store);
  if (!byVenue) candleSummaries.set(store, (byVenue = new Map()));
  const cached = byVenue.get(venue);
  if (cached?.generation === generation) return cached.summary;
  const summary = await readCandleSummary(store, venue);
  byVenue.set(venue, { generation, summary });
  return summary;
}

export const historySummary = jsonEndpoint({
  path: "/v1/history/summary",
  price: PRICE,
  summary: "What the history holds for one venue",
  description:
    "Coverage per timeframe (count, expected, completeness, first and last candle), the high and low of the last 365 days, the last close and its returns over 24h, 7d, 30d, 90d and 365d, and per snapshot kind its first and last snapshot and how many the last 24 hours hold.",
  params: z.object({ exchange: exchangeParam }).strict(),
  response: z.object({
    exchange: z.string(),
    coverage: z.array(
      z.object({
        timeframe: z.enum(HISTORY_TIMEFRAMES),
        count: z.number().int(),
        expected: z.number().int().describe("Candles between the first and the last, had none been missed"),
        completeness: z.number().nullable().describe("count / expected, 0–1; null when empty"),
        first: z.string().nullable(),
        last: z.string().nullable(),
      }),
    ),
    year: z.object({ high: z.number().nullable(), high_time: z.string().nullable(), low: z.number().nullable(), low_time: z.string().nullable() }),
    last_close: z.number().nullable(),
    last_candle: z.string().nullable().describe("Open time of the newest 1h candle"),
    returns: z.array(
      z.object({
        window: z.enum(RETURN_WINDOWS.map((w) => w.window) as ["24h", "7d", "30d", "90d", "365d"]),
        from_time: z.string().nullable(),
        from_close: z.number().nullable(),
        return_pct: z.number().nullable().describe("Last close vs the close that far back, percent; null without history that old"),
      }),
    ),
    snapshots: z
      .array(
        z.object({
          kind: z.enum(["heatmap", "walls", "source"]),
          key: z.string().describe("The heatmap's or walls' symbol, or the source's name"),
          first: z.string().nullable(),
          last: z.string().nullable(),
          count_24h: z.number().int().describe("Snapshots taken in the last 24 hours"),
        }),
      )
      .describe("What the recorder has snapshotted: one row per heatmap symbol, wall symbol and source"),
    retention_days: z.object({ candles_1h: z.number(), candles_4h: z.number(), candles_1d: z.number(), snapshots: z.number(), states: z.number() }),
    meta: responseMetaSchema,
  }),
  example: { exchange: "binance" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const venue = params.exchange;
    const [{ coverage, closes, range }, snapshots] = await Promise.all([
      candleSummary(deps.store, venue),
      deps.store.snapshotCoverage({ heatmap: [PERP_SYMBOL], walls: [SPOT_SYMBOL], source: [...SNAPSHOT_SOURCES] }, deps.source.now() - DAY),
    ]);
    const lastTime = coverage.find((c) => c.timeframe === "1h")?.last ?? null;
    const lastClose = closes[0]?.close ?? null;
    return {
      body: {
        exchange: venue,
        coverage: coverage.map((c) => {
          const expected = c.first === null || c.last === null ? 0 : Math.round((c.last - c.first) / TIMEFRAME_MS[c.timeframe]) + 1;
          return {
            timeframe: c.timeframe,
            count: c.count,
            expected,
            completeness: expected ? Number((c.count / expected).toFixed(4)) : null,
            first: isoOrNull(c.first),
            last: isoOrNull(c.last),
          };
        }),
        year: { high: range.high, high_time: isoOrNull(range.highTime), low: range.low, low_time: isoOrNull(range.lowTime) },
        last_close: lastClose,
        last_candle: isoOrNull(lastTime),
        returns: RETURN_WINDOWS.map((w, i) => {
          const past = closes[i + 1];
          // A close only counts when the history reaches that far back (not merely its oldest candle).
          const valid = lastClose !== null && past?.close != null && past.time !== null && lastTime !== null && lastTime - past.time >= w.ms - HOUR;
          return {
            window: w.window,
            from_time: valid ? iso(past.time!) : null,
            from_close: valid ? past.close : null,
            return_pct: valid ? Number(((lastClose / past.close! - 1) * 100).toFixed(4)) : null,
          };
        }),
        snapshots: snapshots.map((s) => ({ kind: s.kind, key: s.key, first: isoOrNull(s.first), last: isoOrNull(s.last), count_24h: s.recent })),
        retention_days: {
          candles_1h: DEFAULT_RETENTION.candles["1h"],
          candles_4h: DEFAULT_RETENTION.candles["4h"],
          candles_1d: DEFAULT_RETENTION.candles["1d"],
          snapshots: DEFAULT_RETENTION.snapshots,
          states: DEFAULT_RETENTION.states,
        },
        meta: responseMeta(deps.source),
      },
    };
  },
});

// ---- /v1/history/analogs -----------------------------------------------------------------------

export const ANALOG_REGIMES = [...TRENDS, "any"] as const;

/** The venue whose hours the analog search reads: the first-party default venue. */
const ANALOG_VENUE = DEFAULT_VENUE;
/** One in-memory analog series per store (the origin has one store). */
const analogSeries = new WeakMap<HistoryStore, AnalogSeries>();
function analogSeriesOf(store: HistoryStore): AnalogSeries {
  let series = analogSeries.get(store);
  if (!series) analogSeries.set(store, (series = new AnalogSeries(store, ANALOG_VENUE)));
  return series;
}

export const historyAnalogs = jsonEndpoint({
  path: "/v1/history/analogs",
  price: PRICE,
  summary: "Past hours like these, and what followed",
  description:
    `Finds recorded hours (binance 1h closes) whose trend regime, RSI(14) and fear & greed match the filters, keeps the non-overlapping ones (a streak of matching hours counts once, from its first hour: no two analogs share an hour of what followed), and reports for each what followed over horizon_hours: return, max drawdown and max run-up in percent of the hour's close; plus the median, mean, hit rate (share with a positive return) and extremes over the newest ${MAX_ANALOG_SAMPLE} matches. ` +
    "The regime is the hour's trend: bullish when EMA(20) of the 1h closes is more than 0.25 % above EMA(50), bearish when more than 0.25 % below, neutral between; `any` skips the filter.",
  params: z
    .object({
      regime: z.enum(ANALOG_REGIMES).default("neutral").describe("Trend regime to match: bullish, neutral, bearish or any. Default neutral."),
      rsi_min: z.coerce.number().min(0).max(100).optional().describe("Lowest RSI(14) to match, 0–100, e.g. 25"),
      rsi_max: z.coerce.number().min(0).max(100).optional().describe("Highest RSI(14) to match, 0–100, e.g. 35"),
      fg_min: z.coerce.number().int().min(0).max(100).optional().describe("Lowest fear & greed to match, integer 0–100, e.g. 10"),
      fg_max: z.coerce.number().int().min(0).max(100).optional().describe("Highest fear & greed to match, integer 0–100, e.g. 30"),
      limit: limitParam(100, 20).describe("Matches listed (the newest), 1–100, default 20; the aggregates cover every match"),
      horizon_hours: z.coerce.number().int().min(1).max(720).default(24).describe("Hours after each match to measure, 1–720, default 24"),
    })
    .strict()
    .superRefine((params, ctx) => {
      rangeIsOrdered(params, "rsi_min", "rsi_max", ctx);
      rangeIsOrdered(params, "fg_min", "fg_max", ctx);
    }),
  response: z.object({
    regime: z.enum(ANALOG_REGIMES),
    horizon_hours: z.number().int(),
    filters: z.object({ rsi_min: z.number().nullable(), rsi_max: z.number().nullable(), fg_min: z.number().nullable(), fg_max: z.number().nullable() }),
    matching_hours: z.number().int().describe("Hours matching the filters whose horizon has passed, overlapping or not"),
    aggregates: z.object({
      count: z.number().int().describe(`Non-overlapping matches measured (the newest ${MAX_ANALOG_SAMPLE} at most)`),
      median_return_pct: z.number().nullable(),
      mean_return_pct: z.number().nullable(),
      hit_rate: z.number().nullable().describe("Share of matches with a positive return, 0–1"),
      best_return_pct: z.number().nullable(),
      worst_return_pct: z.number().nullable(),
      median_max_drawdown_pct: z.number().nullable(),
      median_max_runup_pct: z.number().nullable(),
    }),
    matches: z
      .array(
        z.object({
          time: z.string().describe("Open time of the matching hour"),
          close: z.number(),
          rsi: z.number().nullable(),
          fear_greed: z.number().nullable(),
          trend: z.enum(TRENDS),
          exit_time: z.string(),
          exit_close: z.number(),
          return_pct: z.number(),
          max_drawdown_pct: z.number(),
          max_runup_pct: z.number(),
        }),
      )
      .describe("Newest first"),
    meta: responseMetaSchema,
  }),
  example: { regime: "bearish", rsi_min: "0", rsi_max: "35", fg_max: "30", limit: "10", horizon_hours: "24" },
  async handle(deps: HistoryDeps, params, request) {
    if (request.probe) return probeAnswer;
    const series = analogSeriesOf(deps.store);
    await series.refresh();
    const horizonMs = params.horizon_hours * HOUR;
    const candidates = series.matchingHours({
      trend: params.regime === "any" ? null : params.regime,
      rsiMin: params.rsi_min,
      rsiMax: params.rsi_max,
      fgMin: params.fg_min,
      fgMax: params.fg_max,
      horizonHours: params.horizon_hours,
    });
    const hours = new Map(candidates.map((hour) => [hour.time, hour]));
    const picked = pickNonOverlapping(
      candidates.map((hour) => hour.time),
      horizonMs,
    );
    // An hour whose horizon has a gap in the recorded candles is not measured.
    const matches = picked.flatMap((time) => {
      const outcome = series.outcome(time, params.horizon_hours);
      return outcome ? [analogMatch(outcome)] : [];
    });
    const listed = matches.slice(0, params.limit);
    const aggregates = aggregateAnalogs(matches);
    return {
      body: {
        regime: params.regime,
        horizon_hours: params.horizon_hours,
        filters: { rsi_min: params.rsi_min ?? null, rsi_max: params.rsi_max ?? null, fg_min: params.fg_min ?? null, fg_max: params.fg_max ?? null },
        matching_hours: candidates.length,
        aggregates: {
          count: aggregates.count,
          median_return_pct: aggregates.medianReturnPct,
          mean_return_pct: aggregates.meanReturnPct,
          hit_rate: aggregates.hitRate,
          best_return_pct: aggregates.bestReturnPct,
          worst_return_pct: aggregates.worstReturnPct,
          median_max_drawdown_pct: aggregates.medianMaxDrawdownPct,
          median_max_runup_pct: aggregates.medianMaxRunupPct,
        },
        matches: listed.map((m) => {
          const hour = hours.get(m.time)!;
          return {
            time: iso(m.time),
            close: m.entryClose,
            rsi: hour.rsi,
            fear_greed: hour.fearGreed,
            trend: hour.trend,
            exit_time: iso(m.time + horizonMs),
            exit_close: m.exitClose,
            return_pct: m.returnPct,
            max_drawdown_pct: m.maxDrawdownPct,
            max_runup_pct: m.maxRunupPct,
          };
        }),
        meta: responseMeta(deps.source, { venue: series.venue, latest_candle: isoOrNull(series.latestCandle) }),
      },
    };
  },
});

/** The seven history endpoints, in the spec table's order. */
export const historyEndpoints = [historyAnalogs, historyCandles, historyHeatmaps, historyIndicators, historyOrderBookWalls, historySnapshots, historySummary];
