// The five spot venues over the one base path: each quotes the base price times a small per-hour
// premium (Coinbase a touch above, Kraken a touch below), takes its share of the volume, keeps its
// own spread and order book, and hosts large resting walls that appear, rest, and are pulled or
// filled. Candles of every timeframe aggregate the same minutes, so a venue's 1d candle, its 1h
// candles and its 1m candles always agree, and its ticker is its newest 1m close.
import { TIMEFRAME_MS, VENUES, type BookLevel, type Candle, type OrderBookWall, type Timeframe, type Venue } from "../types.ts";
import { HOUR_MS, MINUTE_MS, SIM_EPOCH, type MarketPath, minuteStart } from "./market-path.ts";
import { STREAM, gaussian, hash32, seededRandom, unit } from "./random.ts";

/** Per venue: mean premium over the base price, half spread (fractions), volume share, wall size scale. */
export const VENUE_PROFILE: Record<Venue, { premium: number; halfSpread: number; share: number; wallScale: number; tick: number }> = {
  binance: { premium: 0, halfSpread: 0.000006, share: 0.42, wallScale: 1.6, tick: 0.01 },
  coinbase: { premium: 0.00022, halfSpread: 0.00002, share: 0.2, wallScale: 1, tick: 0.01 },
  kraken: { premium: -0.00012, halfSpread: 0.00004, share: 0.12, wallScale: 0.6, tick: 0.1 },
  bitstamp: { premium: 0.0001, halfSpread: 0.00006, share: 0.08, wallScale: 0.4, tick: 1 },
  okx: { premium: -0.00005, halfSpread: 0.00002, share: 0.18, wallScale: 1.1, tick: 0.1 },
};

/** A wall counts as confirmed once it has rested this long; younger ones are candidates. */
export const WALL_CONFIRM_MINUTES = 5;
/** Walls are at least this large in USD (smaller orders are ordinary depth). */
export const WALL_MIN_USD = 2_000_000;
const MAX_WALL_MINUTES = 480;

/** Rounds to a step (0.01, 0.1, 1, 50...) without binary leftovers such as 44510.450000000004. */
export function round(value: number, step: number): number {
  return step >= 1 ? Math.round(value / step) * step : Math.round(value / step) / Math.round(1 / step);
}

/** Prices to the cent, volumes to 0.1 mBTC: what every candle answers. */
function tidyCandle(c: Candle): Candle {
  return {
    time: c.time,
    open: round(c.open, 0.01),
    high: round(c.high, 0.01),
    low: round(c.low, 0.01),
    close: round(c.close, 0.01),
    volume: round(c.volume, 0.0001),
  };
}

export class Venues {
  private readonly closedCandles = new Map<string, Candle>();
  private readonly wallEnds = new Map<string, { checkedUntil: number; end?: { minute: number; reason: "pulled" | "filled" } }>();

  constructor(
    private readonly path: MarketPath,
    private readonly seed: number,
  ) {}

  /** The venue's price factor during an hour (1 + premium + noise of a few basis points). */
  factor(venue: Venue, hour: number): number {
    const v = VENUES.indexOf(venue);
    const random = seededRandom(hash32(this.seed, STREAM.venue, v, hour));
    return 1 + VENUE_PROFILE[venue].premium + 0.00012 * gaussian(random);
  }

  volumeShare(venue: Venue, hour: number): number {
    return VENUE_PROFILE[venue].share * Math.exp(0.2 * (unit(this.seed, STREAM.venue, 100 + VENUES.indexOf(venue), hour) - 0.5));
  }

  /** A venue's 1-minute candle (minute index since SIM_EPOCH). */
  minuteCandle(venue: Venue, minute: number): Candle {
    const hour = Math.floor(minute / 60);
    const base = this.path.minuteBar(minute);
    const f = this.factor(venue, hour);
    const open = base.open * (minute % 60 === 0 ? this.factor(venue, hour - 1) : f);
    const close = base.close * f;
    return tidyCandle({
      time: minuteStart(minute),
      open,
      high: Math.max(base.high * f, open, close),
      low: Math.min(base.low * f, open, close),
      close,
      volume: base.volume * this.volumeShare(venue, hour),
    });
  }

  /** A venue's candle of an hour, up to and including minute `lastMinute` when the hour is in progress. */
  private hourCandle(venue: Venue, hour: number, lastMinute: number): Candle {
    const firstMinute = hour * 60;
    if (lastMinute >= firstMinute + 59) {
      const base = this.path.hourBar(hour);
      const f = this.factor(venue, hour);
      const open = base.open * this.factor(venue, hour - 1);
      const close = base.close * f;
      return tidyCandle({
        time: SIM_EPOCH + hour * HOUR_MS,
        open,
        high: Math.max(base.high * f, open),
        low: Math.min(base.low * f, open),
        close,
        volume: base.volume * this.volumeShare(venue, hour),
      });
    }
    return this.aggregate(Array.from({ length: lastMinute - firstMinute + 1 }, (_, i) => this.minuteCandle(venue, firstMinute + i)));
  }

  private aggregate(parts: Candle[]): Candle {
    const out = { ...parts[0] };
    for (const c of parts.slice(1)) {
      out.high = Math.max(out.high, c.high);
      out.low = Math.min(out.low, c.low);
      out.close = c.close;
      out.volume += c.volume;
    }
    return tidyCandle(out);
  }

  /** The candle of period `index` (open time SIM_EPOCH + index × timeframe), partial when it contains `nowMinute`. */
  candle(venue: Venue, timeframe: Timeframe, index: number, nowMinute: number): Candle {
    const minutesPer = TIMEFRAME_MS[timeframe] / MINUTE_MS;
    if (timeframe === "1m") return this.minuteCandle(venue, index);
    const firstMinute = index * minutesPer;
    const lastMinute = Math.min(firstMinute + minutesPer - 1, nowMinute);
    const closed = lastMinute === firstMinute + minutesPer - 1;
    const key = `${venue}:${timeframe}:${index}`;
    if (closed) {
      const cached = this.closedCandles.get(key);
      if (cached) return cached;
    }
    let candle: Candle;
    if (timeframe === "1h") candle = this.hourCandle(venue, index, lastMinute);
    else {
      const hours: Candle[] = [];
      for (let hour = firstMinute / 60; hour * 60 <= lastMinute; hour++) hours.push(this.hourCandle(venue, hour, lastMinute));
      candle = this.aggregate(hours);
      candle.time = minuteStart(firstMinute);
    }
    if (closed) this.closedCandles.set(key, candle);
    return candle;
  }

  private readonly tickers = new Map<Venue, { minute: number; ticker: ReturnType<Venues["computeTicker"]> }>();

  /** Ticker at a minute (computed once per venue and minute): the venue's 1m close, its spread, and the 24 h volume of its 1m candles. */
  ticker(venue: Venue, nowMinute: number, now: number) {
    const cached = this.tickers.get(venue);
    if (cached?.minute === nowMinute) return { ...cached.ticker, time: now };
    const ticker = this.computeTicker(venue, nowMinute, now);
    this.tickers.set(venue, { minute: nowMinute, ticker });
    return ticker;
  }

  private computeTicker(venue: Venue, nowMinute: number, now: number) {
    const candle = this.minuteCandle(venue, nowMinute);
    const halfSpread = VENUE_PROFILE[venue].halfSpread;
    let volume24h = 0;
    // Whole hours from their hourly bars, the ragged ends minute by minute.
    const first = nowMinute - 1439;
    let m = first;
    while (m <= nowMinute) {
      if (m % 60 === 0 && m + 59 <= nowMinute) {
        volume24h += this.hourCandle(venue, m / 60, nowMinute).volume;
        m += 60;
      } else {
        volume24h += this.path.minuteBar(m).volume * this.volumeShare(venue, Math.floor(m / 60));
        m++;
      }
    }
    const dayAgo = this.minuteCandle(venue, nowMinute - 1440).close;
    const tick = VENUE_PROFILE[venue].tick;
    return {
      venue,
      time: now,
      price: candle.close,
      bid: Math.min(round(candle.close * (1 - halfSpread), tick), candle.close),
      ask: Math.max(round(candle.close * (1 + halfSpread), tick), candle.close),
      volume24h: round(volume24h, 0.0001),
      change24hPct: round((candle.close / dayAgo - 1) * 100, 0.001),
    };
  }

  /**
   * Walls born in an hour on a venue: each rests until price trades through it (filled) or until
   * its planned life ends (pulled). About a third are pulled within minutes, the rest rest for hours.
   */
  private wallsOfHour(venue: Venue, hour: number) {
    const v = VENUES.indexOf(venue);
    const random = seededRandom(hash32(this.seed, STREAM.walls, v, hour));
    const count = Math.floor(random() * 3.2);
    const out: Array<{ id: string; side: "bid" | "ask"; born: number; plannedEnd: number; price: number; size: number }> = [];
    for (let i = 0; i < count; i++) {
      const born = hour * 60 + Math.floor(random() * 60);
      const fleeting = random() < 0.35;
      const life = fleeting ? 1 + Math.floor(random() * 7) : 20 + Math.floor(random() * (MAX_WALL_MINUTES - 20));
      const side = random() < 0.5 ? "bid" : "ask";
      const distance = 0.004 + random() * 0.021;
      const reference = this.path.price(born) * this.factor(venue, hour);
      // Walls sit on round numbers, as real ones do.
      const price = round(side === "bid" ? reference * (1 - distance) : reference * (1 + distance), 50);
      const size = Math.round(VENUE_PROFILE[venue].wallScale * 60 * Math.exp(0.6 * gaussian(random)) * 100) / 100;
      if (size * price < WALL_MIN_USD) continue;
      out.push({ id: `${venue}-${hour}-${i}`, side, born, plannedEnd: born + life, price, size });
    }
    return out;
  }

  /** When a wall ended, if it has by `minute`: filled the minute price traded through it, else pulled at its planned end. */
  private wallEnd(venue: Venue, wall: ReturnType<Venues["wallsOfHour"]>[number], minute: number) {
    let state = this.wallEnds.get(wall.id);
    if (!state) this.wallEnds.set(wall.id, (state = { checkedUntil: wall.born }));
    if (state.end) return state.end.minute <= minute ? state.end : undefined;
    const until = Math.min(minute, wall.plannedEnd);
    for (let m = state.checkedUntil + 1; m <= until; m++) {
      const c = this.minuteCandle(venue, m);
      if (m === wall.plannedEnd) {
        state.end = { minute: m, reason: "pulled" };
        break;
      }
      if ((wall.side === "bid" && c.low <= wall.price) || (wall.side === "ask" && c.high >= wall.price)) {
        state.end = { minute: m, reason: "filled" };
        break;
      }
    }
    state.checkedUntil = Math.max(state.checkedUntil, until);
    return state.end && state.end.minute <= minute ? state.end : undefined;
  }

  private readonly wallsAt = new Map<Venue, { minute: number; walls: OrderBookWall[] }>();

  /** The walls resting on a venue at a minute (confirmed, and candidates younger than WALL_CONFIRM_MINUTES), computed once a minute. */
  walls(venue: Venue, minute: number): OrderBookWall[] {
    const cached = this.wallsAt.get(venue);
    if (cached?.minute === minute) return cached.walls;
    const walls = this.computeWalls(venue, minute);
    this.wallsAt.set(venue, { minute, walls });
    return walls;
  }

  private computeWalls(venue: Venue, minute: number): OrderBookWall[] {
    // Forget the end state of walls born long before anything asked about: the map stays small however long the process runs.
    if (this.wallEnds.size > 20_000) {
      for (const [id, state] of this.wallEnds) if (state.checkedUntil < minute - 2 * MAX_WALL_MINUTES) this.wallEnds.delete(id);
    }
    const out: OrderBookWall[] = [];
    const nowHour = Math.floor(minute / 60);
    for (let hour = nowHour - Math.ceil(MAX_WALL_MINUTES / 60) - 1; hour <= nowHour; hour++) {
      for (const wall of this.wallsOfHour(venue, hour)) {
        if (wall.born > minute) continue;
        if (this.wallEnd(venue, wall, minute)) continue;
        out.push({
          id: wall.id,
          venue,
          side: wall.side,
          price: wall.price,
          size: wall.size,
          valueUsd: wall.size * wall.price,
          firstSeen: minuteStart(wall.born),
          lastSeen: minuteStart(minute),
          confirmed: minute - wall.born >= WALL_CONFIRM_MINUTES,
        });
      }
    }
    return out.sort((a, b) => b.valueUsd - a.valueUsd);
  }

  /** Walls that ended in (fromMinute, toMinute], with why: the history of walls and the alerts read it. */
  endedWalls(venue: Venue, fromMinute: number, toMinute: number): OrderBookWall[] {
    const out: OrderBookWall[] = [];
    for (let hour = Math.floor(fromMinute / 60) - Math.ceil(MAX_WALL_MINUTES / 60) - 1; hour <= Math.floor(toMinute / 60); hour++) {
      for (const wall of this.wallsOfHour(venue, hour)) {
        const end = this.wallEnd(venue, wall, toMinute);
        if (!end || end.minute <= fromMinute) continue;
        out.push({
          id: wall.id,
          venue,
          side: wall.side,
          price: wall.price,
          size: wall.size,
          valueUsd: wall.size * wall.price,
          firstSeen: minuteStart(wall.born),
          lastSeen: minuteStart(end.minute - 1),
          confirmed: end.minute - wall.born >= WALL_CONFIRM_MINUTES,
          endedAt: minuteStart(end.minute),
          endReason: end.reason,
        });
      }
    }
    return out;
  }

  /**
   * The order book at a minute: levels spaced wider with distance (out to about 3 %), sizes growing
   * with it, and the venue's resting walls as their own levels.
   */
  orderBook(venue: Venue, minute: number, depth: number) {
    const t = this.ticker(venue, minute, minuteStart(minute));
    const random = seededRandom(hash32(this.seed, STREAM.book, VENUES.indexOf(venue), minute));
    const tick = VENUE_PROFILE[venue].tick;
    const scale = VENUE_PROFILE[venue].wallScale;
    const side = (best: number, sign: -1 | 1): BookLevel[] => {
      const levels = new Map<number, number>();
      for (let i = 0; i < 60; i++) {
        const price = round(best * (1 + sign * 0.00004 * i ** 1.7), tick);
        const size = Math.round(scale * (0.05 + 0.08 * i) * Math.exp(0.7 * gaussian(random)) * 1e4) / 1e4;
        levels.set(price, (levels.get(price) ?? 0) + size);
      }
      return [...levels].map(([price, size]) => ({ price, size }));
    };
    const bids = side(t.bid, -1);
    const asks = side(t.ask, 1);
    for (const wall of this.walls(venue, minute)) {
      const levels = wall.side === "bid" ? bids : asks;
      const existing = levels.find((l) => l.price === wall.price);
      if (existing) existing.size += wall.size;
      else levels.push({ price: wall.price, size: wall.size });
    }
    bids.sort((a, b) => b.price - a.price);
    asks.sort((a, b) => a.price - b.price);
    const tidy = (levels: BookLevel[]) => levels.slice(0, depth).map((l) => ({ price: round(l.price, tick), size: Math.round(l.size * 1e4) / 1e4 }));
    return { venue, time: minuteStart(minute), bids: tidy(bids), asks: tidy(asks) };
  }
}
