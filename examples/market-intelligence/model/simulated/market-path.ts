// The one underlying state of the simulated market: a chain of 4-hour blocks stepped from a fixed
// epoch (regime, anchor price, leverage, realized price, exchange reserves), and inside each block a
// 1-minute price path bridged between its two anchors. Every draw is keyed by (seed, block), so the
// state at an instant depends on the seed and the instant only, never on when the process started.
// Stepping the chain from 2024 costs a few thousand steps; minutes are generated per block on
// demand (a year is about 2,200 blocks, 525,600 minutes) and kept.
import { REGIMES, type Regime } from "../types.ts";
import { STREAM, gaussian, hash32, seededRandom } from "./random.ts";

/** The simulation's fixed origin: block 0 starts here at the epoch price. */
export const SIM_EPOCH = Date.UTC(2024, 0, 1);
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const BLOCK_MINUTES = 240;
export const BLOCK_MS = BLOCK_MINUTES * MINUTE_MS;
const EPOCH_PRICE = 42_300;
/** Exchanges whose reserves the on-chain endpoints report (more than the five spot venues: reserves are an on-chain view). */
export const RESERVE_EXCHANGES = ["binance", "coinbase", "bitfinex", "kraken", "okx", "bitstamp"] as const;
const RESERVE_START = [560_000, 870_000, 395_000, 118_000, 132_000, 26_000];

/** Per regime: drift of log price per block, per-minute volatility, leverage change per block, volume factor. */
export const REGIME_PARAMS: Record<Regime, { drift: number; sigma: number; leverage: number; volume: number; inflowBias: number }> = {
  quiet: { drift: 0, sigma: 0.0005, leverage: 0.01, volume: 0.7, inflowBias: 0 },
  trending_up: { drift: 0.0035, sigma: 0.0007, leverage: 0.015, volume: 1, inflowBias: -0.00025 },
  trending_down: { drift: -0.003, sigma: 0.0008, leverage: -0.006, volume: 1.1, inflowBias: 0.0002 },
  leveraged_rally: { drift: 0.008, sigma: 0.0011, leverage: 0.05, volume: 1.5, inflowBias: -0.0001 },
  deleveraging: { drift: -0.01, sigma: 0.0015, leverage: -0.12, volume: 2, inflowBias: 0.0004 },
  capitulation: { drift: -0.03, sigma: 0.0025, leverage: -0.22, volume: 3.2, inflowBias: 0.0009 },
};

/** Transition probabilities per 4-hour block (the rest stays): quiet lasts days, capitulation hours. */
const TRANSITIONS: Record<Regime, Partial<Record<Regime, number>>> = {
  quiet: { trending_up: 0.035, trending_down: 0.03, leveraged_rally: 0.012 },
  trending_up: { leveraged_rally: 0.05, quiet: 0.05, trending_down: 0.01 },
  trending_down: { capitulation: 0.015, deleveraging: 0.03, quiet: 0.05, trending_up: 0.01 },
  leveraged_rally: { deleveraging: 0.12, trending_up: 0.08, quiet: 0.03 },
  deleveraging: { capitulation: 0.1, quiet: 0.15, trending_down: 0.1 },
  capitulation: { quiet: 0.25, trending_down: 0.2, deleveraging: 0.15 },
};

/** The per-block state, stepped from the epoch. */
export interface BlockChain {
  regime: Uint8Array;
  /** Log price at the block's start. */
  logPrice: Float64Array;
  /** Leverage in the market, 0..1, at the block's start. */
  leverage: Float64Array;
  realizedPrice: Float64Array;
  /** Reserves per RESERVE_EXCHANGES, BTC, at the block's start: reserves[e][b]. */
  reserves: Float64Array[];
  length: number;
}

/** The minutes of one block: minute j of the block ticks at start + j minutes with price close[j]. */
export interface BlockMinutes {
  close: Float64Array;
  high: Float64Array;
  low: Float64Array;
  /** BTC traded across the five venues in the minute. */
  volume: Float64Array;
  /** Base hourly candles of the block's four hours. */
  hours: { open: Float64Array; high: Float64Array; low: Float64Array; close: Float64Array; volume: Float64Array };
}

export class MarketPath {
  readonly chain: BlockChain;
  private readonly minutesByBlock = new Map<number, BlockMinutes>();

  constructor(readonly seed: number) {
    this.chain = {
      regime: new Uint8Array(0),
      logPrice: new Float64Array(0),
      leverage: new Float64Array(0),
      realizedPrice: new Float64Array(0),
      reserves: RESERVE_EXCHANGES.map(() => new Float64Array(0)),
      length: 0,
    };
  }

  /** Steps the chain so blocks up to `block` + 1 (its end anchor) exist. */
  private ensureChain(block: number) {
    const need = block + 2;
    const c = this.chain;
    if (c.length >= need) return;
    const capacity = Math.max(need, Math.ceil(c.length * 1.5), 8_192);
    if (c.logPrice.length < need) {
      const grow = <T extends Float64Array | Uint8Array>(old: T, make: (n: number) => T): T => {
        const next = make(capacity);
        next.set(old);
        return next;
      };
      c.regime = grow(c.regime, (n) => new Uint8Array(n));
      c.logPrice = grow(c.logPrice, (n) => new Float64Array(n));
      c.leverage = grow(c.leverage, (n) => new Float64Array(n));
      c.realizedPrice = grow(c.realizedPrice, (n) => new Float64Array(n));
      c.reserves = c.reserves.map((r) => grow(r, (n) => new Float64Array(n)));
    }
    if (c.length === 0) {
      c.regime[0] = 0;
      c.logPrice[0] = Math.log(EPOCH_PRICE);
      c.leverage[0] = 0.45;
      c.realizedPrice[0] = EPOCH_PRICE * 0.55;
      RESERVE_START.forEach((r, e) => (c.reserves[e][0] = r));
      c.length = 1;
    }
    for (let b = c.length; b < need; b++) {
      const random = seededRandom(hash32(this.seed, STREAM.anchor, b));
      const prev = REGIMES[c.regime[b - 1]];
      // The regime of block b is drawn at its start from the previous one.
      let regime = prev;
      let u = random();
      for (const [next, p] of Object.entries(TRANSITIONS[prev]) as Array<[Regime, number]>) {
        // High leverage makes a flush likelier; low leverage makes one rarer.
        const weight = next === "deleveraging" || next === "capitulation" ? p * (0.4 + 1.4 * c.leverage[b - 1]) : p;
        if (u < weight) {
          regime = next;
          break;
        }
        u -= weight;
      }
      c.regime[b] = REGIMES.indexOf(regime);
      const params = REGIME_PARAMS[prev];
      // Log price: the previous block's drift plus noise, pulled weakly toward a slowly rising trend
      // so a multi-year run stays in a realistic range.
      const years = ((b - 1) * BLOCK_MS) / (365 * 86_400_000);
      const target = Math.log(EPOCH_PRICE) + Math.min(years, 1.2) * 0.75 + 0.12 * Math.sin(years * 1.7);
      const lp = c.logPrice[b - 1];
      c.logPrice[b] = lp + params.drift + 0.006 * (target - lp) + params.sigma * Math.sqrt(BLOCK_MINUTES) * 0.6 * gaussian(random);
      c.leverage[b] = Math.min(1, Math.max(0.05, c.leverage[b - 1] + params.leverage + 0.02 * gaussian(random)));
      const price = Math.exp(lp);
      c.realizedPrice[b] = c.realizedPrice[b - 1] + (price - c.realizedPrice[b - 1]) / 2_600;
      for (let e = 0; e < RESERVE_EXCHANGES.length; e++) {
        const reserve = c.reserves[e][b - 1];
        const flow = reserve * (params.inflowBias - 0.00004 + 0.0006 * gaussian(random));
        c.reserves[e][b] = Math.max(1_000, reserve + flow);
      }
    }
    c.length = need;
  }

  regimeAt(time: number): Regime {
    const b = blockOf(time);
    this.ensureChain(b);
    return REGIMES[this.chain.regime[b]];
  }

  /** Leverage 0..1 at an instant, linear inside a block. */
  leverageAt(time: number): number {
    const b = blockOf(time);
    this.ensureChain(b);
    const f = (time - blockStart(b)) / BLOCK_MS;
    return this.chain.leverage[b] * (1 - f) + this.chain.leverage[b + 1] * f;
  }

  realizedPriceAt(time: number): number {
    const b = blockOf(time);
    this.ensureChain(b);
    const f = (time - blockStart(b)) / BLOCK_MS;
    return this.chain.realizedPrice[b] * (1 - f) + this.chain.realizedPrice[b + 1] * f;
  }

  reserveAt(exchange: number, time: number): number {
    const b = blockOf(time);
    this.ensureChain(b);
    const f = (time - blockStart(b)) / BLOCK_MS;
    return this.chain.reserves[exchange][b] * (1 - f) + this.chain.reserves[exchange][b + 1] * f;
  }

  /** The anchor price at a block boundary (cheap: no minutes needed). */
  anchorPrice(block: number): number {
    this.ensureChain(block);
    return Math.exp(this.chain.logPrice[block]);
  }

  /** The minutes of a block, generated once: a Brownian bridge between the block's two anchors. */
  block(b: number): BlockMinutes {
    const cached = this.minutesByBlock.get(b);
    if (cached) return cached;
    this.ensureChain(b);
    const regime = REGIMES[this.chain.regime[b]];
    const { sigma, volume: volumeFactor } = REGIME_PARAMS[regime];
    const random = seededRandom(hash32(this.seed, STREAM.minutes, b));
    const walk = new Float64Array(BLOCK_MINUTES + 1);
    for (let j = 1; j <= BLOCK_MINUTES; j++) walk[j] = walk[j - 1] + sigma * gaussian(random);
    const start = this.chain.logPrice[b];
    const gap = walk[BLOCK_MINUTES] - (this.chain.logPrice[b + 1] - start);
    const close = new Float64Array(BLOCK_MINUTES);
    const high = new Float64Array(BLOCK_MINUTES);
    const low = new Float64Array(BLOCK_MINUTES);
    const volume = new Float64Array(BLOCK_MINUTES);
    let previous = Math.exp(start);
    for (let j = 0; j < BLOCK_MINUTES; j++) {
      const price = Math.exp(start + walk[j + 1] - ((j + 1) / BLOCK_MINUTES) * gap);
      close[j] = price;
      // Wicks: exponential draws (one log each, cheaper than a normal's and about as heavy-tailed).
      high[j] = Math.max(previous, price) * (1 - 0.4 * sigma * Math.log(1 - random()));
      low[j] = Math.min(previous, price) * (1 + 0.4 * sigma * Math.log(1 - random()));
      const move = Math.abs(Math.log(price / previous)) / sigma;
      volume[j] = 16 * volumeFactor * (0.6 + 0.4 * move) * (0.45 + 1.1 * random());
      previous = price;
    }
    const hours = { open: new Float64Array(4), high: new Float64Array(4), low: new Float64Array(4), close: new Float64Array(4), volume: new Float64Array(4) };
    for (let h = 0; h < 4; h++) {
      hours.open[h] = h === 0 ? Math.exp(start) : close[h * 60 - 1];
      hours.high[h] = -Infinity;
      hours.low[h] = Infinity;
      for (let j = h * 60; j < h * 60 + 60; j++) {
        hours.high[h] = Math.max(hours.high[h], high[j]);
        hours.low[h] = Math.min(hours.low[h], low[j]);
        hours.volume[h] += volume[j];
      }
      hours.close[h] = close[h * 60 + 59];
    }
    const minutes: BlockMinutes = { close, high, low, volume, hours };
    this.minutesByBlock.set(b, minutes);
    return minutes;
  }

  /** Base price (the five venues' common mid) ticked at the start of minute index `minute` (since SIM_EPOCH). */
  price(minute: number): number {
    const b = Math.floor(minute / BLOCK_MINUTES);
    return this.block(b).close[minute - b * BLOCK_MINUTES];
  }

  minuteBar(minute: number): { open: number; high: number; low: number; close: number; volume: number } {
    const b = Math.floor(minute / BLOCK_MINUTES);
    const j = minute - b * BLOCK_MINUTES;
    const block = this.block(b);
    return { open: this.price(minute - 1), high: block.high[j], low: block.low[j], close: block.close[j], volume: block.volume[j] };
  }

  hourBar(hour: number): { open: number; high: number; low: number; close: number; volume: number } {
    const b = Math.floor(hour / 4);
    const h = hour - b * 4;
    const { hours } = this.block(b);
    return { open: hours.open[h], high: hours.high[h], low: hours.low[h], close: hours.close[h], volume: hours.volume[h] };
  }

  /** Drops the minutes of blocks before `block` (their hourly bars go with them; older history reads anchors). */
  forgetBefore(block: number) {
    for (const b of this.minutesByBlock.keys()) if (b < block) this.minutesByBlock.delete(b);
  }
}

/** Minute index (minutes since SIM_EPOCH) of an instant: the minute ticks at SIM_EPOCH + index minutes. */
export function minuteOf(time: number): number {
  return Math.floor((time - SIM_EPOCH) / MINUTE_MS);
}
export function minuteStart(minute: number): number {
  return SIM_EPOCH + minute * MINUTE_MS;
}
/** Hour index since SIM_EPOCH. */
export function hourOf(time: number): number {
  return Math.floor((time - SIM_EPOCH) / HOUR_MS);
}
export function hourStart(hour: number): number {
  return SIM_EPOCH + hour * HOUR_MS;
}
/** Block index (4-hour blocks since SIM_EPOCH) of an instant. */
export function blockOf(time: number): number {
  return Math.floor((time - SIM_EPOCH) / BLOCK_MS);
}
export function blockStart(block: number): number {
  return SIM_EPOCH + block * BLOCK_MS;
}
