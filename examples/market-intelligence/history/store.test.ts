// The history store on PGlite (and on PostgreSQL in CI's second pass, in a schema of its own):
// migrations, idempotent writes, newest-first paging over windows, and retention.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Candle } from "../model/types.ts";
import { MIGRATIONS, migrateHistory } from "./migrations.ts";
import { openScratchHistoryStore, type ScratchHistoryStore } from "./scratch-store.ts";
import { DEFAULT_RETENTION, type HistoryStore } from "./store.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

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

function hourly(count: number, from = T0): Candle[] {
  return Array.from({ length: count }, (_, i) => ({ time: from + i * HOUR, open: 100 + i, high: 101 + i, low: 99 + i, close: 100.5 + i, volume: 1 + i }));
}

describe("history store", () => {
  it("migrates once: a second run applies nothing and schema_version holds each step", async () => {
    expect(await migrateHistory(store.sql, store.schema)).toBe(MIGRATIONS.at(-1)!.version);
    const rows = await store.sql.query<{ version: number }>(`SELECT version FROM ${store.schema}.schema_version ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("stores candles once: inserting the same candles again adds nothing", async () => {
    expect(await store.insertCandles("binance", "1h", hourly(30))).toBe(30);
    expect(await store.insertCandles("binance", "1h", hourly(40))).toBe(10);
    expect(await store.latestCandleTime("binance", "1h")).toBe(T0 + 39 * HOUR);
    expect(await store.latestCandleTime("kraken", "1h")).toBeNull();
    const [{ n }] = await store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${store.schema}.candles`);
    expect(n).toBe(40);
  });

  it("pages candles newest first within [start, end), with has_more", async () => {
    await store.insertCandles("binance", "1h", hourly(48));
    await store.insertCandles(
      "coinbase",
      "1h",
      hourly(48).map((c) => ({ ...c, close: c.close + 1000 })),
    );
    const first = await store.candles("binance", "1h", { limit: 5, offset: 0 });
    expect(first.items.map((c) => c.time)).toEqual([47, 46, 45, 44, 43].map((i) => T0 + i * HOUR));
    expect(first.items[0]).toEqual({ time: T0 + 47 * HOUR, open: 147, high: 148, low: 146, close: 147.5, volume: 48 });
    expect(first.hasMore).toBe(true);
    const second = await store.candles("binance", "1h", { limit: 5, offset: 5 });
    expect(second.items.map((c) => c.time)).toEqual([42, 41, 40, 39, 38].map((i) => T0 + i * HOUR));
    const window = await store.candles("binance", "1h", { start: T0 + 10 * HOUR, end: T0 + 20 * HOUR, limit: 100, offset: 0 });
    expect(window.items.map((c) => c.time)).toEqual([19, 18, 17, 16, 15, 14, 13, 12, 11, 10].map((i) => T0 + i * HOUR));
    expect(window.hasMore).toBe(false);
    const last = await store.candles("binance", "1h", { start: T0 + 10 * HOUR, end: T0 + 20 * HOUR, limit: 4, offset: 8 });
    expect(last.items.map((c) => c.time)).toEqual([T0 + 11 * HOUR, T0 + 10 * HOUR]);
    expect(last.hasMore).toBe(false);
    expect((await store.candles("binance", "4h", { limit: 5, offset: 0 })).items).toEqual([]);
  });

  it("pages heatmap, wall and source snapshots newest first", async () => {
    for (let i = 0; i < 6; i++) {
      await store.insertHeatmap({ symbol: "BTCUSDT", time: T0 + i * 900_000, referencePrice: 100 + i, bucketSizeUsd: 50, buckets: [{ price_low: i }] });
      await store.insertWallSnapshot({ symbol: "BTCUSD", time: T0 + i * 300_000, walls: Array.from({ length: i }, (_, k) => ({ id: `w${k}` })) });
      await store.insertSourceSnapshot({
        source: i % 2 ? "mempool" : "derivatives",
        time: T0 + i * 900_000,
        available: i !== 4,
        payload: i === 4 ? { reason: "throttled" } : { i },
      });
    }
    expect(await store.insertHeatmap({ symbol: "BTCUSDT", time: T0, referencePrice: 1, bucketSizeUsd: 1, buckets: [] })).toBe(false);
    const heatmaps = await store.heatmaps("BTCUSDT", { limit: 2, offset: 1 });
    expect(heatmaps.items.map((h) => [h.time, h.referencePrice, h.buckets])).toEqual([
      [T0 + 4 * 900_000, 104, [{ price_low: 4 }]],
      [T0 + 3 * 900_000, 103, [{ price_low: 3 }]],
    ]);
    expect(heatmaps.hasMore).toBe(true);
    const walls = await store.wallSnapshots("BTCUSD", { start: T0 + 300_000, end: T0 + 1_200_000, limit: 10, offset: 0 });
    expect(walls.items.map((w) => [w.time, w.wallCount])).toEqual([
      [T0 + 900_000, 3],
      [T0 + 600_000, 2],
      [T0 + 300_000, 1],
    ]);
    const derivatives = await store.sourceSnapshots("derivatives", { limit: 10, offset: 0 });
    expect(derivatives.items.map((s) => [s.time, s.available, s.payload])).toEqual([
      [T0 + 4 * 900_000, false, { reason: "throttled" }],
      [T0 + 2 * 900_000, true, { i: 2 }],
      [T0, true, { i: 0 }],
    ]);
    const all = await store.sourceSnapshots(null, { limit: 3, offset: 0 });
    expect(all.items.map((s) => s.source)).toEqual(["mempool", "derivatives", "mempool"]);
    expect(await store.latestSnapshotTimes()).toEqual({ heatmap: T0 + 5 * 900_000, walls: T0 + 5 * 300_000, sources: T0 + 5 * 900_000 });
  });

  it("prunes what the retention policy no longer keeps, and nothing else", async () => {
    const now = T0 + 500 * DAY;
    const at = (days: number) => now - days * DAY;
    await store.insertCandles(
      "binance",
      "1h",
      [at(401), at(399)].map((time) => ({ time, open: 1, high: 1, low: 1, close: 1, volume: 1 })),
    );
    await store.insertCandles(
      "binance",
      "1d",
      [at(401), at(399)].map((time) => ({ time, open: 1, high: 1, low: 1, close: 1, volume: 1 })),
    );
    for (const days of [91, 89]) {
      await store.insertHeatmap({ symbol: "BTCUSDT", time: at(days), referencePrice: 1, bucketSizeUsd: 1, buckets: [] });
      await store.insertWallSnapshot({ symbol: "BTCUSD", time: at(days), walls: [] });
      await store.insertSourceSnapshot({ source: "mempool", time: at(days), available: true, payload: {} });
    }
    await store.insertStates(
      [401, 399].map((days) => ({ venue: "binance" as const, time: at(days), close: 1, rsi: 50, fearGreed: 50, trend: "neutral" as const, simRegime: null })),
    );
    const deleted = await store.prune(now, DEFAULT_RETENTION);
    expect(deleted).toEqual({ candles: 1, heatmaps: 1, wall_snapshots: 1, source_snapshots: 1, hourly_states: 1 });
    expect((await store.candles("binance", "1h", { limit: 10, offset: 0 })).items.map((c) => c.time)).toEqual([at(399)]);
    expect((await store.candles("binance", "1d", { limit: 10, offset: 0 })).items).toHaveLength(2);
    expect((await store.heatmaps("BTCUSDT", { limit: 10, offset: 0 })).items.map((h) => h.time)).toEqual([at(89)]);
    expect((await store.wallSnapshots("BTCUSD", { limit: 10, offset: 0 })).items.map((h) => h.time)).toEqual([at(89)]);
    expect((await store.sourceSnapshots("mempool", { limit: 10, offset: 0 })).items.map((h) => h.time)).toEqual([at(89)]);
    expect(await store.latestStateTime("binance")).toBe(at(399));
    expect(await store.prune(now, DEFAULT_RETENTION)).toEqual({ candles: 0, heatmaps: 0, wall_snapshots: 0, source_snapshots: 0, hourly_states: 0 });
  });
});
