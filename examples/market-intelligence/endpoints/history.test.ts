// The seven /v1/history endpoints over a store filled with constructed data: newest-first paging,
// the 14-candle rule, analogs whose outcomes are known in advance, and the 400s their parameter
// schemas give (the server answers a failed parse with a 400 naming each issue's path).
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import type { JsonEndpoint } from "../endpoint.ts";
import { FixtureMarketSource } from "../history/fixture-source.ts";
import { openScratchHistoryStore, type ScratchHistoryStore } from "../history/scratch-store.ts";
import { snakeCaseKeys } from "../history/snake-case.ts";
import { indicatorSeries } from "../analytics/indicators.ts";
import type { HistoryStore, HourlyState } from "../history/store.ts";
import type { Candle } from "../model/types.ts";
import {
  historyAnalogs,
  historyCandles,
  historyEndpoints,
  historyHeatmaps,
  historyIndicators,
  historyOrderBookWalls,
  historySnapshots,
  historySummary,
  type HistoryDeps,
} from "./history.ts";

const HOUR = 3_600_000;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 1);
const iso = (time: number) => new Date(time).toISOString();

let scratch: ScratchHistoryStore;
let store: HistoryStore;
let deps: HistoryDeps;
beforeAll(async () => {
  scratch = await openScratchHistoryStore();
  store = scratch.store;
  deps = { store, source: new FixtureMarketSource({ start: T0, closes: [100], now: T0 + 200 * HOUR }) };
});
afterAll(async () => {
  await scratch?.close();
});
beforeEach(async () => {
  await scratch.reset();
});

type AnyEndpoint = JsonEndpoint<HistoryDeps, z.ZodType>;

/** Parses the query as the server does and calls the handler; a failed parse is the server's 400 with the issues. */
async function call(endpoint: AnyEndpoint, query: Record<string, string> = {}, probe = false) {
  const parsed = endpoint.params.safeParse(query);
  if (!parsed.success) return { status: 400, body: null as never, issues: parsed.error.issues };
  const answer = await endpoint.handle(deps, parsed.data, { headers: {}, probe });
  const status = answer.status ?? 200;
  // Every 200 is the documented shape.
  if (status === 200 && !probe) endpoint.response.parse(answer.body);
  return { status, body: answer.body as Record<string, any>, issues: [] };
}

/** Hourly candles from the closes: high = close + 1, low = close − 1, open = the previous close. */
function candlesOf(closes: number[], from = T0): Candle[] {
  return closes.map((close, i) => ({ time: from + i * HOUR, open: closes[i - 1] ?? close, high: close + 1, low: close - 1, close, volume: 1 }));
}

describe("/v1/history endpoints", () => {
  it("are the spec's seven paths at 3 sats, per request, each with an example that parses", () => {
    expect(historyEndpoints.map((e) => [e.path, e.price, e.model])).toEqual(
      [
        "/v1/history/analogs",
        "/v1/history/candles",
        "/v1/history/heatmaps",
        "/v1/history/indicators",
        "/v1/history/order-book-walls",
        "/v1/history/snapshots",
        "/v1/history/summary",
      ].map((path) => [path, 3, "per_request"]),
    );
    for (const endpoint of historyEndpoints) expect(endpoint.params.safeParse(endpoint.example).success, endpoint.path).toBe(true);
  });

  it("candles: newest first, paged with limit and offset over [start, end), per venue and timeframe", async () => {
    await store.insertCandles("binance", "1h", candlesOf(Array.from({ length: 30 }, (_, i) => 100 + i)));
    const first = await call(historyCandles, { limit: "3" });
    expect(first.status).toBe(200);
    expect(first.body.exchange).toBe("binance");
    expect(first.body.candles).toEqual(
      [29, 28, 27].map((i) => ({ time: iso(T0 + i * HOUR), open: 99 + i, high: 101 + i, low: 99 + i, close: 100 + i, volume: 1 })),
    );
    expect(first.body.meta).toMatchObject({ source: "simulated", order: "newest_first", limit: 3, offset: 0, count: 3, has_more: true });
    const window = await call(historyCandles, { start: iso(T0 + 5 * HOUR), end: iso(T0 + 10 * HOUR), limit: "3", offset: "3" });
    expect(window.body.candles.map((c: Candle) => c.close)).toEqual([106, 105]);
    expect(window.body.meta).toMatchObject({ start: iso(T0 + 5 * HOUR), end: iso(T0 + 10 * HOUR), has_more: false });
    expect((await call(historyCandles, { exchange: "kraken" })).body.candles).toEqual([]);
    expect((await call(historyCandles, { timeframe: "1d" })).body.candles).toEqual([]);
  });

  it("heatmaps and order-book walls: newest first", async () => {
    for (let i = 0; i < 4; i++) {
      await store.insertHeatmap({
        symbol: "BTCUSDT",
        time: T0 + i * 900_000,
        referencePrice: 100 + i,
        bucketSizeUsd: 50,
        buckets: [{ price_low: 50, price_high: 100, long_liquidation_usd: i, short_liquidation_usd: 0 }],
      });
      await store.insertWallSnapshot({
        symbol: "BTCUSD",
        time: T0 + i * 300_000,
        walls: [
          {
            id: `w${i}`,
            venue: "okx",
            side: "ask",
            price: 101,
            size: 200,
            value_usd: 20_200,
            first_seen: iso(T0),
            last_seen: iso(T0 + i * 300_000),
            confirmed: true,
          },
        ],
      });
    }
    const heatmaps = await call(historyHeatmaps, { limit: "2" });
    expect(heatmaps.body.heatmaps.map((h: { time: string; reference_price: number }) => [h.time, h.reference_price])).toEqual([
      [iso(T0 + 3 * 900_000), 103],
      [iso(T0 + 2 * 900_000), 102],
    ]);
    expect(heatmaps.body.meta.has_more).toBe(true);
    const walls = await call(historyOrderBookWalls, { start: iso(T0), end: iso(T0 + 600_000) });
    expect(walls.body.snapshots.map((s: { time: string; wall_count: number }) => [s.time, s.wall_count])).toEqual([
      [iso(T0 + 300_000), 1],
      [iso(T0), 1],
    ]);
    expect(walls.body.snapshots[0].walls[0]).toMatchObject({ id: "w1", venue: "okx" });
  });

  it("snapshots: one source or all, with unavailable readings and their reason", async () => {
    await store.insertSourceSnapshot({ source: "mempool", time: T0, available: true, payload: { fastest_fee: 9 } });
    await store.insertSourceSnapshot({ source: "options", time: T0 + 1000, available: false, payload: { reason: "throttled upstream" } });
    await store.insertSourceSnapshot({ source: "mempool", time: T0 + 2000, available: true, payload: { fastest_fee: 11 } });
    const mempool = await call(historySnapshots, { source: "mempool" });
    expect(mempool.body.snapshots).toEqual([
      { source: "mempool", time: iso(T0 + 2000), available: true, data: { fastest_fee: 11 }, reason: null },
      { source: "mempool", time: iso(T0), available: true, data: { fastest_fee: 9 }, reason: null },
    ]);
    const all = await call(historySnapshots, { limit: "2" });
    expect(all.body.snapshots.map((s: { source: string }) => s.source)).toEqual(["mempool", "options"]);
    expect(all.body.snapshots[1]).toMatchObject({ available: false, data: null, reason: "throttled upstream" });
  });

  it("indicators: the analytics' series over the newest `limit` candles, newest first", async () => {
    await store.insertCandles("binance", "1h", candlesOf(Array.from({ length: 60 }, (_, i) => 100 + Math.sin(i / 4) * 5)));
    const answer = await call(historyIndicators, { limit: "40" });
    expect(answer.status).toBe(200);
    expect(answer.body.candles_loaded).toBe(40);
    expect(answer.body.points).toHaveLength(40);
    expect(answer.body.points[0].time).toBe(iso(T0 + 59 * HOUR));
    expect(answer.body.points[39].time).toBe(iso(T0 + 20 * HOUR));
    expect(answer.body.points[0].rsi_14).toEqual(expect.any(Number));
    expect(answer.body.points[39].rsi_14).toBeNull();
    expect(answer.body.meta).toMatchObject({ first_candle: iso(T0 + 20 * HOUR), last_candle: iso(T0 + 59 * HOUR) });
  });

  it("indicators: a repeated request answers the same series; candles written or removed since change the next answer", async () => {
    const closes = Array.from({ length: 70 }, (_, i) => 100 + Math.cos(i / 3) * 4 + i / 10);
    await store.insertCandles("binance", "1h", candlesOf(closes.slice(0, 60)));
    const reads = vi.spyOn(store, "candles");
    const first = await call(historyIndicators, { limit: "40" });
    const readsForFirst = reads.mock.calls.length;
    expect(readsForFirst).toBeGreaterThan(0);
    const again = await call(historyIndicators, { limit: "40" });
    expect(again.body.points).toEqual(first.body.points);
    // The repeat is answered from the cache: the stored candles were not read again.
    expect(reads.mock.calls.length).toBe(readsForFirst);
    const expected = (candles: Candle[]) => (snakeCaseKeys(indicatorSeries(candles)) as unknown[]).reverse();
    expect(first.body.points).toEqual(expected(candlesOf(closes.slice(0, 60)).slice(20)));
    // Ten more closed hours: the newest 40 are now hours 30–69.
    await store.insertCandles("binance", "1h", candlesOf(closes.slice(60), T0 + 60 * HOUR));
    const later = await call(historyIndicators, { limit: "40" });
    expect(reads.mock.calls.length).toBeGreaterThan(readsForFirst);
    reads.mockRestore();
    expect(later.body.points[0].time).toBe(iso(T0 + 69 * HOUR));
    expect(later.body.points).toEqual(expected(candlesOf(closes).slice(30)));
    expect(later.body.meta).toMatchObject({ first_candle: iso(T0 + 30 * HOUR), last_candle: iso(T0 + 69 * HOUR) });
    // Another window of the same store is its own answer; removing the candles empties them all.
    expect((await call(historyIndicators, { limit: "20" })).body.points[19].time).toBe(iso(T0 + 50 * HOUR));
    await scratch.reset();
    expect((await call(historyIndicators, { limit: "40" })).body.error).toMatchObject({ code: "insufficient_candles", candles: 0 });
  });

  it("indicators: a window of fewer than 14 candles is a 422 naming how many it found", async () => {
    await store.insertCandles("binance", "1h", candlesOf(Array.from({ length: 60 }, (_, i) => 100 + i)));
    const answer = await call(historyIndicators, { start: iso(T0 + 50 * HOUR) });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: "insufficient_candles", field: "start", candles: 10, required: 14 });
    expect(answer.body.error.message).toContain("at least 14 candles; 10 1h candle(s) of binance");
    expect((await call(historyIndicators, { start: iso(T0 + 46 * HOUR) })).status).toBe(200);
    expect((await call(historyIndicators, { exchange: "okx" })).body.error).toMatchObject({ code: "insufficient_candles", candles: 0 });
  });

  it("summary: coverage, the year's range, returns and snapshot counts", async () => {
    const closes = Array.from({ length: 72 }, (_, i) => 100 + i);
    await store.insertCandles(
      "binance",
      "1h",
      candlesOf(closes).filter((c) => c.time !== T0 + 10 * HOUR),
    );
    await store.insertCandles("binance", "1d", [
      { time: T0, open: 100, high: 130, low: 90, close: 123, volume: 24 },
      { time: T0 + DAY, open: 123, high: 150, low: 120, close: 147, volume: 24 },
    ]);
    // The source's clock is T0 + 200 h: two of the three fall in its last 24 hours.
    for (const time of [T0, T0 + 198 * HOUR, T0 + 199 * HOUR]) await store.insertSourceSnapshot({ source: "mempool", time, available: true, payload: {} });
    const answer = await call(historySummary);
    expect(answer.status).toBe(200);
    expect(answer.body.coverage).toEqual([
      { timeframe: "1h", count: 71, expected: 72, completeness: 0.9861, first: iso(T0), last: iso(T0 + 71 * HOUR) },
      { timeframe: "4h", count: 0, expected: 0, completeness: null, first: null, last: null },
      { timeframe: "1d", count: 2, expected: 2, completeness: 1, first: iso(T0), last: iso(T0 + DAY) },
    ]);
    expect(answer.body.year).toEqual({ high: 150, high_time: iso(T0 + DAY), low: 90, low_time: iso(T0) });
    expect(answer.body.last_close).toBe(171);
    expect(answer.body.returns[0]).toEqual({
      window: "24h",
      from_time: iso(T0 + 47 * HOUR),
      from_close: 147,
      return_pct: Number(((171 / 147 - 1) * 100).toFixed(4)),
    });
    expect(answer.body.returns.slice(1).every((r: { return_pct: number | null }) => r.return_pct === null)).toBe(true);
    // The candle figures are kept until the candles change, then recomputed.
    await store.insertCandles("binance", "1h", [{ time: T0 + 72 * HOUR, open: 171, high: 180, low: 170, close: 175, volume: 1 }]);
    const later = await call(historySummary);
    expect(later.body.last_close).toBe(175);
    expect(later.body.coverage[0]).toMatchObject({ count: 72, expected: 73 });
    expect(answer.body.snapshots).toHaveLength(10);
    expect(answer.body.snapshots).toContainEqual({ kind: "source", key: "mempool", first: iso(T0), last: iso(T0 + 199 * HOUR), count_24h: 2 });
    expect(answer.body.snapshots).toContainEqual({ kind: "heatmap", key: "BTCUSDT", first: null, last: null, count_24h: 0 });
  });

  describe("analogs", () => {
    // 100 hours at 100, except what follows the two analogs: after hour 10, 101 99 104 106 (return
    // +6 %, run-up to 107 = +7 %, drawdown to 98 = −2 %); after hour 60, 99 97 95 98 (return −2 %,
    // no run-up above 100, drawdown to 94 = −6 %).
    const closes = Array.from({ length: 100 }, () => 100);
    closes.splice(11, 4, 101, 99, 104, 106);
    closes.splice(61, 4, 99, 97, 95, 98);
    const state = (hour: number, trend: HourlyState["trend"], rsi: number, fearGreed: number): HourlyState => ({
      venue: "binance",
      time: T0 + hour * HOUR,
      close: closes[hour],
      rsi,
      fearGreed,
      trend,
      simRegime: null,
    });
    /** Bearish, oversold, fearful at hours 10, 12 (inside 10's horizon), 60 and 97 (whose horizon has not passed). */
    const marked = new Map([
      [10, state(10, "bearish", 25, 20)],
      [12, state(12, "bearish", 28, 22)],
      [60, state(60, "bearish", 30, 15)],
      [97, state(97, "bearish", 20, 10)],
    ]);

    beforeEach(async () => {
      await store.insertCandles("binance", "1h", candlesOf(closes));
      await store.insertStates(closes.map((_, hour) => marked.get(hour) ?? state(hour, "neutral", 50, 50)));
    });

    it("reports what followed each non-overlapping match, and the aggregates", async () => {
      const answer = await call(historyAnalogs, { regime: "bearish", rsi_max: "30", fg_max: "25", horizon_hours: "4" });
      expect(answer.status).toBe(200);
      expect(answer.body.matching_hours).toBe(3);
      expect(answer.body.matches).toEqual([
        {
          time: iso(T0 + 60 * HOUR),
          close: 100,
          rsi: 30,
          fear_greed: 15,
          trend: "bearish",
          exit_time: iso(T0 + 64 * HOUR),
          exit_close: 98,
          return_pct: -2,
          max_drawdown_pct: -6,
          max_runup_pct: 0,
        },
        {
          time: iso(T0 + 10 * HOUR),
          close: 100,
          rsi: 25,
          fear_greed: 20,
          trend: "bearish",
          exit_time: iso(T0 + 14 * HOUR),
          exit_close: 106,
          return_pct: 6,
          max_drawdown_pct: -2,
          max_runup_pct: 7,
        },
      ]);
      expect(answer.body.aggregates).toEqual({
        count: 2,
        median_return_pct: 2,
        mean_return_pct: 2,
        hit_rate: 0.5,
        best_return_pct: 6,
        worst_return_pct: -2,
        median_max_drawdown_pct: -4,
        median_max_runup_pct: 3.5,
      });
    });

    it("filters by RSI and fear & greed bounds, lists the newest `limit`, and aggregates them all", async () => {
      const oversold = await call(historyAnalogs, { regime: "bearish", rsi_max: "26", horizon_hours: "4" });
      expect(oversold.body.matches.map((m: { time: string }) => m.time)).toEqual([iso(T0 + 10 * HOUR)]);
      const greedier = await call(historyAnalogs, { regime: "bearish", fg_min: "16", fg_max: "25", horizon_hours: "4" });
      // Hour 10 (fg 20) starts a streak with hour 12 (fg 22); hour 60 (fg 15) is out.
      expect(greedier.body.matching_hours).toBe(2);
      expect(greedier.body.aggregates.count).toBe(1);
      const limited = await call(historyAnalogs, { regime: "bearish", limit: "1", horizon_hours: "4" });
      expect(limited.body.matches.map((m: { time: string }) => m.time)).toEqual([iso(T0 + 60 * HOUR)]);
      expect(limited.body.aggregates.count).toBe(2);
    });

    it("a longer horizon merges the streak differently; `neutral` is the default regime; `any` drops the regime filter", async () => {
      const long = await call(historyAnalogs, { regime: "bearish", horizon_hours: "60" });
      // 10 is taken; 12 and 60 fall inside its 60 hours; 97 has no 60 hours after it.
      expect(long.body.matches.map((m: { time: string }) => m.time)).toEqual([iso(T0 + 10 * HOUR)]);
      expect(long.body.matches[0]).toMatchObject({ exit_time: iso(T0 + 70 * HOUR), exit_close: 100, return_pct: 0, max_drawdown_pct: -6, max_runup_pct: 7 });
      const neutral = await call(historyAnalogs, { rsi_min: "45", horizon_hours: "24" });
      expect(neutral.body.regime).toBe("neutral");
      expect(neutral.body.aggregates.count).toBe(4); // hours 0, 24, 48 (…61–64 follow), 72; 96 has no full day after it
      const any = await call(historyAnalogs, { regime: "any", rsi_max: "30", horizon_hours: "4" });
      expect(any.body.aggregates.count).toBe(2);
      const none = await call(historyAnalogs, { regime: "bullish" });
      expect(none.body.matches).toEqual([]);
      expect(none.body.aggregates).toMatchObject({ count: 0, median_return_pct: null, hit_rate: null });
    });

    it("sees hours recorded after its previous answer", async () => {
      const before = await call(historyAnalogs, { regime: "bearish", horizon_hours: "4" });
      expect(before.body.aggregates.count).toBe(2);
      await store.insertCandles(
        "binance",
        "1h",
        candlesOf(
          Array.from({ length: 10 }, () => 100),
          T0 + 100 * HOUR,
        ),
      );
      await store.insertStates(Array.from({ length: 10 }, (_, k) => ({ ...state(0, "bearish", 20, 10), time: T0 + (100 + k) * HOUR })));
      const after = await call(historyAnalogs, { regime: "bearish", horizon_hours: "4" });
      // Hour 97's four hours have now passed; of the bearish hours 100–109, 101 and 105 start new
      // horizons (100 is inside 97's) and 109 has none yet.
      expect(after.body.matches.map((m: { time: string }) => m.time)).toEqual([105, 101, 97, 60, 10].map((h) => iso(T0 + h * HOUR)));
    });

    it("skips an hour whose horizon has a gap in the recorded candles", async () => {
      await store.sql.query(
        `DELETE FROM ${store.schema}.candles WHERE venue = 'binance' AND timeframe = '1h' AND open_time = to_timestamp($1::float8 / 1000)`,
        [T0 + 62 * HOUR],
      );
      const answer = await call(historyAnalogs, { regime: "bearish", horizon_hours: "4" });
      expect(answer.body.matches.map((m: { time: string }) => m.time)).toEqual([iso(T0 + 10 * HOUR)]);
    });
  });

  it("a health probe is validated but reads nothing", async () => {
    await scratch.store.insertCandles("binance", "1h", candlesOf([1, 2, 3]));
    for (const endpoint of historyEndpoints) expect((await call(endpoint, {}, true)).body).toEqual({ ok: true, probe: true });
    expect((await call(historyCandles, { limit: "0" }, true)).status).toBe(400);
  });

  it.each([
    [historyCandles, { start: "2026-03-02T00:00:00Z", end: "2026-03-01T00:00:00Z" }, "start", /after end/],
    [historyCandles, { timeframe: "1m" }, "timeframe", /./],
    [historyCandles, { limit: "0" }, "limit", /./],
    [historyCandles, { limit: "1001" }, "limit", /./],
    [historyCandles, { offset: "-1" }, "offset", /./],
    [historyCandles, { exchange: "ftx" }, "exchange", /./],
    [historyCandles, { start: "yesterday" }, "start", /./],
    [historyCandles, { start: "2026-03-01T00:00:00" }, "start", /./],
    [historyHeatmaps, { symbol: "ETHUSDT" }, "symbol", /./],
    [historyHeatmaps, { start: "2026-03-02T00:00:00Z", end: "2026-03-01T00:00:00+02:00" }, "start", /after end/],
    [historyIndicators, { limit: "13" }, "limit", /./],
    [historyIndicators, { start: "2026-03-02T00:00:00Z", end: "2026-03-01T00:00:00Z" }, "start", /after end/],
    [historyOrderBookWalls, { symbol: "BTCUSDT" }, "symbol", /./],
    [historySnapshots, { source: "twitter" }, "source", /./],
    [historySummary, { exchange: "BINANCE" }, "exchange", /./],
    [historyAnalogs, { regime: "sideways" }, "regime", /./],
    [historyAnalogs, { rsi_min: "120" }, "rsi_min", /./],
    [historyAnalogs, { rsi_max: "-1" }, "rsi_max", /./],
    [historyAnalogs, { rsi_min: "60", rsi_max: "40" }, "rsi_min", /rsi_max/],
    [historyAnalogs, { fg_min: "10.5" }, "fg_min", /./],
    [historyAnalogs, { fg_min: "70", fg_max: "20" }, "fg_min", /fg_max/],
    [historyAnalogs, { horizon_hours: "0" }, "horizon_hours", /./],
    [historyAnalogs, { horizon_hours: "721" }, "horizon_hours", /./],
    [historyAnalogs, { limit: "101" }, "limit", /./],
  ] as Array<[AnyEndpoint, Record<string, string>, string, RegExp]>)("%#: %j is a 400 naming %s", async (endpoint, query, field, message) => {
    const answer = await call(endpoint, query);
    expect(answer.status).toBe(400);
    expect(answer.issues.map((issue) => issue.path.join("."))).toContain(field);
    expect(answer.issues.find((issue) => issue.path.join(".") === field)!.message).toMatch(message);
  });

  it("an unknown parameter is a 400 naming it", async () => {
    const answer = await call(historyCandles, { timeframe: "1h", venue: "binance" });
    expect(answer.status).toBe(400);
    expect(answer.issues).toEqual([expect.objectContaining({ code: "unrecognized_keys", keys: ["venue"] })]);
  });
});
