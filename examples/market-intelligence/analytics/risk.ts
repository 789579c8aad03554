// The risk readings of /v1/risk/anomalies and /v1/risk/manipulation, from the five venues' tickers,
// books, walls and hourly candles. A figure the source cannot give (its call fails, as the live
// adapters' do when throttled) is reported as an unavailable input and lowers `data_completeness`;
// with too little of it the manipulation risk is UNKNOWN, never LOW. Rules: docs/market-verdict.md
// ("Risk readings"). Statistics (mean, population deviation, median, correlation) are trading-signals'.
import { getAverage, getCorrelation, getMedian, getStandardDeviation } from "trading-signals";
import { VENUES, type Candle, type MarketSource, type OrderBook, type OrderBookWall, type Ticker, type Venue } from "../model/types.ts";
import { round } from "./technical.ts";

/** |z| at or above this is notable, at or above HIGH_Z high. */
export const NOTABLE_Z = 2;
export const HIGH_Z = 3;
/** Hourly candles a venue's volume and return are compared against. */
export const ANOMALY_LOOKBACK = 48;
/** Deviation floors (bps of price): five venues a few bps apart should not read as 10σ events. */
const PRICE_SD_FLOOR_BPS = 1;
const SPREAD_SD_FLOOR_BPS = 0.5;

export type RiskLevel = "LOW" | "MODERATE" | "ELEVATED" | "HIGH" | "UNKNOWN";
/** Below this share of inputs the manipulation risk is UNKNOWN. */
export const MIN_MANIPULATION_COMPLETENESS = 0.6;

type Settled<T> = { ok: true; value: T } | { ok: false; reason: string };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

// ---- anomalies -------------------------------------------------------------------------------

export interface VenueReading {
  venue: Venue;
  available: boolean;
  reason?: string;
  price: number | null;
  deviation_bps: number | null;
  price_z: number | null;
  spread_bps: number | null;
  spread_z: number | null;
  volume_1h: number | null;
  volume_z: number | null;
  return_1h_pct: number | null;
  return_z: number | null;
}

export interface Anomaly {
  venue: Venue;
  kind: "price" | "spread" | "volume" | "return";
  z_score: number;
  severity: "notable" | "high";
  description: string;
}

export interface AnomalyReport {
  exchange: Venue;
  focus: VenueReading;
  venues: VenueReading[];
  anomalies: Anomaly[];
  thresholds: { notable_z: number; high_z: number; lookback_hours: number };
  data_completeness: number;
}

/**
 * Per venue: price and spread against the other venues (leave-one-out z-scores, so one venue off
 * the pack stands out however few venues there are), and the last hourly candle's volume and return
 * against the venue's previous 48 (z-scores). |z| ≥ 2 is notable, ≥ 3 high.
 */
export async function anomalyReport(source: MarketSource, exchange: Venue): Promise<AnomalyReport> {
  const tickers = await Promise.all(VENUES.map((venue) => settle(source.ticker(venue))));
  const candles = await Promise.all(VENUES.map((venue) => settle(source.candles(venue, "1h", { limit: ANOMALY_LOOKBACK + 2 }))));
  const priced = VENUES.flatMap((venue, index) => (tickers[index].ok ? [{ venue, ticker: (tickers[index] as { value: Ticker }).value }] : []));

  const venues: VenueReading[] = VENUES.map((venue, index) => {
    const ticker = tickers[index];
    const series = candles[index];
    const history = series.ok ? hourlyStats(series.value) : null;
    if (!ticker.ok) {
      return {
        venue,
        available: false,
        reason: ticker.reason,
        price: null,
        deviation_bps: null,
        price_z: null,
        spread_bps: null,
        spread_z: null,
        ...volumeFields(history),
      };
    }
    const { price } = ticker.value;
    const others = priced.filter((entry) => entry.venue !== venue);
    const otherPrices = others.map((entry) => entry.ticker.price);
    const otherSpreads = others.map((entry) => spreadBps(entry.ticker));
    return {
      venue,
      available: true,
      price,
      deviation_bps: otherPrices.length ? round(((price - getMedian(otherPrices)) / getMedian(otherPrices)) * 10_000, 2) : null,
      price_z: otherPrices.length >= 2 ? round(leaveOneOutZ(price, otherPrices, (PRICE_SD_FLOOR_BPS / 10_000) * price), 2) : null,
      spread_bps: round(spreadBps(ticker.value), 3),
      spread_z: otherSpreads.length >= 2 ? round(leaveOneOutZ(spreadBps(ticker.value), otherSpreads, SPREAD_SD_FLOOR_BPS), 2) : null,
      ...volumeFields(history),
    };
  });

  const anomalies: Anomaly[] = [];
  for (const reading of venues) {
    const flag = (kind: Anomaly["kind"], z: number | null, describe: (z: number) => string) => {
      if (z === null || Math.abs(z) < NOTABLE_Z) return;
      anomalies.push({ venue: reading.venue, kind, z_score: z, severity: Math.abs(z) >= HIGH_Z ? "high" : "notable", description: describe(z) });
    };
    flag(
      "price",
      reading.price_z,
      (z) => `${reading.venue} trades ${Math.abs(reading.deviation_bps ?? 0).toFixed(1)} bps ${z > 0 ? "above" : "below"} the other venues`,
    );
    flag("spread", reading.spread_z, (z) => `${reading.venue}'s spread of ${reading.spread_bps} bps is ${z > 0 ? "wider" : "tighter"} than the other venues'`);
    flag("volume", reading.volume_z, (z) => `${reading.venue}'s last-hour volume is ${z > 0 ? "far above" : "far below"} its ${ANOMALY_LOOKBACK}-hour norm`);
    flag(
      "return",
      reading.return_z,
      (z) => `${reading.venue}'s last-hour move of ${reading.return_1h_pct}% is ${Math.abs(z).toFixed(1)}σ of its ${ANOMALY_LOOKBACK}-hour norm`,
    );
  }
  anomalies.sort((a, b) => Math.abs(b.z_score) - Math.abs(a.z_score));
  const inputs = tickers.length + candles.length;
  const available = tickers.filter((t) => t.ok).length + candles.filter((c) => c.ok && c.value.length > ANOMALY_LOOKBACK).length;
  return {
    exchange,
    focus: venues.find((reading) => reading.venue === exchange)!,
    venues,
    anomalies,
    thresholds: { notable_z: NOTABLE_Z, high_z: HIGH_Z, lookback_hours: ANOMALY_LOOKBACK },
    data_completeness: round(available / inputs, 3)!,
  };
}

function spreadBps(ticker: Ticker): number {
  const mid = (ticker.bid + ticker.ask) / 2;
  return mid > 0 ? ((ticker.ask - ticker.bid) / mid) * 10_000 : 0;
}

function leaveOneOutZ(value: number, others: number[], floor: number): number {
  const mean = getAverage(others);
  return (value - mean) / Math.max(getStandardDeviation(others, mean), floor);
}

/** The last candle's volume and return as z-scores against the previous ANOMALY_LOOKBACK candles. */
function hourlyStats(candles: Candle[]): { volume: number; volumeZ: number; returnPct: number; returnZ: number } | null {
  if (candles.length < ANOMALY_LOOKBACK + 2) return null;
  const recent = candles.slice(-(ANOMALY_LOOKBACK + 2));
  const returns = recent.slice(1).map((candle, index) => (candle.close - recent[index].close) / recent[index].close);
  const volumes = recent.slice(1).map((candle) => candle.volume);
  const z = (values: number[], floor: number) => {
    const before = values.slice(0, -1);
    const mean = getAverage(before);
    return (values[values.length - 1] - mean) / Math.max(getStandardDeviation(before, mean), floor);
  };
  return {
    volume: volumes[volumes.length - 1],
    volumeZ: z(volumes, 0.01 * getAverage(volumes.slice(0, -1)) || 1e-9),
    returnPct: returns[returns.length - 1] * 100,
    returnZ: z(returns, 1e-5),
  };
}

function volumeFields(stats: ReturnType<typeof hourlyStats>) {
  return {
    volume_1h: stats ? round(stats.volume, 4) : null,
    volume_z: stats ? round(stats.volumeZ, 2) : null,
    return_1h_pct: stats ? round(stats.returnPct, 4) : null,
    return_z: stats ? round(stats.returnZ, 2) : null,
  };
}

// ---- manipulation ----------------------------------------------------------------------------

export interface ManipulationSignal {
  name: "spoofing" | "wash_volume" | "cross_venue_divergence";
  /** 0 (no sign) … 1 (strong sign); null when its inputs are missing. */
  score: number | null;
  details: Record<string, number | string | null>;
  description: string;
}

export interface ManipulationReport {
  exchange: Venue;
  risk_level: RiskLevel;
  score: number | null;
  data_completeness: number;
  signals: ManipulationSignal[];
  inputs: Array<{ name: string; available: boolean; reason?: string }>;
}

/** Walls seen within this window count towards spoofing. */
export const SPOOF_WINDOW_MS = 3_600_000;
/** A wall pulled within this long of appearing is spoofing-like. */
export const SPOOF_LIFETIME_MS = 5 * 60_000;
/** Depth is the book's size within this fraction of the mid. */
const DEPTH_BAND = 0.01;

/**
 * Three signs, each scored 0–1 (docs/market-verdict.md):
 * - spoofing: the share of the venue's wall value (seen in the last hour) pulled within 5 minutes of appearing;
 * - wash volume: the venue's share of 24-hour volume against its share of book depth within 1 % of
 *   the mid (a ratio of 1.5 scores 0, 3 or more scores 1), plus up to 0.3 when hourly volume and
 *   |return| over the last day move against each other (negative correlation);
 * - cross-venue divergence: |deviation| from the other venues' median price, 10 bps scores 0, 50 bps 1.
 * The score is the highest sign; risk_level LOW < 0.25 ≤ MODERATE < 0.5 ≤ ELEVATED < 0.75 ≤ HIGH,
 * and UNKNOWN when fewer than 60 % of the inputs could be read (then never LOW).
 */
export async function manipulationReport(source: MarketSource, exchange: Venue): Promise<ManipulationReport> {
  const now = source.now();
  const [walls, books, tickers, candles] = await Promise.all([
    settle(source.orderBookWalls({ venue: exchange, includeCandidates: true })),
    Promise.all(VENUES.map((venue) => settle(source.orderBook(venue, 200)))),
    Promise.all(VENUES.map((venue) => settle(source.ticker(venue)))),
    settle(source.candles(exchange, "1h", { limit: 25 })),
  ]);
  const focus = VENUES.indexOf(exchange);
  const okTickers = VENUES.flatMap((venue, index) => (tickers[index].ok ? [{ venue, ticker: (tickers[index] as { value: Ticker }).value }] : []));
  const okBooks = VENUES.flatMap((venue, index) => (books[index].ok ? [{ venue, book: (books[index] as { value: OrderBook }).value }] : []));
  const otherTickers = okTickers.filter((entry) => entry.venue !== exchange);
  const inputs = [
    input("order_book_walls", walls),
    input(`order_book:${exchange}`, books[focus]),
    input(`ticker:${exchange}`, tickers[focus]),
    input(`candles_1h:${exchange}`, candles.ok && candles.value.length < 13 ? { ok: false, reason: "fewer than 13 hourly candles" } : candles),
    {
      name: "order_books:other_venues",
      available: okBooks.filter((entry) => entry.venue !== exchange).length >= 2,
      ...(okBooks.filter((entry) => entry.venue !== exchange).length >= 2 ? {} : { reason: "fewer than two other venues' books" }),
    },
    {
      name: "tickers:other_venues",
      available: otherTickers.length >= 2,
      ...(otherTickers.length >= 2 ? {} : { reason: "fewer than two other venues' tickers" }),
    },
  ];
  // Each input counts fully; the other venues' figures count by the share of venues read.
  const completeness =
    (inputs.slice(0, 4).filter((entry) => entry.available).length +
      okBooks.filter((entry) => entry.venue !== exchange).length / (VENUES.length - 1) +
      otherTickers.length / (VENUES.length - 1)) /
    inputs.length;

  const signals: ManipulationSignal[] = [
    spoofingSignal(walls.ok ? walls.value : null, now),
    washSignal(exchange, okTickers, okBooks, candles.ok ? candles.value : null),
    divergenceSignal(
      tickers[focus].ok ? (tickers[focus] as { value: Ticker }).value : null,
      otherTickers.map((entry) => entry.ticker.price),
    ),
  ];
  const scored = signals.filter((signal) => signal.score !== null).map((signal) => signal.score!);
  const score = scored.length ? Math.max(...scored) : null;
  const riskLevel: RiskLevel = completeness < MIN_MANIPULATION_COMPLETENESS || score === null ? "UNKNOWN" : levelOf(score);
  return { exchange, risk_level: riskLevel, score: round(score, 3), data_completeness: round(completeness, 3)!, signals, inputs };
}

export function levelOf(score: number): Exclude<RiskLevel, "UNKNOWN"> {
  return score < 0.25 ? "LOW" : score < 0.5 ? "MODERATE" : score < 0.75 ? "ELEVATED" : "HIGH";
}

function input(name: string, settled: Settled<unknown>) {
  return settled.ok ? { name, available: true } : { name, available: false, reason: settled.reason };
}

function spoofingSignal(walls: OrderBookWall[] | null, now: number): ManipulationSignal {
  if (!walls) return { name: "spoofing", score: null, details: {}, description: "order-book walls unavailable" };
  const recent = walls.filter((wall) => (wall.endedAt ?? wall.lastSeen) >= now - SPOOF_WINDOW_MS);
  const total = recent.reduce((sum, wall) => sum + wall.valueUsd, 0);
  const spoofed = recent.filter((wall) => wall.endReason === "pulled" && wall.endedAt !== undefined && wall.endedAt - wall.firstSeen < SPOOF_LIFETIME_MS);
  const spoofedValue = spoofed.reduce((sum, wall) => sum + wall.valueUsd, 0);
  const active = recent.filter((wall) => wall.endedAt === undefined);
  const bid = active.filter((wall) => wall.side === "bid").reduce((sum, wall) => sum + wall.valueUsd, 0);
  const ask = active.filter((wall) => wall.side === "ask").reduce((sum, wall) => sum + wall.valueUsd, 0);
  const share = total > 0 ? spoofedValue / total : 0;
  return {
    name: "spoofing",
    score: round(share, 3),
    details: {
      walls_last_hour: recent.length,
      pulled_quickly: spoofed.length,
      pulled_quickly_usd: round(spoofedValue, 0),
      active_bid_usd: round(bid, 0),
      active_ask_usd: round(ask, 0),
    },
    description: recent.length
      ? `${spoofed.length} of ${recent.length} walls seen in the last hour were pulled within ${SPOOF_LIFETIME_MS / 60_000} minutes (${(share * 100).toFixed(0)} % of wall value)`
      : "no walls in the last hour",
  };
}

function washSignal(
  exchange: Venue,
  tickers: Array<{ venue: Venue; ticker: Ticker }>,
  books: Array<{ venue: Venue; book: OrderBook }>,
  candles: Candle[] | null,
): ManipulationSignal {
  const own = tickers.find((entry) => entry.venue === exchange);
  const ownBook = books.find((entry) => entry.venue === exchange);
  if (!own || !ownBook || tickers.length < 3 || books.length < 3) {
    return { name: "wash_volume", score: null, details: {}, description: "too few venues' tickers and books to compare volume with depth" };
  }
  const volumeShare = own.ticker.volume24h / tickers.reduce((sum, entry) => sum + entry.ticker.volume24h, 0);
  const depths = books.map((entry) => depthNearMid(entry.book));
  const depthShare = depthNearMid(ownBook.book) / depths.reduce((sum, depth) => sum + depth, 0);
  const ratio = depthShare > 0 ? volumeShare / depthShare : Number.POSITIVE_INFINITY;
  const ratioScore = Math.max(0, Math.min(1, (ratio - 1.5) / 1.5));
  let correlation: number | null = null;
  if (candles && candles.length >= 13) {
    const moves = candles.slice(1).map((candle, index) => Math.abs(candle.close - candles[index].close));
    const volumes = candles.slice(1).map((candle) => candle.volume);
    const value = getCorrelation(volumes, moves);
    correlation = Number.isFinite(value) ? value : null;
  }
  const correlationScore = correlation === null ? 0 : 0.3 * Math.max(0, -correlation);
  const score = Math.min(1, ratioScore + correlationScore);
  return {
    name: "wash_volume",
    score: round(score, 3),
    details: {
      volume_share: round(volumeShare, 4),
      depth_share: round(depthShare, 4),
      volume_to_depth_ratio: round(ratio, 3),
      volume_move_correlation: round(correlation, 3),
    },
    description: `${exchange} carries ${(volumeShare * 100).toFixed(1)} % of the venues' 24-hour volume with ${(depthShare * 100).toFixed(1)} % of their depth within 1 % of the mid`,
  };
}

function divergenceSignal(ticker: Ticker | null, others: number[]): ManipulationSignal {
  if (!ticker || others.length < 2) return { name: "cross_venue_divergence", score: null, details: {}, description: "too few venues' prices to compare" };
  const median = getMedian(others);
  const bps = ((ticker.price - median) / median) * 10_000;
  const score = Math.max(0, Math.min(1, (Math.abs(bps) - 10) / 40));
  return {
    name: "cross_venue_divergence",
    score: round(score, 3),
    details: { deviation_bps: round(bps, 2), other_venues_median: round(median, 2) },
    description: `${Math.abs(bps).toFixed(1)} bps ${bps >= 0 ? "above" : "below"} the other venues' median price`,
  };
}

function depthNearMid(book: OrderBook): number {
  const bestBid = book.bids[0]?.price;
  const bestAsk = book.asks[0]?.price;
  if (bestBid === undefined || bestAsk === undefined) return 0;
  const mid = (bestBid + bestAsk) / 2;
  const within = (levels: OrderBook["bids"]) =>
    levels.filter((level) => Math.abs(level.price - mid) <= DEPTH_BAND * mid).reduce((sum, level) => sum + level.size, 0);
  return within(book.bids) + within(book.asks);
}
