// The one deterministic market every fake upstream reads, so the five venues, the futures and the
// options chain agree with each other the way real venues roughly do: a BTC price path that is a
// pure function of time (daily and hourly waves around `basePrice`), candles cut from it at any
// timeframe, and books around it with optional planted walls. Times in epoch ms; `now` is the
// fakes' clock (the tests share it with the source).
export interface FakeCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

export interface PlantedWall {
  venue: string;
  side: "bid" | "ask";
  /** Distance from the mid as a fraction (0.002 = 0.2 %). */
  offset: number;
  size: number;
}

/** Small per-venue price offsets (fractions), as venues never print the exact same price. */
const VENUE_OFFSET: Record<string, number> = { binance: 0, coinbase: 0.0002, kraken: -0.0001, bitstamp: 0.0003, okx: -0.0002 };

export class FakeMarket {
  /** Planted order-book walls: the tests add and remove them to watch detection, confirmation and pulls. */
  walls: PlantedWall[] = [];
  /** When set, books are built around the price of this time instead of now: a still book while the clock runs (wall tests). */
  bookTime: number | null = null;

  constructor(
    readonly now: () => number,
    readonly basePrice = 60_000,
  ) {}

  /** The path: a ±3 % wave of 31 hours (so the 24-hour change is not zero) and a ±0.4 % hourly one, a pure function of time. */
  price(time: number, venue = "binance"): number {
    const day = Math.sin((2 * Math.PI * time) / 111_600_000);
    const hour = Math.sin((2 * Math.PI * time) / 3_600_000 + 1);
    return Math.round(this.basePrice * (1 + 0.03 * day + 0.004 * hour) * (1 + (VENUE_OFFSET[venue] ?? 0)) * 100) / 100;
  }

  /** The candle opening at `openTime` (aligned by the caller); the current one closes at the price of now. */
  candle(openTime: number, spanMs: number, venue = "binance"): FakeCandle {
    const closeTime = Math.min(openTime + spanMs, this.now());
    const open = this.price(openTime, venue);
    const close = this.price(closeTime, venue);
    const samples = [open, close, this.price(openTime + (closeTime - openTime) / 3, venue), this.price(openTime + (2 * (closeTime - openTime)) / 3, venue)];
    const wiggle = (Math.abs(Math.sin(openTime / 7_777_777)) * 0.001 + 0.0002) * open;
    return {
      time: openTime,
      open,
      high: Math.round((Math.max(...samples) + wiggle) * 100) / 100,
      low: Math.round((Math.min(...samples) - wiggle) * 100) / 100,
      close,
      volume: Math.round((spanMs / 60_000) * (2 + Math.abs(Math.sin(openTime / 1_234_567)) * 3) * 1e4) / 1e4,
    };
  }

  /** Candles with open times in [fromOpen, toOpen], oldest first, not past now; `alignOffsetMs` shifts the grid (OKX's Hong Kong days). */
  candles(spanMs: number, fromOpen: number, toOpen: number, venue = "binance", alignOffsetMs = 0): FakeCandle[] {
    const out: FakeCandle[] = [];
    const last = Math.min(toOpen, this.now());
    for (let time = Math.ceil((fromOpen - alignOffsetMs) / spanMs) * spanMs + alignOffsetMs; time <= last; time += spanMs)
      out.push(this.candle(time, spanMs, venue));
    return out;
  }

  /** The newest `count` candles with open time ≤ `lastOpen` (default now), oldest first. */
  latestCandles(spanMs: number, count: number, lastOpen = this.now(), venue = "binance", alignOffsetMs = 0): FakeCandle[] {
    const newest = Math.floor((Math.min(lastOpen, this.now()) - alignOffsetMs) / spanMs) * spanMs + alignOffsetMs;
    return this.candles(spanMs, newest - (count - 1) * spanMs, newest, venue, alignOffsetMs);
  }

  /** A book of `depth` levels a side, `tick` $ apart (0.5 by default; Bitstamp quotes whole dollars), sizes varying, with the planted walls added. */
  book(venue: string, depth: number, tick = 0.5): { bids: Array<[number, number]>; asks: Array<[number, number]>; mid: number } {
    const mid = this.price(this.bookTime ?? this.now(), venue);
    const bestBid = Math.floor((mid - tick / 2) / tick) * tick;
    const bids: Array<[number, number]> = [];
    const asks: Array<[number, number]> = [];
    for (let i = 0; i < depth; i += 1) {
      const size = Math.round((0.05 + Math.abs(Math.sin(i * 12.9898)) * 0.5) * 1e4) / 1e4;
      bids.push([Math.round((bestBid - i * tick) * 100) / 100, size]);
      asks.push([Math.round((bestBid + tick + i * tick) * 100) / 100, size]);
    }
    for (const wall of this.walls.filter((entry) => entry.venue === venue)) {
      const levels = wall.side === "bid" ? bids : asks;
      const target = wall.side === "bid" ? mid * (1 - wall.offset) : mid * (1 + wall.offset);
      const nearest = levels.reduce((best, level, index) => (Math.abs(level[0] - target) < Math.abs(levels[best][0] - target) ? index : best), 0);
      levels[nearest] = [levels[nearest][0], levels[nearest][1] + wall.size];
    }
    return { bids, asks, mid };
  }
}
