// Wall detection and its life cycle on synthetic books: the bin rule, confirmation after resting
// five minutes over at least three polls, a candidate that vanishes unconfirmed, and the end reason (filled when price reached the
// wall, pulled otherwise).
import { describe, expect, it } from "vitest";
import type { OrderBook } from "../types.ts";
import { binWidth, DEFAULT_WALL_RULES, detectWalls, WallTracker } from "./walls.ts";

const MINUTE = 60_000;

/** A book around `mid`: 200 levels a side 0.5 $ apart of 0.3 BTC, plus extra size at given prices. */
function book(time: number, mid: number, extra: Array<{ side: "bid" | "ask"; price: number; size: number }> = []): OrderBook {
  const bids = Array.from({ length: 200 }, (_, i) => ({ price: mid - 0.5 - i * 0.5, size: 0.3 }));
  const asks = Array.from({ length: 200 }, (_, i) => ({ price: mid + 0.5 + i * 0.5, size: 0.3 }));
  for (const wall of extra) {
    const levels = wall.side === "bid" ? bids : asks;
    const level = levels.find((entry) => entry.price === wall.price);
    if (level) level.size += wall.size;
  }
  return { venue: "binance", time, bids, asks };
}

describe("order-book walls", () => {
  it("bins are 1, 2 or 5 × 10^n wide so they stay put while the mid moves", () => {
    expect(binWidth(30)).toBe(20);
    expect(binWidth(30.0005)).toBe(20);
    expect(binWidth(60)).toBe(50);
    expect(binWidth(10)).toBe(10);
    expect(binWidth(0.7)).toBe(0.5);
  });

  it("a bin is a wall at 5× the side's median bin and above the USD floor", () => {
    // 20 $ bins of 40 levels × 0.3 = 12 BTC; +50 BTC at 59 950.5 makes a 62 BTC bin (> 60 BTC, > 2 M$).
    expect(detectWalls(book(1, 60_000, [{ side: "bid", price: 59_950.5, size: 50 }]), "bid", DEFAULT_WALL_RULES)).toEqual([
      { bin: 59_940, price: expect.closeTo((59_950.5 * 50 + 12 * 59_949.75) / 62, 0), size: expect.closeTo(62, 6) },
    ]);
    expect(detectWalls(book(1, 60_000, [{ side: "bid", price: 59_950.5, size: 45 }]), "bid", DEFAULT_WALL_RULES)).toEqual([]);
    expect(detectWalls(book(1, 60_000, [{ side: "bid", price: 59_950.5, size: 50 }]), "bid", { ...DEFAULT_WALL_RULES, minValueUsd: 5_000_000 })).toEqual([]);
  });

  it("confirms after resting 5 minutes over 3 consecutive polls, ignores a repeated (cached) book, and records a pull", () => {
    const tracker = new WallTracker();
    const wall = [{ side: "ask" as const, price: 60_040.5, size: 80 }];
    tracker.observe(book(1, 60_000, wall), 0);
    tracker.observe(book(1, 60_000, wall), 0.5 * MINUTE);
    tracker.observe(book(2, 60_000, wall), 5 * MINUTE);
    // Five minutes old but seen in two polls only (the repeated book counts once): still a candidate.
    expect(tracker.active()).toEqual([]);
    expect(tracker.active({ includeCandidates: true })).toMatchObject([{ side: "ask", confirmed: false, firstSeen: 0, lastSeen: 5 * MINUTE }]);
    tracker.observe(book(3, 60_001, wall), 5 * MINUTE + 1);
    expect(tracker.active()).toMatchObject([{ id: "binance:ask:60040", confirmed: true }]);
    tracker.observe(book(4, 60_001), 6 * MINUTE);
    expect(tracker.active({ includeCandidates: true })).toEqual([]);
    expect(tracker.endedWalls()).toMatchObject([{ side: "ask", endedAt: 6 * MINUTE, endReason: "pulled" }]);
  });

  it("polls alone are not enough: a wall must rest 5 minutes", () => {
    const tracker = new WallTracker();
    const wall = [{ side: "ask" as const, price: 60_040.5, size: 80 }];
    for (const time of [1, 2, 3, 4]) tracker.observe(book(time, 60_000, wall), time * MINUTE);
    expect(tracker.active()).toEqual([]);
    tracker.observe(book(6, 60_000, wall), 6 * MINUTE);
    expect(tracker.active()).toHaveLength(1);
  });

  it("a wall that price reached ends filled; an unconfirmed candidate that vanishes leaves no record", () => {
    const tracker = new WallTracker();
    const bidWall = [{ side: "bid" as const, price: 59_950.5, size: 60 }];
    for (const time of [0, 3, 6]) tracker.observe(book(time, 60_000, bidWall), time * MINUTE);
    // Price fell through the wall: the best bid is now below it.
    tracker.observe(book(7, 59_900), 7 * MINUTE);
    expect(tracker.endedWalls()).toMatchObject([{ side: "bid", endReason: "filled" }]);
    tracker.observe(book(8, 60_000, [{ side: "ask", price: 60_040.5, size: 80 }]), 8 * MINUTE);
    tracker.observe(book(9, 60_000), 9 * MINUTE);
    expect(tracker.endedWalls()).toHaveLength(1);
  });
});
