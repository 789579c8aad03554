// The market model's vocabulary: what every endpoint, the verdict, the history recorder and the two
// streams read, whichever source produced it. A `MarketSource` is either the seeded simulation (the
// embedded default: these machines reach no exchange) or the live adapters over public, key-less
// APIs. Both answer in these shapes, so nothing downstream knows or cares which one is running,
// except the `source` every response's meta carries.
//
// Units are fixed here and nowhere else: prices in USD, sizes in BTC, times in epoch milliseconds
// (UTC), rates as fractions (0.0001 = 0.01 %), percentages only where a field name ends in `Pct`.

/** The five spot venues (spec 2 §4.2 rule 1), in the order responses list them. */
export const VENUES = ["binance", "coinbase", "kraken", "bitstamp", "okx"] as const;
export type Venue = (typeof VENUES)[number];
/** The first-party default venue when a request names none: the deepest BTC book of the five. */
export const DEFAULT_VENUE: Venue = "binance";

/** The perpetual and options venues the derivatives endpoints and the liquidation stream read. */
export const DERIVATIVES_VENUE = "binance-futures" as const;
export const OPTIONS_VENUE = "deribit" as const;
/** The perpetual's symbol: liquidations, heatmaps and funding all name it. */
export const PERP_SYMBOL = "BTCUSDT" as const;

export const TIMEFRAMES = ["1m", "1h", "4h", "1d"] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
export const TIMEFRAME_MS: Record<Timeframe, number> = { "1m": 60_000, "1h": 3_600_000, "4h": 14_400_000, "1d": 86_400_000 };

export type SourceKind = "simulated" | "live";

/** A candle; `time` is its open time, aligned to the timeframe. Volume in BTC. */
export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface Ticker {
  venue: Venue;
  time: number;
  price: number;
  bid: number;
  ask: number;
  /** Base volume of the last 24 h, BTC. */
  volume24h: number;
  change24hPct: number;
}

export interface BookLevel {
  price: number;
  size: number;
}

/** Best levels first on both sides. */
export interface OrderBook {
  venue: Venue;
  time: number;
  bids: BookLevel[];
  asks: BookLevel[];
}

/**
 * A large resting order. A candidate becomes `confirmed` once it has rested long enough (the model
 * decides how long and documents it); walls appear, persist and get pulled.
 */
export interface OrderBookWall {
  id: string;
  venue: Venue;
  side: "bid" | "ask";
  price: number;
  size: number;
  valueUsd: number;
  firstSeen: number;
  lastSeen: number;
  confirmed: boolean;
  /** Set once the wall is gone: `pulled` (cancelled before price reached it) or `filled`. */
  endedAt?: number;
  endReason?: "pulled" | "filled";
}

/** Funding of the perpetual: `rate` per 8-hour interval as a fraction. */
export interface FundingRate {
  venue: typeof DERIVATIVES_VENUE;
  symbol: typeof PERP_SYMBOL;
  time: number;
  rate: number;
  nextFundingTime: number;
  markPrice: number;
  indexPrice: number;
}

export interface OpenInterest {
  venue: typeof DERIVATIVES_VENUE;
  symbol: typeof PERP_SYMBOL;
  time: number;
  /** Contracts outstanding, BTC. */
  size: number;
  valueUsd: number;
}

/** A forced liquidation. `BUY` = a short was liquidated; `SELL` = a long was liquidated (spec 2 §2.2). */
export interface Liquidation {
  id: string;
  venue: typeof DERIVATIVES_VENUE;
  symbol: typeof PERP_SYMBOL;
  side: "BUY" | "SELL";
  size: number;
  price: number;
  valueUsd: number;
  time: number;
}

/** What liquidations in a window add up to: USD of longs liquidated (SELL), of shorts (BUY), and how many. */
export interface LiquidationTotals {
  longUsd: number;
  shortUsd: number;
  count: number;
}

/**
 * The totals of `events` (oldest first) as `liquidationTotals` must give them: each side summed in
 * time order from 0, so every source's totals equal these over its own `liquidations` list.
 */
export function totalLiquidations(events: readonly Liquidation[]): LiquidationTotals {
  let longUsd = 0;
  let shortUsd = 0;
  for (const e of events) {
    if (e.side === "SELL") longUsd += e.valueUsd;
    else shortUsd += e.valueUsd;
  }
  return { longUsd, shortUsd, count: events.length };
}

/** Estimated liquidation leverage by price band around the reference price. */
export interface LiquidationHeatmap {
  symbol: typeof PERP_SYMBOL;
  time: number;
  referencePrice: number;
  bucketSizeUsd: number;
  buckets: Array<{ priceLow: number; priceHigh: number; longLiquidationUsd: number; shortLiquidationUsd: number }>;
}

export interface OptionsSummary {
  venue: typeof OPTIONS_VENUE;
  time: number;
  /** At-the-money implied volatility of the front expiry, as a fraction (0.55 = 55 %). */
  atmIv: number;
  /** 25-delta risk reversal: call IV − put IV, fraction. Negative = puts bid. */
  skew25d: number;
  putCallRatio: number;
  openInterestBtc: number;
  /** Per expiry: max pain strike and open interest. */
  expiries: Array<{ expiry: number; maxPain: number; callOpenInterest: number; putOpenInterest: number; atmIv: number }>;
}

export interface CmeBasis {
  time: number;
  contract: string;
  expiry: number;
  futuresPrice: number;
  spotPrice: number;
  basisUsd: number;
  annualizedBasisPct: number;
}

/** An on-chain entity's label (exchange, fund, miner, government, custodian, whale). */
export interface EntityLabel {
  address: string;
  entity: string;
  category: "exchange" | "fund" | "miner" | "government" | "custodian" | "whale";
}

export interface WhaleTransfer {
  txid: string;
  time: number;
  amountBtc: number;
  valueUsd: number;
  from: { address: string; entity: EntityLabel | null };
  to: { address: string; entity: EntityLabel | null };
  /** `exchange_inflow` into an exchange, `exchange_outflow` out of one, otherwise `transfer`. */
  kind: "exchange_inflow" | "exchange_outflow" | "transfer";
}

export interface ExchangeReserve {
  exchange: string;
  time: number;
  reserveBtc: number;
  netflow24hBtc: number;
}

export interface OnchainValuation {
  time: number;
  price: number;
  realizedPrice: number;
  mvrv: number;
  nupl: number;
  /** Supply in profit as a fraction of circulating supply. */
  supplyInProfit: number;
  circulatingSupply: number;
}

export interface MempoolState {
  time: number;
  /** sat/vB */
  fastestFee: number;
  halfHourFee: number;
  hourFee: number;
  economyFee: number;
  minimumFee: number;
  txCount: number;
  vsize: number;
  blockHeight: number;
}

export interface MacroPoint {
  time: number;
  value: number;
}
/** Daily macro series by name (DXY, SPX, GOLD, US10Y, ...). */
export type MacroSeries = Record<string, MacroPoint[]>;

export interface Stablecoin {
  symbol: string;
  time: number;
  supplyUsd: number;
  change7dPct: number;
}

export interface FearGreed {
  time: number;
  /** 0 (extreme fear) … 100 (extreme greed). */
  value: number;
  classification: "Extreme Fear" | "Fear" | "Neutral" | "Greed" | "Extreme Greed";
}

export interface MarketEvent {
  id: string;
  time: number;
  title: string;
  kind: "macro" | "options_expiry" | "futures_expiry" | "protocol" | "earnings" | "other";
  importance: "low" | "medium" | "high";
}

/** Network and ecosystem figures (hashrate, difficulty, Lightning, spot ETF flows). */
export interface EcosystemMetrics {
  time: number;
  hashrateEhs: number;
  difficulty: number;
  blocksToAdjustment: number;
  /** Estimated change of the next difficulty adjustment, percent. */
  nextAdjustmentPct: number;
  lightningCapacityBtc: number;
  lightningNodes: number;
  lightningChannels: number;
  /** Net flow into US spot ETFs over the last day, USD. */
  spotEtfNetFlowUsd: number;
}

/** A figure that may be unavailable upstream (throttled, down): the reason replaces the data, never an error. */
export type Availability<T> = { available: true; data: T } | { available: false; reason: string };

/** The regimes of the simulated price path; the live source infers none and reports null. */
export const REGIMES = ["quiet", "trending_up", "trending_down", "leveraged_rally", "deleveraging", "capitulation"] as const;
export type Regime = (typeof REGIMES)[number];

/** What `candles` accepts: a closed-open window [start, end) and/or the newest `limit`. Oldest first in the answer. */
export interface CandleQuery {
  start?: number;
  end?: number;
  limit?: number;
}

/**
 * The one market behind every endpoint. Everything is async so the live adapters can fetch; the
 * simulation answers from memory. `now()` is the source's clock (injectable in tests).
 */
export interface MarketSource {
  readonly kind: SourceKind;
  now(): number;
  candles(venue: Venue, timeframe: Timeframe, query?: CandleQuery): Promise<Candle[]>;
  ticker(venue: Venue): Promise<Ticker>;
  orderBook(venue: Venue, depth?: number): Promise<OrderBook>;
  /** Active walls (and, when asked, unconfirmed candidates) on one or all venues. */
  orderBookWalls(options?: { venue?: Venue; includeCandidates?: boolean }): Promise<OrderBookWall[]>;
  funding(): Promise<FundingRate>;
  openInterest(): Promise<OpenInterest>;
  /** Liquidations in [since, until), oldest first. */
  liquidations(since: number, until?: number): Promise<Liquidation[]>;
  /**
   * `totalLiquidations(await liquidations(since, until))` without listing them (optional: the
   * simulated source sums its day of events in place; callers fall back to the list).
   */
  liquidationTotals?(since: number, until?: number): Promise<LiquidationTotals>;
  /** Live liquidations as they happen; returns the unsubscribe function. */
  onLiquidation(listener: (event: Liquidation) => void): () => void;
  liquidationHeatmap(): Promise<LiquidationHeatmap>;
  options(): Promise<Availability<OptionsSummary>>;
  cmeBasis(): Promise<Availability<CmeBasis>>;
  exchangeReserves(): Promise<Availability<ExchangeReserve[]>>;
  whaleTransfers(since: number): Promise<Availability<WhaleTransfer[]>>;
  /** Label of a known address, or null (unknown addresses resolve empty, never an error). */
  entity(address: string): Promise<EntityLabel | null>;
  /** Daily balance of a curated address; `tracked: false` with an empty series outside the corpus. */
  balanceHistory(address: string, days: number): Promise<{ tracked: boolean; points: Array<{ time: number; balanceBtc: number }> }>;
  valuation(): Promise<Availability<OnchainValuation>>;
  mempool(): Promise<Availability<MempoolState>>;
  macro(days: number): Promise<Availability<MacroSeries>>;
  stablecoins(): Promise<Availability<Stablecoin[]>>;
  fearGreed(days: number): Promise<Availability<FearGreed[]>>;
  upcomingEvents(horizonDays: number): Promise<MarketEvent[]>;
  /** Ecosystem figures; a source without them may omit the method (the endpoint then says so). */
  ecosystem?(): Promise<Availability<EcosystemMetrics>>;
  /** The simulation's current regime; null for the live source. */
  regime(): Regime | null;
  /** Stops timers and connections. */
  close(): Promise<void>;
}
