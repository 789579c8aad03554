// A MarketSource over fixed data, for tests: every figure is what the test put in, the clock is
// whatever the test sets, and a figure the test left out answers as the live source would when its
// upstream is down (`available: false` with a reason, or a rejected promise for the figures the
// contract does not wrap in Availability). Tests change the data between calls with `update`.
import type {
  Availability,
  Candle,
  CandleQuery,
  CmeBasis,
  EntityLabel,
  ExchangeReserve,
  FearGreed,
  FundingRate,
  Liquidation,
  LiquidationHeatmap,
  MacroSeries,
  MarketEvent,
  MarketSource,
  MempoolState,
  OnchainValuation,
  OpenInterest,
  OptionsSummary,
  OrderBook,
  OrderBookWall,
  Regime,
  SourceKind,
  Stablecoin,
  Ticker,
  Timeframe,
  Venue,
  WhaleTransfer,
} from "../model/types.ts";
import { TIMEFRAME_MS, VENUES } from "../model/types.ts";

/** Everything a test may give; all optional. Candles oldest first. */
export interface TestMarketData {
  now: number;
  kind?: SourceKind;
  candles?: Partial<Record<Venue, Partial<Record<Timeframe, Candle[]>>>>;
  /** When absent for a venue, the ticker is derived from its newest 1m (else 1h) candle with a 1-dollar spread. */
  tickers?: Partial<Record<Venue, Ticker>>;
  books?: Partial<Record<Venue, OrderBook>>;
  /** All walls of every venue, including candidates and ended ones; the source filters them. */
  walls?: OrderBookWall[];
  funding?: FundingRate;
  openInterest?: OpenInterest;
  liquidations?: Liquidation[];
  heatmap?: LiquidationHeatmap;
  options?: OptionsSummary;
  cmeBasis?: CmeBasis;
  exchangeReserves?: ExchangeReserve[];
  whaleTransfers?: WhaleTransfer[];
  entities?: EntityLabel[];
  balances?: Record<string, Array<{ time: number; balanceBtc: number }>>;
  valuation?: OnchainValuation;
  mempool?: MempoolState;
  macro?: MacroSeries;
  stablecoins?: Stablecoin[];
  /** Oldest first; `fearGreed(days)` answers the newest `days`. */
  fearGreed?: FearGreed[];
  events?: MarketEvent[];
  regime?: Regime | null;
}

export class TestMarketSource implements MarketSource {
  private data: TestMarketData;
  private listeners = new Set<(event: Liquidation) => void>();

  constructor(data: TestMarketData) {
    this.data = { ...data };
  }

  get kind(): SourceKind {
    return this.data.kind ?? "simulated";
  }

  now(): number {
    return this.data.now;
  }

  /** Replaces the given parts of the data (and the clock, with `now`). */
  update(patch: Partial<TestMarketData>): void {
    this.data = { ...this.data, ...patch };
  }

  /** Removes figures, so they answer as unavailable. */
  remove(...keys: Array<Exclude<keyof TestMarketData, "now">>): void {
    for (const key of keys) delete this.data[key];
  }

  /** Delivers a liquidation to `onLiquidation` listeners and records it. */
  emitLiquidation(event: Liquidation): void {
    this.data.liquidations = [...(this.data.liquidations ?? []), event];
    for (const listener of this.listeners) listener(event);
  }

  async candles(venue: Venue, timeframe: Timeframe, query: CandleQuery = {}): Promise<Candle[]> {
    let series = this.data.candles?.[venue]?.[timeframe] ?? [];
    if (query.start !== undefined) series = series.filter((candle) => candle.time >= query.start!);
    if (query.end !== undefined) series = series.filter((candle) => candle.time < query.end!);
    if (query.limit !== undefined) series = series.slice(-query.limit);
    return series;
  }

  async ticker(venue: Venue): Promise<Ticker> {
    const given = this.data.tickers?.[venue];
    if (given) return given;
    const series = this.data.candles?.[venue]?.["1m"] ?? this.data.candles?.[venue]?.["1h"] ?? [];
    const last = series.at(-1);
    if (!last) throw missing(`ticker of ${venue}`);
    const dayAgo = series.find((candle) => candle.time >= last.time - TIMEFRAME_MS["1d"]) ?? series[0];
    const volume24h = series.filter((candle) => candle.time > last.time - TIMEFRAME_MS["1d"]).reduce((sum, candle) => sum + candle.volume, 0);
    return {
      venue,
      time: this.data.now,
      price: last.close,
      bid: last.close - 0.5,
      ask: last.close + 0.5,
      volume24h,
      change24hPct: ((last.close - dayAgo.open) / dayAgo.open) * 100,
    };
  }

  async orderBook(venue: Venue, depth = 50): Promise<OrderBook> {
    const book = this.data.books?.[venue];
    if (!book) throw missing(`order book of ${venue}`);
    return { ...book, bids: book.bids.slice(0, depth), asks: book.asks.slice(0, depth) };
  }

  async orderBookWalls(options: { venue?: Venue; includeCandidates?: boolean } = {}): Promise<OrderBookWall[]> {
    if (!this.data.walls) throw missing("order-book walls");
    return this.data.walls.filter((wall) => (options.venue === undefined || wall.venue === options.venue) && (wall.confirmed || options.includeCandidates));
  }

  async funding(): Promise<FundingRate> {
    return this.data.funding ?? Promise.reject(missing("funding"));
  }

  async openInterest(): Promise<OpenInterest> {
    return this.data.openInterest ?? Promise.reject(missing("open interest"));
  }

  async liquidations(since: number, until = Number.POSITIVE_INFINITY): Promise<Liquidation[]> {
    return (this.data.liquidations ?? []).filter((event) => event.time >= since && event.time < until).sort((a, b) => a.time - b.time);
  }

  onLiquidation(listener: (event: Liquidation) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async liquidationHeatmap(): Promise<LiquidationHeatmap> {
    return this.data.heatmap ?? Promise.reject(missing("liquidation heatmap"));
  }

  async options(): Promise<Availability<OptionsSummary>> {
    return availability(this.data.options, "options");
  }

  async cmeBasis(): Promise<Availability<CmeBasis>> {
    return availability(this.data.cmeBasis, "CME basis");
  }

  async exchangeReserves(): Promise<Availability<ExchangeReserve[]>> {
    return availability(this.data.exchangeReserves, "exchange reserves");
  }

  async whaleTransfers(since: number): Promise<Availability<WhaleTransfer[]>> {
    const transfers = this.data.whaleTransfers;
    return availability(
      transfers?.filter((transfer) => transfer.time >= since),
      "whale transfers",
    );
  }

  async entity(address: string): Promise<EntityLabel | null> {
    return this.data.entities?.find((label) => label.address === address) ?? null;
  }

  async balanceHistory(address: string, days: number): Promise<{ tracked: boolean; points: Array<{ time: number; balanceBtc: number }> }> {
    const points = this.data.balances?.[address];
    if (!points) return { tracked: false, points: [] };
    return { tracked: true, points: points.filter((point) => point.time >= this.data.now - days * TIMEFRAME_MS["1d"]) };
  }

  async valuation(): Promise<Availability<OnchainValuation>> {
    return availability(this.data.valuation, "valuation");
  }

  async mempool(): Promise<Availability<MempoolState>> {
    return availability(this.data.mempool, "mempool");
  }

  async macro(): Promise<Availability<MacroSeries>> {
    return availability(this.data.macro, "macro series");
  }

  async stablecoins(): Promise<Availability<Stablecoin[]>> {
    return availability(this.data.stablecoins, "stablecoins");
  }

  async fearGreed(days: number): Promise<Availability<FearGreed[]>> {
    return availability(this.data.fearGreed?.slice(-days), "fear & greed");
  }

  async upcomingEvents(horizonDays: number): Promise<MarketEvent[]> {
    const until = this.data.now + horizonDays * TIMEFRAME_MS["1d"];
    return (this.data.events ?? []).filter((event) => event.time >= this.data.now && event.time <= until);
  }

  regime(): Regime | null {
    return this.data.regime ?? null;
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

function availability<T>(data: T | undefined, what: string): Availability<T> {
  return data === undefined ? { available: false, reason: `${what} not provided by this test source` } : { available: true, data };
}

function missing(what: string): Error {
  return new Error(`${what} not provided by this test source`);
}

// ---- builders for test series ---------------------------------------------------------------

/**
 * Candles from closes, one `timeframe` apart, ending with the candle that opens at `end` − step:
 * open = previous close, high/low `range` around the larger/smaller of open and close.
 */
export function candlesFromCloses(
  closes: number[],
  { timeframe = "1h", end, range = 10, volume = 100 }: { timeframe?: Timeframe; end: number; range?: number; volume?: number | ((index: number) => number) },
): Candle[] {
  const step = TIMEFRAME_MS[timeframe];
  const first = Math.floor(end / step) * step - closes.length * step;
  return closes.map((close, index) => {
    const open = index === 0 ? close : closes[index - 1];
    return {
      time: first + index * step,
      open,
      high: Math.max(open, close) + range / 2,
      low: Math.min(open, close) - range / 2,
      close,
      volume: typeof volume === "function" ? volume(index) : volume,
    };
  });
}

/** A straight price path from `from` to `to` over `count` closes. */
export function linearCloses(count: number, from: number, to: number): number[] {
  return Array.from({ length: count }, (_, index) => from + ((to - from) * index) / Math.max(1, count - 1));
}

/** Candle series for every venue from one builder (given the venue and its index in VENUES). */
export function everyVenue(
  build: (venue: Venue, index: number) => Partial<Record<Timeframe, Candle[]>>,
): Partial<Record<Venue, Partial<Record<Timeframe, Candle[]>>>> {
  return Object.fromEntries(VENUES.map((venue, index) => [venue, build(venue, index)]));
}

/** A book around `mid` with `levels` levels of `size` BTC each side, `tick` apart, half-spread `halfSpread`. */
export function bookAround(venue: Venue, time: number, mid: number, { levels = 20, size = 1, tick = 1, halfSpread = 0.5 } = {}): OrderBook {
  return {
    venue,
    time,
    bids: Array.from({ length: levels }, (_, index) => ({ price: mid - halfSpread - index * tick, size })),
    asks: Array.from({ length: levels }, (_, index) => ({ price: mid + halfSpread + index * tick, size })),
  };
}

/**
 * A calm market on all five venues: 260 candles per timeframe around 85,000 USD with a gentle wave,
 * venues a few dollars apart, deep even books, neutral funding and sentiment, no walls, every
 * Availability figure present. Tests start from it and change what they examine.
 */
export function steadyMarket(now: number): TestMarketData {
  const wave = (t: number) => 85_000 + 400 * Math.sin(t / 7);
  const volume = (t: number) => 100 + 10 * Math.sin(t * 1.3);
  const candles = everyVenue((_, offset) => ({
    "1h": candlesFromCloses(
      Array.from({ length: 260 }, (_, t) => wave(t) + offset * 2),
      { timeframe: "1h", end: now, range: 60, volume },
    ),
    "4h": candlesFromCloses(
      Array.from({ length: 260 }, (_, t) => wave(t) + offset * 2),
      { timeframe: "4h", end: now, range: 120, volume },
    ),
    "1d": candlesFromCloses(
      Array.from({ length: 260 }, (_, t) => wave(t) + offset * 2),
      { timeframe: "1d", end: now, range: 600, volume },
    ),
  }));
  const price = candles.binance!["1h"]!.at(-1)!.close;
  return {
    now,
    candles,
    books: Object.fromEntries(VENUES.map((venue, offset) => [venue, bookAround(venue, now, price + offset * 2, { levels: 40, size: 2, tick: 10 })])),
    walls: [],
    funding: {
      venue: "binance-futures",
      symbol: "BTCUSDT",
      time: now,
      rate: 0.0001,
      nextFundingTime: now + 4 * 3_600_000,
      markPrice: price + 5,
      indexPrice: price,
    },
    openInterest: { venue: "binance-futures", symbol: "BTCUSDT", time: now, size: 80_000, valueUsd: 80_000 * price },
    liquidations: [],
    cmeBasis: {
      time: now,
      contract: "BTCZ6",
      expiry: now + 30 * 86_400_000,
      futuresPrice: price * 1.006,
      spotPrice: price,
      basisUsd: price * 0.006,
      annualizedBasisPct: 7.3,
    },
    exchangeReserves: [
      { exchange: "binance", time: now, reserveBtc: 580_000, netflow24hBtc: 0 },
      { exchange: "coinbase", time: now, reserveBtc: 820_000, netflow24hBtc: 0 },
    ],
    whaleTransfers: [],
    valuation: { time: now, price, realizedPrice: price / 1.9, mvrv: 1.9, nupl: 0.47, supplyInProfit: 0.8, circulatingSupply: 19_900_000 },
    fearGreed: [{ time: now - 86_400_000, value: 52, classification: "Neutral" }],
    regime: "quiet",
  };
}
