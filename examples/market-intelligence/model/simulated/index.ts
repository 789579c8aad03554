// The simulated MarketSource: a seeded market (MARKET_SEED) running in real time from a backfilled
// year of history. One state drives everything (market-path.ts: regimes, prices, leverage, realized
// price, reserves); the venues, the liquidation clusters, the on-chain ledger and the slow series are
// views of it. Same seed and same instant, same answer: across restarts too.
//
// Time: the market ticks once a minute; the newest 1m candle is the one containing now(), and every
// price a response quotes is that candle's close. `poll()` (every second on a timer, or by hand in
// tests with an injected clock) delivers the liquidations whose timestamps have passed to listeners.
import {
  DERIVATIVES_VENUE,
  OPTIONS_VENUE,
  PERP_SYMBOL,
  TIMEFRAME_MS,
  VENUES,
  type Availability,
  type CandleQuery,
  type Candle,
  type CmeBasis,
  type EcosystemMetrics,
  type EntityLabel,
  type ExchangeReserve,
  type FundingRate,
  type Liquidation,
  type LiquidationTotals,
  type MarketSource,
  type OpenInterest,
  type OptionsSummary,
  type OrderBookWall,
  type Regime,
  type Timeframe,
  type Venue,
} from "../types.ts";
import { LiquidationEngine } from "./liquidations.ts";
import {
  BLOCK_MINUTES,
  HOUR_MS,
  MINUTE_MS,
  MarketPath,
  REGIME_PARAMS,
  RESERVE_EXCHANGES,
  SIM_EPOCH,
  blockOf,
  hourOf,
  minuteOf,
  minuteStart,
} from "./market-path.ts";
import { ADDRESS_CORPUS, OnchainLedger, corpusEntry } from "./onchain.ts";
import { STREAM, gaussian, hash32, seededRandom } from "./random.ts";
import { DAY_MS, Series, blockHeight, circulatingSupply, round } from "./series.ts";
import { Venues } from "./venues.ts";

export { ADDRESS_CORPUS, SIM_EPOCH };

export interface SimulatedMarketOptions {
  seed: number;
  /** The clock (default Date.now): tests inject one. */
  now?: () => number;
  /** Days of history prepared at start (default 365). */
  backfillDays?: number;
  /** Deliver liquidations on a 1 s timer (default true; tests with an injected clock call poll()). */
  autoPoll?: boolean;
  /**
   * The delivery timer's period in ms (default 1000): a liquidation reaches the listeners at most
   * this long after its timestamp. bench/market.ts (BENCH_ONLY=streams) runs the market on a faster
   * clock (an injected `now`) with a 20 ms poll, so it sees many events a second.
   */
  pollMs?: number;
}

const FUNDING_INTERVAL_MS = 8 * HOUR_MS;
/** Largest candle answer of one call. */
export const MAX_CANDLES = 5_000;

export class SimulatedMarketSource implements MarketSource {
  readonly kind = "simulated" as const;
  readonly seed: number;
  readonly path: MarketPath;
  readonly venues: Venues;
  readonly liquidationEngine: LiquidationEngine;
  readonly ledger: OnchainLedger;
  readonly series: Series;
  /** The earliest instant the simulation answers candles for. */
  readonly historyStart: number;
  private readonly clock: () => number;
  private readonly listeners = new Set<(event: Liquidation) => void>();
  private delivered: number;
  private timer?: NodeJS.Timeout;

  constructor(options: SimulatedMarketOptions) {
    this.seed = options.seed >>> 0;
    this.clock = options.now ?? Date.now;
    this.path = new MarketPath(this.seed);
    this.venues = new Venues(this.path, this.seed);
    this.series = new Series(this.path, this.seed);
    this.liquidationEngine = new LiquidationEngine(this.path, this.seed, (time) => this.openInterestAt(time).valueUsd);
    this.ledger = new OnchainLedger(this.path, this.seed);
    const now = this.clock();
    if (now < SIM_EPOCH + 400 * DAY_MS) throw new Error(`the simulation answers from ${new Date(SIM_EPOCH + 400 * DAY_MS).toISOString()} on`);
    // Backfill: a year of minutes (whole blocks), the on-chain ledger since the epoch, the liquidation walk.
    const days = options.backfillDays ?? 365;
    const firstBlock = blockOf(now - days * DAY_MS);
    this.historyStart = SIM_EPOCH + firstBlock * BLOCK_MINUTES * MINUTE_MS;
    for (let b = firstBlock; b <= blockOf(now); b++) this.path.block(b);
    this.advance();
    this.delivered = now;
    if (options.autoPoll !== false) {
      this.timer = setInterval(() => this.poll(), options.pollMs ?? 1_000);
      this.timer.unref();
    }
  }

  now(): number {
    return this.clock();
  }

  /** Moves the walks (liquidations, ledger) up to the clock's minute. */
  private advance(): number {
    const now = this.clock();
    const minute = minuteOf(now);
    this.liquidationEngine.advanceTo(minute);
    this.ledger.advanceTo(hourOf(now));
    return minute;
  }

  /** Delivers the liquidations whose time has come since the last poll; returns how many. */
  poll(): number {
    const now = this.clock();
    this.advance();
    if (now <= this.delivered) return 0;
    const events = this.liquidationEngine.between(this.delivered, now + 1);
    this.delivered = now + 1;
    for (const event of events) for (const listener of this.listeners) listener(event);
    return events.length;
  }

  regime(): Regime {
    return this.path.regimeAt(this.clock());
  }

  async candles(venue: Venue, timeframe: Timeframe, query: CandleQuery = {}): Promise<Candle[]> {
    const nowMinute = this.advance();
    const span = TIMEFRAME_MS[timeframe];
    const nowIndex = Math.floor((minuteStart(nowMinute) - SIM_EPOCH) / span);
    const firstIndex = Math.ceil((this.historyStart - SIM_EPOCH) / span);
    let from = query.start !== undefined ? Math.max(firstIndex, Math.ceil((query.start - SIM_EPOCH) / span)) : firstIndex;
    const to = Math.min(nowIndex, query.end !== undefined ? Math.ceil((query.end - SIM_EPOCH) / span) - 1 : nowIndex);
    const limit = Math.min(query.limit ?? (query.start !== undefined ? MAX_CANDLES : 500), MAX_CANDLES);
    if (query.start === undefined || to - from + 1 > limit) from = Math.max(from, to - limit + 1);
    const out: Candle[] = [];
    for (let i = from; i <= to; i++) out.push(this.venues.candle(venue, timeframe, i, nowMinute));
    return out;
  }

  async ticker(venue: Venue) {
    const nowMinute = this.advance();
    return this.venues.ticker(venue, nowMinute, this.clock());
  }

  async orderBook(venue: Venue, depth = 20) {
    const nowMinute = this.advance();
    return { ...this.venues.orderBook(venue, nowMinute, depth), time: this.clock() };
  }

  async orderBookWalls(options: { venue?: Venue; includeCandidates?: boolean } = {}): Promise<OrderBookWall[]> {
    const nowMinute = this.advance();
    const venues = options.venue ? [options.venue] : VENUES;
    return venues
      .flatMap((v) => this.venues.walls(v, nowMinute))
      .filter((w) => w.confirmed || options.includeCandidates)
      .sort((a, b) => b.valueUsd - a.valueUsd);
  }

  /** Walls that ended (pulled or filled) in [since, now): history and alerts. */
  endedWalls(since: number): OrderBookWall[] {
    const nowMinute = this.advance();
    return VENUES.flatMap((v) => this.venues.endedWalls(v, minuteOf(since) - 1, nowMinute)).filter((w) => w.endedAt! >= since);
  }

  /** The mean of the five venues' prices at a minute: the perpetual's index. */
  indexPrice(minute: number): number {
    return VENUES.reduce((sum, v) => sum + this.venues.minuteCandle(v, minute).close, 0) / VENUES.length;
  }

  /** The perpetual's premium over the index: leverage and the last 8 hours' move push it up. */
  premiumAt(minute: number): number {
    const time = minuteStart(minute);
    const move = Math.log(this.path.price(minute) / this.path.price(minute - 480));
    const noise = 0.00008 * gaussian(seededRandom(hash32(this.seed, STREAM.options, 7, minute)));
    return Math.max(-0.003, Math.min(0.004, 0.0009 * (this.path.leverageAt(time) - 0.35) + 0.02 * move + noise));
  }

  fundingAt(minute: number): FundingRate {
    const time = minuteStart(minute);
    const index = this.indexPrice(minute);
    const premium = this.premiumAt(minute);
    const rate = Math.max(-0.0015, Math.min(0.003, 0.0001 + 0.45 * (premium - 0.0001)));
    const sinceEpoch = time - SIM_EPOCH;
    return {
      venue: DERIVATIVES_VENUE,
      symbol: PERP_SYMBOL,
      time,
      rate: round(rate, 7),
      nextFundingTime: SIM_EPOCH + (Math.floor(sinceEpoch / FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS,
      markPrice: round(index * (1 + premium), 2),
      indexPrice: round(index, 2),
    };
  }

  async funding(): Promise<FundingRate> {
    const minute = this.advance();
    return { ...this.fundingAt(minute), time: this.clock() };
  }

  /** Open interest: rises with leverage, falls as it is flushed. */
  openInterestAt(time: number): OpenInterest {
    const minute = minuteOf(time);
    const leverage = this.path.leverageAt(time);
    const size = 82_000 * (0.55 + 0.9 * leverage) * (1 + 0.006 * gaussian(seededRandom(hash32(this.seed, STREAM.options, 8, Math.floor(minute / 5)))));
    const price = this.path.price(minute);
    return { venue: DERIVATIVES_VENUE, symbol: PERP_SYMBOL, time, size: round(size, 3), valueUsd: Math.round(size * price) };
  }

  async openInterest(): Promise<OpenInterest> {
    this.advance();
    return this.openInterestAt(this.clock());
  }

  async liquidations(since: number, until?: number): Promise<Liquidation[]> {
    this.advance();
    const now = this.clock();
    return this.liquidationEngine.between(since, Math.min(until ?? now + 1, now + 1));
  }

  async liquidationTotals(since: number, until?: number): Promise<LiquidationTotals> {
    this.advance();
    const now = this.clock();
    return this.liquidationEngine.totals(since, Math.min(until ?? now + 1, now + 1));
  }

  /** How many listeners the one delivery loop fans out to (every stream subscriber is one). */
  get liquidationListeners(): number {
    return this.listeners.size;
  }

  onLiquidation(listener: (event: Liquidation) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async liquidationHeatmap() {
    const minute = this.advance();
    return this.liquidationEngine.heatmap(round(this.path.price(minute), 2), this.clock());
  }

  private volatilityCache = { hour: -1, value: 0 };

  /** Realized volatility of the last 7 days of hourly closes, annualized (once an hour). */
  private realizedVol(minute: number): number {
    const hour = Math.floor(minute / 60);
    if (this.volatilityCache.hour === hour) return this.volatilityCache.value;
    let sum = 0;
    let sumSq = 0;
    for (let h = hour - 168; h < hour; h++) {
      const r = Math.log(this.path.hourBar(h).close / this.path.hourBar(h).open);
      sum += r;
      sumSq += r * r;
    }
    const variance = sumSq / 168 - (sum / 168) ** 2;
    this.volatilityCache = { hour, value: Math.sqrt(Math.max(variance, 0) * 8_760) };
    return this.volatilityCache.value;
  }

  async options(): Promise<Availability<OptionsSummary>> {
    const minute = this.advance();
    const time = this.clock();
    const regime = this.path.regimeAt(time);
    const price = this.path.price(minute);
    const fear = regime === "capitulation" ? 0.18 : regime === "deleveraging" ? 0.1 : regime === "leveraged_rally" ? 0.06 : 0;
    const atmIv = Math.max(0.2, this.realizedVol(minute) * 1.08 + 0.06 + fear);
    const move3d = Math.log(price / this.path.price(minute - 3 * 1440));
    const skew25d = Math.max(-0.15, Math.min(0.1, -0.01 + 0.4 * move3d - fear * 0.4));
    const expiries = optionExpiries(time).map((expiry, i) => {
      const random = seededRandom(hash32(this.seed, STREAM.options, i, Math.floor(expiry / DAY_MS), Math.floor(minute / 60)));
      const oi = (i < 2 ? 9_000 : 30_000) * (0.7 + 0.6 * random());
      const putShare = Math.max(0.25, Math.min(0.65, 0.4 - skew25d * 1.5 + 0.05 * gaussian(random)));
      return {
        expiry,
        maxPain: Math.round((price * (1 + 0.03 * gaussian(random) - 0.01)) / 1_000) * 1_000,
        callOpenInterest: round(oi * (1 - putShare), 1),
        putOpenInterest: round(oi * putShare, 1),
        atmIv: round(atmIv * (1 + 0.04 * i) * (1 + 0.02 * gaussian(random)), 4),
      };
    });
    const calls = expiries.reduce((s, e) => s + e.callOpenInterest, 0);
    const puts = expiries.reduce((s, e) => s + e.putOpenInterest, 0);
    return {
      available: true,
      data: {
        venue: OPTIONS_VENUE,
        time,
        atmIv: round(atmIv, 4),
        skew25d: round(skew25d, 4),
        putCallRatio: round(puts / calls, 3),
        openInterestBtc: round(calls + puts, 1),
        expiries,
      },
    };
  }

  async cmeBasis(): Promise<Availability<CmeBasis>> {
    const minute = this.advance();
    const time = this.clock();
    const spot = this.indexPrice(minute);
    const expiry = cmeExpiry(time);
    const annualized = 0.035 + 0.13 * this.path.leverageAt(time) + 0.01 * gaussian(seededRandom(hash32(this.seed, STREAM.options, 9, Math.floor(minute / 15))));
    const futures = spot * (1 + (annualized * (expiry - time)) / (365 * DAY_MS));
    const month = new Date(expiry);
    return {
      available: true,
      data: {
        time,
        contract: `BTC${"FGHJKMNQUVXZ"[month.getUTCMonth()]}${month.getUTCFullYear() % 10}`,
        expiry,
        futuresPrice: Math.round(futures / 5) * 5,
        spotPrice: round(spot, 2),
        basisUsd: round(Math.round(futures / 5) * 5 - spot, 2),
        annualizedBasisPct: round(annualized * 100, 2),
      },
    };
  }

  async exchangeReserves(): Promise<Availability<ExchangeReserve[]>> {
    this.advance();
    const time = this.clock();
    return {
      available: true,
      data: RESERVE_EXCHANGES.map((exchange, e) => ({
        exchange,
        time,
        reserveBtc: round(this.path.reserveAt(e, time), 2),
        netflow24hBtc: round(this.path.reserveAt(e, time) - this.path.reserveAt(e, time - DAY_MS), 2),
      })),
    };
  }

  async whaleTransfers(since: number) {
    this.advance();
    return { available: true as const, data: this.ledger.transfers(since, this.clock()) };
  }

  async entity(address: string): Promise<EntityLabel | null> {
    const entry = corpusEntry(address);
    return entry ? { address: entry.address, entity: entry.entity, category: entry.category } : null;
  }

  async balanceHistory(address: string, days: number) {
    this.advance();
    return this.ledger.balanceHistory(address, days, this.clock());
  }

  async valuation() {
    const minute = this.advance();
    const time = this.clock();
    const price = this.path.price(minute);
    const realizedPrice = this.path.realizedPriceAt(time);
    const mvrv = price / realizedPrice;
    return {
      available: true as const,
      data: {
        time,
        price: round(price, 2),
        realizedPrice: round(realizedPrice, 2),
        mvrv: round(mvrv, 4),
        nupl: round(1 - 1 / mvrv, 4),
        supplyInProfit: round(Math.min(0.99, Math.max(0.05, 1 / (1 + Math.exp(-2.6 * (mvrv - 1.05))))), 4),
        circulatingSupply: circulatingSupply(blockHeight(time)),
      },
    };
  }

  async mempool() {
    this.advance();
    const time = this.clock();
    const regime = this.path.regimeAt(time);
    const factor = regime === "capitulation" ? 4 : regime === "deleveraging" ? 2.2 : regime === "leveraged_rally" ? 1.6 : 1;
    return { available: true as const, data: this.series.mempool(time, factor) };
  }

  async macro(days: number) {
    this.advance();
    return { available: true as const, data: this.series.macro(days, this.clock()) };
  }

  async stablecoins() {
    return { available: true as const, data: this.series.stablecoins(this.clock()) };
  }

  async fearGreed(days: number) {
    return { available: true as const, data: this.series.fearGreed(days, this.clock()) };
  }

  async upcomingEvents(horizonDays: number) {
    const time = this.clock();
    return this.series.events(time, horizonDays, blockHeight(time));
  }

  async ecosystem(): Promise<Availability<EcosystemMetrics>> {
    return this.series.ecosystem(this.clock());
  }

  /** The regime's per-minute volatility: what the alerts and the history recorder read as "how wild". */
  volatility(): number {
    return REGIME_PARAMS[this.regime()].sigma;
  }

  /** Whether an instant falls in the backfilled window. */
  covers(time: number): boolean {
    return time >= this.historyStart && time <= this.clock();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.listeners.clear();
  }
}

/** Deribit-style expiries after `time`: the next three Fridays 08:00 UTC and the next two quarter ends. */
export function optionExpiries(time: number): number[] {
  const out = new Set<number>();
  const d = new Date(time);
  let friday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + ((5 - d.getUTCDay() + 7) % 7), 8);
  if (friday <= time) friday += 7 * DAY_MS;
  for (let i = 0; i < 3; i++) out.add(friday + i * 7 * DAY_MS);
  for (let q = 0; out.size < 5 && q < 8; q++) {
    const month = Math.floor(d.getUTCMonth() / 3) * 3 + 2 + q * 3;
    const last = new Date(Date.UTC(d.getUTCFullYear(), month + 1, 0));
    const expiry = Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate() - ((last.getUTCDay() - 5 + 7) % 7), 8);
    if (expiry > time) out.add(expiry);
  }
  return [...out].sort((a, b) => a - b);
}

/** The CME front month's expiry: the last Friday of the month, 15:00 UTC (the next month's once it has passed). */
export function cmeExpiry(time: number): number {
  const d = new Date(time);
  for (let m = 0; m < 3; m++) {
    const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + m + 1, 0));
    const expiry = Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), last.getUTCDate() - ((last.getUTCDay() - 5 + 7) % 7), 15);
    if (expiry > time) return expiry;
  }
  return time + 30 * DAY_MS;
}
