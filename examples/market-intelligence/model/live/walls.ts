// Order-book walls from polled books. Each poll groups a side's levels into price bins (`binPct` of
// the mid, so venues with fine and coarse ticks compare alike); a bin is a wall candidate when it
// holds at least `multiple` × the median non-empty bin of that side and at least `minValueUsd`
// ($2M, the endpoint's wall floor). A candidate is confirmed once it has rested `confirmMs` (5 minutes,
// the endpoint's `confirmation_minutes`) across at least `confirmPolls` consecutive polls. When a tracked wall is missing
// from a poll it has ended: `filled` if price reached it (best bid at or below a bid wall, best ask
// at or above an ask wall), otherwise `pulled`. Ended walls are kept for `endedRetentionMs`.
// The bin width is rounded to 1, 2 or 5 × a power of ten so a wall keeps its bin (and id) while
// the mid moves between polls.
import type { OrderBook, OrderBookWall, Venue } from "../types.ts";

export interface WallRules {
  binPct: number;
  multiple: number;
  minValueUsd: number;
  confirmPolls: number;
  confirmMs: number;
  endedRetentionMs: number;
}

/** The defaults docs/market-live-source.md states. */
export const DEFAULT_WALL_RULES: WallRules = {
  binPct: 0.0005,
  multiple: 5,
  minValueUsd: 2_000_000,
  confirmPolls: 3,
  confirmMs: 300_000,
  endedRetentionMs: 3_600_000,
};

interface Tracked {
  wall: OrderBookWall;
  polls: number;
}

/** `raw` rounded down to 1, 2 or 5 × 10^n (30 → 20, 60 → 50). */
export function binWidth(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  return [5, 2, 1].map((step) => step * power).find((width) => width <= raw) ?? power;
}

/** Walls on one side of a book: bin price → the bin's size and its size-weighted price. */
export function detectWalls(book: OrderBook, side: "bid" | "ask", rules: WallRules): Array<{ bin: number; price: number; size: number }> {
  const levels = side === "bid" ? book.bids : book.asks;
  const best = [book.bids[0]?.price, book.asks[0]?.price].filter((price): price is number => price !== undefined && price > 0);
  if (!levels.length || !best.length) return [];
  const mid = best.reduce((a, b) => a + b, 0) / best.length;
  const width = binWidth(mid * rules.binPct);
  const bins = new Map<number, { size: number; notional: number }>();
  for (const level of levels) {
    const bin = Math.round(Math.floor(level.price / width) * width * 100) / 100;
    const entry = bins.get(bin) ?? { size: 0, notional: 0 };
    entry.size += level.size;
    entry.notional += level.size * level.price;
    bins.set(bin, entry);
  }
  const sizes = [...bins.values()].map((entry) => entry.size).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)];
  const walls: Array<{ bin: number; price: number; size: number }> = [];
  for (const [bin, entry] of bins) {
    if (sizes.length < 3 || entry.size < rules.multiple * median || entry.notional < rules.minValueUsd) continue;
    walls.push({ bin, price: entry.notional / entry.size, size: entry.size });
  }
  return walls;
}

/** The walls of every venue, updated poll by poll. */
export class WallTracker {
  private readonly tracked = new Map<string, Tracked>();
  private readonly ended: OrderBookWall[] = [];
  private readonly lastPoll = new Map<Venue, number>();

  constructor(private readonly rules: WallRules = DEFAULT_WALL_RULES) {}

  /** Feeds one polled book; a book already seen (same venue and time, from the cache) counts once. */
  observe(book: OrderBook, now: number): void {
    if (this.lastPoll.get(book.venue) === book.time) return;
    this.lastPoll.set(book.venue, book.time);
    const present = new Set<string>();
    for (const side of ["bid", "ask"] as const) {
      for (const found of detectWalls(book, side, this.rules)) {
        const id = `${book.venue}:${side}:${found.bin}`;
        present.add(id);
        const known = this.tracked.get(id);
        if (known) {
          known.polls += 1;
          Object.assign(known.wall, { price: found.price, size: found.size, valueUsd: found.price * found.size, lastSeen: now });
          known.wall.confirmed = known.polls >= this.rules.confirmPolls && now - known.wall.firstSeen >= this.rules.confirmMs;
        } else {
          this.tracked.set(id, {
            polls: 1,
            wall: {
              id,
              venue: book.venue,
              side,
              price: found.price,
              size: found.size,
              valueUsd: found.price * found.size,
              firstSeen: now,
              lastSeen: now,
              confirmed: this.rules.confirmPolls <= 1 && this.rules.confirmMs <= 0,
            },
          });
        }
      }
    }
    for (const [id, entry] of this.tracked) {
      if (entry.wall.venue !== book.venue || present.has(id)) continue;
      this.tracked.delete(id);
      if (!entry.wall.confirmed) continue;
      const bestBid = book.bids[0]?.price ?? Infinity;
      const bestAsk = book.asks[0]?.price ?? 0;
      const reached = entry.wall.side === "bid" ? bestBid <= entry.wall.price : bestAsk >= entry.wall.price;
      this.ended.push({ ...entry.wall, endedAt: now, endReason: reached ? "filled" : "pulled" });
    }
    while (this.ended.length && this.ended[0].endedAt! < now - this.rules.endedRetentionMs) this.ended.shift();
  }

  /** Active walls (confirmed, plus candidates when asked), largest value first. */
  active(options: { venue?: Venue; includeCandidates?: boolean } = {}): OrderBookWall[] {
    return [...this.tracked.values()]
      .map((entry) => entry.wall)
      .filter((wall) => (!options.venue || wall.venue === options.venue) && (wall.confirmed || options.includeCandidates))
      .map((wall) => ({ ...wall }))
      .sort((a, b) => b.valueUsd - a.valueUsd);
  }

  /** Walls that ended within the retention, oldest first. */
  endedWalls(venue?: Venue): OrderBookWall[] {
    return this.ended.filter((wall) => !venue || wall.venue === venue).map((wall) => ({ ...wall }));
  }
}
