// A small, fixed MarketSource for the history's tests: hourly closes the test chooses (the default
// venue's; the other venues sit a few basis points away), 4h and 1d candles aggregated from them,
// and one fixed reading for everything else. The clock is the test's (`setNow`). Only closed
// candles are served, as a real source serves them.
import {
  DEFAULT_VENUE,
  DERIVATIVES_VENUE,
  PERP_SYMBOL,
  TIMEFRAME_MS,
  VENUES,
  type Availability,
  type Candle,
  type CandleQuery,
  type CmeBasis,
  type ExchangeReserve,
  type MacroSeries,
  type MempoolState,
  type OnchainValuation,
  type OptionsSummary,
  type Stablecoin,
  type WhaleTransfer,
  type FearGreed,
  type LiquidationHeatmap,
  type MarketSource,
  type OrderBookWall,
  type Timeframe,
  type Venue,
} from "../model/types.ts";

const HOUR = TIMEFRAME_MS["1h"];
const DAY = TIMEFRAME_MS["1d"];

export interface FixtureSourceOptions {
  /** Open time of the first hourly candle; a multiple of a day, so 4h and 1d buckets line up. */
  start: number;
  /** The default venue's hourly closes from `start` on; a candle's open is the previous close. */
  closes: number[];
  /** The source's clock at first. */
  now: number;
  /** Fear & greed of the day starting at `dayStart` (default 50). */
  fearGreed?: (dayStart: number) => number;
}

export class FixtureMarketSource implements MarketSource {
  readonly kind = "simulated" as const;
  private clock: number;
  /** Calls of `candles`, for tests that check what the recorder fetched. */
  candleCalls: Array<{ venue: Venue; timeframe: Timeframe; query: CandleQuery }> = [];
  /** When set, `candles` throws on that call (1-based), as a crash mid-backfill would stop it. */
  failOnCandleCall: number | null = null;

  constructor(private readonly config: FixtureSourceOptions) {
    if (config.start % DAY !== 0) throw new Error("The fixture's start must be a multiple of a day");
    this.clock = config.now;
  }

  now(): number {
    return this.clock;
  }

  setNow(now: number): void {
    this.clock = now;
  }

  /** Every closed candle of a venue and timeframe, oldest first. */
  allCandles(venue: Venue, timeframe: Timeframe): Candle[] {
    const factor = 1 + VENUES.indexOf(venue) * 0.0002;
    const hourly: Candle[] = this.config.closes.map((close, i) => {
      const open = (this.config.closes[i - 1] ?? close) * factor;
      const c = close * factor;
      return { time: this.config.start + i * HOUR, open, high: Math.max(open, c) * 1.002, low: Math.min(open, c) * 0.998, close: c, volume: 10 + (i % 7) };
    });
    const size = TIMEFRAME_MS[timeframe];
    const out: Candle[] = [];
    for (const candle of hourly) {
      const bucket = Math.floor(candle.time / size) * size;
      const last = out.at(-1);
      if (last && last.time === bucket) {
        last.high = Math.max(last.high, candle.high);
        last.low = Math.min(last.low, candle.low);
        last.close = candle.close;
        last.volume += candle.volume;
      } else out.push({ ...candle, time: bucket });
    }
    return out.filter((c) => c.time + size <= this.clock && (size <= HOUR || c.time + size <= this.config.start + hourly.length * HOUR));
  }

  async candles(venue: Venue, timeframe: Timeframe, query: CandleQuery = {}): Promise<Candle[]> {
    this.candleCalls.push({ venue, timeframe, query });
    if (this.failOnCandleCall === this.candleCalls.length) throw new Error("fixture: the source failed");
    const inWindow = this.allCandles(venue, timeframe).filter(
      (c) => (query.start === undefined || c.time >= query.start) && (query.end === undefined || c.time < query.end),
    );
    return query.limit ? inWindow.slice(-query.limit) : inWindow;
  }

  private lastClose(venue: Venue = DEFAULT_VENUE): number {
    return this.allCandles(venue, "1h").at(-1)?.close ?? this.config.closes[0];
  }

  async ticker(venue: Venue) {
    const price = this.lastClose(venue);
    return { venue, time: this.clock, price, bid: price - 0.5, ask: price + 0.5, volume24h: 240, change24hPct: 0 };
  }

  async orderBook(venue: Venue) {
    const price = this.lastClose(venue);
    return { venue, time: this.clock, bids: [{ price: price - 0.5, size: 1 }], asks: [{ price: price + 0.5, size: 1 }] };
  }

  async orderBookWalls(options: { venue?: Venue; includeCandidates?: boolean } = {}): Promise<OrderBookWall[]> {
    const price = this.lastClose();
    const wall = (venue: Venue, side: "bid" | "ask", confirmed: boolean): OrderBookWall => {
      const at = side === "bid" ? price * 0.98 : price * 1.02;
      return {
        id: `${venue}-${side}-${confirmed}`,
        venue,
        side,
        price: at,
        size: 150,
        valueUsd: 150 * at,
        firstSeen: this.clock - HOUR,
        lastSeen: this.clock,
        confirmed,
      };
    };
    const walls = [wall("binance", "bid", true), wall("coinbase", "ask", true), wall("kraken", "bid", false)];
    return walls.filter((w) => (options.includeCandidates || w.confirmed) && (!options.venue || w.venue === options.venue));
  }

  async funding() {
    const price = this.lastClose();
    return {
      venue: DERIVATIVES_VENUE,
      symbol: PERP_SYMBOL,
      time: this.clock,
      rate: 0.0001,
      nextFundingTime: this.clock + 8 * HOUR,
      markPrice: price,
      indexPrice: price,
    };
  }

  async openInterest() {
    return { venue: DERIVATIVES_VENUE, symbol: PERP_SYMBOL, time: this.clock, size: 90_000, valueUsd: 90_000 * this.lastClose() };
  }

  async liquidations() {
    return [];
  }

  onLiquidation(): () => void {
    return () => {};
  }

  async liquidationHeatmap(): Promise<LiquidationHeatmap> {
    const reference = this.lastClose();
    const buckets = [-1, 0, 1].map((k) => ({
      priceLow: reference + k * 500,
      priceHigh: reference + (k + 1) * 500,
      longLiquidationUsd: 1e6 * (2 - k),
      shortLiquidationUsd: 1e6 * (2 + k),
    }));
    return { symbol: PERP_SYMBOL, time: this.clock, referencePrice: reference, bucketSizeUsd: 500, buckets };
  }

  async options(): Promise<Availability<OptionsSummary>> {
    return { available: false, reason: "fixture: no options venue" };
  }

  async cmeBasis(): Promise<Availability<CmeBasis>> {
    return { available: false, reason: "fixture: no CME data" };
  }

  async exchangeReserves(): Promise<Availability<ExchangeReserve[]>> {
    return { available: true, data: [{ exchange: "binance", time: this.clock, reserveBtc: 500_000, netflow24hBtc: -120 }] };
  }

  async whaleTransfers(): Promise<Availability<WhaleTransfer[]>> {
    return { available: true, data: [] };
  }

  async entity() {
    return null;
  }

  async balanceHistory() {
    return { tracked: false, points: [] };
  }

  async valuation(): Promise<Availability<OnchainValuation>> {
    const price = this.lastClose();
    return {
      available: true,
      data: { time: this.clock, price, realizedPrice: price * 0.6, mvrv: 1 / 0.6, nupl: 0.4, supplyInProfit: 0.8, circulatingSupply: 19_900_000 },
    };
  }

  async mempool(): Promise<Availability<MempoolState>> {
    return {
      available: true,
      data: {
        time: this.clock,
        fastestFee: 12,
        halfHourFee: 9,
        hourFee: 7,
        economyFee: 3,
        minimumFee: 1,
        txCount: 40_000,
        vsize: 60_000_000,
        blockHeight: 930_000,
      },
    };
  }

  async macro(): Promise<Availability<MacroSeries>> {
    return { available: true, data: { DXY: [{ time: this.clock - DAY, value: 104.2 }] } };
  }

  async stablecoins(): Promise<Availability<Stablecoin[]>> {
    return { available: true, data: [{ symbol: "USDT", time: this.clock, supplyUsd: 1.5e11, change7dPct: 0.4 }] };
  }

  async fearGreed(days: number): Promise<Availability<FearGreed[]>> {
    const today = Math.floor(this.clock / DAY) * DAY;
    const data: FearGreed[] = [];
    for (let d = days - 1; d >= 0; d--) {
      const time = today - d * DAY;
      const value = this.config.fearGreed?.(time) ?? 50;
      data.push({
        time,
        value,
        classification: value < 25 ? "Extreme Fear" : value < 45 ? "Fear" : value <= 55 ? "Neutral" : value <= 75 ? "Greed" : "Extreme Greed",
      });
    }
    return { available: true, data };
  }

  async upcomingEvents() {
    return [];
  }

  regime() {
    return "quiet" as const;
  }

  async close(): Promise<void> {}
}
