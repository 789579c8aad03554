// Measures the history at the size it reaches: a year's backfill on PGlite (on disk, as the origin
// keeps it), then each /v1/history handler's latency over that year plus 90 days of snapshots at
// the recorder's intervals. `npx tsx examples/market-intelligence/history/measure-history.ts`
// (MARKET_DATABASE_URL=postgresql://… to measure on PostgreSQL, in a throwaway schema).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { z } from "zod";
import type { JsonEndpoint } from "../endpoint.ts";
import { historyEndpoints, type HistoryDeps } from "../endpoints/history.ts";
import { FixtureMarketSource } from "./fixture-source.ts";
import { marketDatabaseUrl } from "./open-market-history.ts";
import { HistoryRecorder } from "./recorder.ts";
import { openHistoryStore } from "./store.ts";

const DAY = 86_400_000;
const DAYS = 366;
const NOW = Date.UTC(2026, 10, 26);
const START = NOW - DAYS * DAY;

/** A seeded random walk: 0.6 % hourly volatility with slow regime swings. */
function closes(): number[] {
  let seed = 42;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  const out: number[] = [];
  let price = 60_000;
  for (let i = 0; i < DAYS * 24; i++) {
    price *= 1 + 0.006 * random() + 0.0004 * Math.sin(i / 500);
    out.push(price);
  }
  return out;
}

async function main() {
  const databaseUrl = marketDatabaseUrl(process.env);
  const dir = mkdtempSync(path.join(os.tmpdir(), "market-history-measure-"));
  const schema = databaseUrl ? `market_history_measure_${randomBytes(4).toString("hex")}` : "market_history";
  const store = await openHistoryStore({ databaseUrl, pgliteDir: databaseUrl ? null : dir, schema });
  const source = new FixtureMarketSource({ start: START, closes: closes(), now: NOW, fearGreed: (day) => Math.round(50 + 40 * Math.sin(day / DAY / 20)) });
  const recorder = new HistoryRecorder({ store, source });
  try {
    const started = performance.now();
    const report = await recorder.tick(NOW)!;
    const backfillMs = performance.now() - started;
    const candles = Object.values(report.candles).reduce((a, b) => a + b, 0);
    console.log(
      `engine ${store.sql.kind}: backfill of ${DAYS - 1} days, ${candles} candles and ${report.states} hourly states in ${(backfillMs / 1000).toFixed(1)} s`,
    );

    // 90 days of snapshots at the recorder's intervals, written in bulk (the recorder writes them one per tick).
    const t = (table: string) => `${schema}.${table}`;
    const seriesSql = (every: string) => `generate_series(to_timestamp(${(NOW - 90 * DAY) / 1000}), to_timestamp(${NOW / 1000}), interval '${every}')`;
    const heatmap = await source.liquidationHeatmap();
    const walls = await source.orderBookWalls();
    await store.sql.query(
      `INSERT INTO ${t("heatmaps")} SELECT 'BTCUSDT', g, 60000, 500, $1::text::jsonb FROM ${seriesSql("15 minutes")} g ON CONFLICT DO NOTHING`,
      [JSON.stringify(Array(40).fill(heatmap.buckets[0]))],
    );
    await store.sql.query(`INSERT INTO ${t("wall_snapshots")} SELECT 'BTCUSD', g, 6, $1::text::jsonb FROM ${seriesSql("5 minutes")} g ON CONFLICT DO NOTHING`, [
      JSON.stringify([...walls, ...walls, ...walls]),
    ]);
    await store.sql.query(
      `INSERT INTO ${t("source_snapshots")} SELECT s, g, true, '{"value": 1}'::jsonb FROM ${seriesSql("15 minutes")} g, unnest(ARRAY['derivatives','options','cme_basis','onchain','mempool','macro','stablecoins','sentiment']) s ON CONFLICT DO NOTHING`,
    );
    await store.sql.query(`ANALYZE`);

    if (process.env.EXPLAIN) {
      // Each statement's plan, once, to check that the indexes serve it.
      const seen = new Set<string>();
      const query = store.sql.query.bind(store.sql);
      store.sql.query = async (text, params) => {
        if (!seen.has(text) && /^\s*(SELECT|WITH)/.test(text)) {
          seen.add(text);
          const plan = await query<{ "QUERY PLAN": string }>(`EXPLAIN ANALYZE ${text}`, params);
          console.log(`${text.replace(/\s+/g, " ").slice(0, 160)}\n  ${plan.map((r) => r["QUERY PLAN"]).join("\n  ")}`);
        }
        return query(text, params);
      };
    }
    const deps: HistoryDeps = { store, source };
    const cases: Array<[string, Record<string, string>]> = [
      ["/v1/history/candles", { limit: "100" }],
      ["/v1/history/candles", { start: new Date(NOW - 200 * DAY).toISOString(), end: new Date(NOW - 190 * DAY).toISOString(), limit: "100", offset: "100" }],
      ["/v1/history/heatmaps", { limit: "24", offset: "200" }],
      ["/v1/history/order-book-walls", { start: new Date(NOW - 60 * DAY).toISOString(), limit: "12" }],
      ["/v1/history/snapshots", { source: "mempool", limit: "24" }],
      ["/v1/history/snapshots", { limit: "24" }],
      ["/v1/history/indicators", { limit: "200" }],
      ["/v1/history/summary", {}],
      ["/v1/history/analogs", {}],
      ["/v1/history/analogs", { regime: "any", horizon_hours: "1" }],
      ["/v1/history/analogs", { regime: "bearish", rsi_max: "35", fg_max: "40", horizon_hours: "72" }],
    ];
    // The floor under every figure on this machine: one trivial round trip, and the analog series' freshness check.
    const floor: Array<[string, () => Promise<unknown>]> = [
      ["SELECT 1", () => store.sql.query("SELECT 1")],
      ["analog fingerprint", () => store.analogFingerprint("binance")],
    ];
    for (const [name, run] of floor) {
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = performance.now();
        await run();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      console.log(`${name}: p50 ${times[30].toFixed(1)} ms, p95 ${times[57].toFixed(1)} ms`);
    }
    for (const [pathName, query] of cases) {
      const endpoint = historyEndpoints.find((e) => e.path === pathName) as JsonEndpoint<HistoryDeps, z.ZodType>;
      const params = endpoint.params.parse(query);
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = performance.now();
        await endpoint.handle(deps, params, { headers: {}, probe: false });
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
      console.log(`${pathName} ${JSON.stringify(query)}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`);
    }
  } finally {
    if (databaseUrl) await store.sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
