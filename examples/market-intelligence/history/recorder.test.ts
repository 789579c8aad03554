// The recorder against a fixed in-test source: the year's backfill (here 20 days, in batches of 100),
// idempotence and crash-resume, later ticks, the hourly states, the snapshot schedule, no overlapping
// ticks, and retention. On PGlite, and on PostgreSQL in CI's second pass.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { indicatorSeries } from "../analytics/indicators.ts";
import { VENUES } from "../model/types.ts";
import { FixtureMarketSource } from "./fixture-source.ts";
import { HistoryRecorder, SNAPSHOT_SOURCES, classifyTrend, type HistoryRecorderOptions } from "./recorder.ts";
import { openScratchHistoryStore, type ScratchHistoryStore } from "./scratch-store.ts";
import { DEFAULT_RETENTION, HISTORY_TIMEFRAMES, type HistoryStore } from "./store.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const MINUTE = 60_000;
const T0 = Date.UTC(2025, 11, 1);
/** 31 days of hours (the last one after NOW): 18 days rising 0.2 % an hour, then falling 0.2 % an hour, with a ripple. */
const CLOSES = Array.from(
  { length: 744 },
  (_, i) => 30_000 * Math.pow(1.002, Math.min(i, 432)) * Math.pow(0.998, Math.max(0, i - 432)) * (1 + 0.001 * Math.sin(i / 3)),
);
const NOW = T0 + 30 * DAY;
const fearGreedOf = (dayStart: number) => Math.round(dayStart / DAY) % 101;
/** Per venue, in [NOW − 20 d, NOW): 480 hours, 120 four-hour and 20 daily candles. */
const EXPECTED = { "1h": 480, "4h": 120, "1d": 20 } as const;

let scratch: ScratchHistoryStore;
let store: HistoryStore;
beforeAll(async () => {
  scratch = await openScratchHistoryStore();
  store = scratch.store;
});
afterAll(async () => {
  await scratch?.close();
});
beforeEach(async () => {
  await scratch.reset();
});

function setup(options: Partial<HistoryRecorderOptions> = {}) {
  const source = new FixtureMarketSource({ start: T0, closes: CLOSES, now: NOW, fearGreed: fearGreedOf });
  const recorder = new HistoryRecorder({ store, source, backfillDays: 20, batchSize: 100, ...options });
  return { source, recorder };
}

async function rowCounts(): Promise<Record<string, number>> {
  const rows = await store.sql.query<{ key: string; n: number }>(
    `SELECT venue || ':' || timeframe AS key, count(*)::int AS n FROM ${store.schema}.candles GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, r.n]));
}

const expectedCounts = () => Object.fromEntries(VENUES.flatMap((v) => HISTORY_TIMEFRAMES.map((tf) => [`${v}:${tf}`, EXPECTED[tf]])));

describe("history recorder", () => {
  it("backfills every venue and timeframe on its first tick; a repeated tick inserts nothing", async () => {
    const { recorder } = setup();
    const first = await recorder.tick(NOW)!;
    expect(first.errors).toEqual([]);
    expect(first.candles).toEqual(expectedCounts());
    expect(first.states).toBe(480);
    expect(await rowCounts()).toEqual(expectedCounts());
    const oldest = await store.candles("kraken", "1h", { limit: 1, offset: 479 });
    expect(oldest.items[0].time).toBe(NOW - 20 * DAY);
    expect(await store.latestCandleTime("okx", "1d")).toBe(NOW - DAY);

    const again = await recorder.tick(NOW)!;
    expect(Object.values(again.candles).every((n) => n === 0)).toBe(true);
    expect(again.states).toBe(0);
    expect(await rowCounts()).toEqual(expectedCounts());
  });

  it("after a crash mid-backfill, the next start resumes after the last stored batch and stores each candle once", async () => {
    const crashing = setup();
    crashing.source.failOnCandleCall = 3; // binance 1h, hours 200–299
    const first = await crashing.recorder.tick(NOW)!;
    expect(first.errors).toEqual(["candles binance 1h: fixture: the source failed"]);
    expect(first.candles["binance:1h"]).toBeUndefined();
    expect((await rowCounts())["binance:1h"]).toBe(200);

    const restarted = setup();
    const second = await restarted.recorder.tick(NOW)!;
    expect(second.errors).toEqual([]);
    expect(second.candles["binance:1h"]).toBe(280);
    expect(Object.entries(second.candles).filter(([key, n]) => key !== "binance:1h" && n !== 0)).toEqual([]);
    const binanceCalls = restarted.source.candleCalls.filter((c) => c.venue === "binance" && c.timeframe === "1h");
    expect(binanceCalls[0].query.start).toBe(NOW - 20 * DAY + 200 * HOUR);
    expect(await rowCounts()).toEqual(expectedCounts());
  });

  it("later ticks record only the candles that closed since", async () => {
    const { source, recorder } = setup();
    await recorder.tick(NOW);
    source.setNow(NOW + 2 * HOUR + 5 * MINUTE);
    const later = await recorder.tick()!;
    expect(later.candles["binance:1h"]).toBe(2);
    expect(later.candles["okx:1h"]).toBe(2);
    expect(later.candles["binance:4h"]).toBe(0);
    expect(later.candles["binance:1d"]).toBe(0);
    expect(later.states).toBe(2);
    expect(await store.latestCandleTime("binance", "1h")).toBe(NOW + HOUR);
  });

  it("derives the hourly states from the analytics' indicators, fear & greed by day, and the trend", async () => {
    const { recorder } = setup();
    await recorder.tick(NOW);
    const candles = (await store.candles("binance", "1h", { limit: 1000, offset: 0 })).items.reverse();
    const series = indicatorSeries(candles);
    const probes = [5, 100, 300, 479];
    const states = await store.statesAt(
      "binance",
      probes.map((i) => candles[i].time),
    );
    expect(states.map((s) => s.time)).toEqual(probes.map((i) => candles[i].time));
    states.forEach((state, k) => {
      const point = series[probes[k]];
      expect(state.close).toBe(candles[probes[k]].close);
      expect(state.rsi).toBe(point.rsi14);
      expect(state.fearGreed).toBe(fearGreedOf(Math.floor(state.time / DAY) * DAY));
      expect(state.trend).toBe(classifyTrend(point.ema20, point.ema50));
    });
    expect(states[0].rsi).toBeNull();
    // The window starts at hour 240 of the series: probe 100 is hour 340 (rising until 432), probe 479 hour 719 (falling).
    expect(states[1].trend).toBe("bullish");
    expect(states[3].trend).toBe("bearish");
    expect(states[3].simRegime).toBe("quiet");
    expect(states[2].simRegime).toBeNull();
  });

  it("snapshots the heatmap, the confirmed walls and every source on their schedule", async () => {
    const { source, recorder } = setup();
    const tickAt = (time: number) => {
      source.setNow(time);
      return recorder.tick()!;
    };
    const first = await tickAt(NOW);
    expect([first.heatmap, first.walls, first.sources]).toEqual([true, true, SNAPSHOT_SOURCES.length]);
    const minute = await tickAt(NOW + MINUTE);
    expect([minute.heatmap, minute.walls, minute.sources]).toEqual([false, false, 0]);
    const five = await tickAt(NOW + 5 * MINUTE);
    expect([five.heatmap, five.walls, five.sources]).toEqual([false, true, 0]);
    const fifteen = await tickAt(NOW + 15 * MINUTE);
    expect([fifteen.heatmap, fifteen.walls, fifteen.sources]).toEqual([true, true, SNAPSHOT_SOURCES.length]);

    const walls = await store.wallSnapshots("BTCUSD", { limit: 10, offset: 0 });
    expect(walls.items.map((w) => w.time)).toEqual([NOW + 15 * MINUTE, NOW + 5 * MINUTE, NOW]);
    expect(walls.items[0].walls).toEqual([
      expect.objectContaining({
        venue: "binance",
        side: "bid",
        confirmed: true,
        value_usd: expect.any(Number),
        first_seen: new Date(NOW + 15 * MINUTE - HOUR).toISOString(),
      }),
      expect.objectContaining({ venue: "coinbase", side: "ask", confirmed: true }),
    ]);
    const heatmap = (await store.heatmaps("BTCUSDT", { limit: 1, offset: 0 })).items[0];
    expect(heatmap.buckets[0]).toEqual({
      price_low: expect.any(Number),
      price_high: expect.any(Number),
      long_liquidation_usd: 3e6,
      short_liquidation_usd: 1e6,
    });
    const options = (await store.sourceSnapshots("options", { limit: 1, offset: 0 })).items[0];
    expect(options).toMatchObject({ available: false, payload: { reason: "fixture: no options venue" } });
    const mempool = (await store.sourceSnapshots("mempool", { limit: 1, offset: 0 })).items[0];
    expect(mempool).toMatchObject({ available: true, payload: { fastest_fee: 12, block_height: 930_000, time: new Date(NOW + 15 * MINUTE).toISOString() } });
    const macro = (await store.sourceSnapshots("macro", { limit: 1, offset: 0 })).items[0];
    expect(macro.payload).toEqual({ DXY: { time: new Date(NOW + 15 * MINUTE - DAY).toISOString(), value: 104.2 } });
  });

  it("never overlaps ticks: one asked for while another runs is skipped", async () => {
    const { recorder } = setup();
    const running = recorder.tick(NOW);
    expect(running).not.toBeNull();
    expect(recorder.busy).toBe(true);
    expect(recorder.tick(NOW)).toBeNull();
    await running;
    expect(recorder.busy).toBe(false);
    expect(await recorder.tick(NOW)).toMatchObject({ states: 0 });
  });

  it("start() ticks at once on the source's clock; stop() waits for that tick", async () => {
    const { recorder } = setup();
    recorder.start(60 * MINUTE);
    await recorder.stop();
    expect(await rowCounts()).toEqual(expectedCounts());
  });

  it("keeps only what the retention policy keeps, backfill included", async () => {
    await store.insertHeatmap({ symbol: "BTCUSDT", time: NOW - 100 * DAY, referencePrice: 1, bucketSizeUsd: 1, buckets: [] });
    const retention = { ...DEFAULT_RETENTION, candles: { "1h": 5, "4h": 800, "1d": 3650 } };
    const { recorder } = setup({ retention });
    const report = await recorder.tick(NOW)!;
    expect(report.candles["binance:1h"]).toBe(120);
    expect(report.pruned).toMatchObject({ candles: 0, heatmaps: 1 });
    expect((await store.heatmaps("BTCUSDT", { limit: 10, offset: 0 })).items.map((h) => h.time)).toEqual([NOW]);
    await store.insertCandles("binance", "1h", [{ time: NOW - 6 * DAY, open: 1, high: 1, low: 1, close: 1, volume: 1 }]);
    const hourLater = await recorder.tick(NOW + HOUR)!;
    // Each venue's first backfilled hour has aged out, and the older candle inserted by hand.
    expect(hourLater.pruned).toMatchObject({ candles: VENUES.length + 1 });
  });
});
