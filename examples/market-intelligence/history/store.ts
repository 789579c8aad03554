// The market history store: candles per venue and timeframe, liquidation-heatmap, order-book-wall and
// source snapshots, and one "state" row per hour (close, RSI, fear & greed, trend) that the analog
// search filters on. The recorder writes it; the /v1/history endpoints read it. Every list is
// newest first and pages with limit/offset over a closed-open window [start, end) of epoch
// milliseconds, answered from the primary keys (key columns, then time) so a page costs the same at
// a year of data as at a day. Writes are idempotent (ON CONFLICT DO NOTHING on those keys).
import path from "node:path";
import type { Candle, Venue } from "../model/types.ts";
import { migrateHistory } from "./migrations.ts";
import { checkSchemaName, openHistorySql, type HistorySql, type SqlQueryable } from "./sql.ts";

/** The timeframes the history keeps (spec 2 §4.2: `timeframe` is 1h, 4h or 1d). */
export const HISTORY_TIMEFRAMES = ["1h", "4h", "1d"] as const;
export type HistoryTimeframe = (typeof HISTORY_TIMEFRAMES)[number];

/** The analog search's trend vocabulary: the sign of the 1h EMA(20)/EMA(50) spread, ±0.25 % neutral band. */
export const TRENDS = ["bullish", "neutral", "bearish"] as const;
export type Trend = (typeof TRENDS)[number];

/** The symbol wall snapshots are kept under: spot BTC/USD across the five venues (each wall names its venue). */
export const SPOT_SYMBOL = "BTCUSD";

/** The default PostgreSQL schema holding every table of the market history. */
export const DEFAULT_HISTORY_SCHEMA = "market_history";

const DAY_MS = 86_400_000;

/** How long each kind of history is kept (days); the recorder prunes older rows once an hour. */
export interface RetentionPolicy {
  candles: Record<HistoryTimeframe, number>;
  /** Heatmap, wall and source snapshots. */
  snapshots: number;
  /** The hourly analog states. */
  states: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = { candles: { "1h": 400, "4h": 800, "1d": 3650 }, snapshots: 90, states: 400 };

/** A window and a page, as every history list takes them. Times are epoch ms; `end` is exclusive. */
export interface PageQuery {
  start?: number;
  end?: number;
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  /** True when rows beyond this page exist in the window. */
  hasMore: boolean;
}

export interface StoredHeatmap {
  symbol: string;
  time: number;
  referencePrice: number;
  bucketSizeUsd: number;
  buckets: unknown[];
}

export interface StoredWallSnapshot {
  symbol: string;
  time: number;
  wallCount: number;
  walls: unknown[];
}

export interface StoredSourceSnapshot {
  source: string;
  time: number;
  available: boolean;
  payload: unknown;
}

/** One hour's state: the close of the hour opened at `time`, and the readings at that close. */
export interface HourlyState {
  venue: Venue;
  time: number;
  close: number;
  rsi: number | null;
  fearGreed: number | null;
  trend: Trend;
  simRegime: string | null;
}

export interface AnalogFingerprint {
  candles: number;
  candleFirst: number | null;
  candleLast: number | null;
  states: number;
  stateFirst: number | null;
  stateLast: number | null;
}

export interface AnalogRows {
  candles: Array<{ time: number; close: number; high: number; low: number }>;
  states: Array<{ time: number; rsi: number | null; fearGreed: number | null; trend: Trend }>;
}

export interface CandleCoverage {
  timeframe: HistoryTimeframe;
  count: number;
  first: number | null;
  last: number | null;
}

export interface SnapshotCoverage {
  kind: "heatmap" | "walls" | "source";
  key: string;
  first: number | null;
  last: number | null;
  /** Snapshots taken since the time asked for. */
  recent: number;
}

export interface HistoryStoreOptions {
  /** PostgreSQL URL (MARKET_DATABASE_URL); absent or null opens PGlite. */
  databaseUrl?: string | null;
  /** PGlite's directory; null keeps it in memory (tests). Ignored for PostgreSQL. */
  pgliteDir?: string | null;
  /** The schema holding the tables (tests use a throwaway one). */
  schema?: string;
  /** PGlite only: start from this data directory dump instead of initdb (sql.ts). */
  pgliteLoadDataDir?: Blob;
}

/** Where the origin keeps its embedded history: DATA_DIR/market-history. */
export function historyPgliteDir(dataDir: string): string {
  return path.join(dataDir, "market-history");
}

/** Opens (and migrates) the history store. */
export async function openHistoryStore(options: HistoryStoreOptions = {}): Promise<HistoryStore> {
  const schema = checkSchemaName(options.schema ?? DEFAULT_HISTORY_SCHEMA);
  const sql = await openHistorySql({ databaseUrl: options.databaseUrl, pgliteDir: options.pgliteDir, pgliteLoadDataDir: options.pgliteLoadDataDir });
  try {
    await migrateHistory(sql, schema);
  } catch (err) {
    await sql.close().catch(() => {});
    throw err;
  }
  return new HistoryStore(sql, schema);
}

const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;
const toTs = (expression: string) => `to_timestamp((${expression})::float8 / 1000)`;

export class HistoryStore {
  constructor(
    readonly sql: HistorySql,
    readonly schema: string,
  ) {}

  private t(table: string): string {
    return `${this.schema}.${table}`;
  }

  close(): Promise<void> {
    return this.sql.close();
  }

  // ---- candles ---------------------------------------------------------------------------------

  /** Inserts candles (one statement); rows already stored are left alone. Returns how many were new. */
  async insertCandles(venue: Venue, timeframe: HistoryTimeframe, candles: Candle[], runner: SqlQueryable = this.sql): Promise<number> {
    if (candles.length === 0) return 0;
    const rows = await runner.query<{ n: number }>(
      `WITH inserted AS (
         INSERT INTO ${this.t("candles")} (venue, timeframe, open_time, open, high, low, close, volume)
         SELECT $1, $2, ${toTs("u.time")}, u.open, u.high, u.low, u.close, u.volume
         FROM unnest($3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8[]) AS u(time, open, high, low, close, volume)
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM inserted`,
      [
        venue,
        timeframe,
        candles.map((c) => c.time),
        candles.map((c) => c.open),
        candles.map((c) => c.high),
        candles.map((c) => c.low),
        candles.map((c) => c.close),
        candles.map((c) => c.volume),
      ],
    );
    return rows[0]?.n ?? 0;
  }

  /** The open time of the newest stored candle, or null. */
  async latestCandleTime(venue: Venue, timeframe: HistoryTimeframe): Promise<number | null> {
    const [row] = await this.sql.query<{ time: number | null }>(
      `SELECT ${ms("max(open_time)")} AS time FROM ${this.t("candles")} WHERE venue = $1 AND timeframe = $2`,
      [venue, timeframe],
    );
    return row?.time ?? null;
  }

  /** Candles in the window, newest first. */
  async candles(venue: Venue, timeframe: HistoryTimeframe, query: PageQuery): Promise<Page<Candle>> {
    return this.page<Candle>({
      table: "candles",
      keys: { venue, timeframe },
      timeColumn: "open_time",
      columns: `${ms("open_time")} AS time, open, high, low, close, volume`,
      query,
    });
  }

  // ---- snapshots -------------------------------------------------------------------------------

  async insertHeatmap(heatmap: StoredHeatmap): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO ${this.t("heatmaps")} (symbol, time, reference_price, bucket_size_usd, buckets)
       VALUES ($1, ${toTs("$2")}, $3, $4, $5::text::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
      [heatmap.symbol, heatmap.time, heatmap.referencePrice, heatmap.bucketSizeUsd, JSON.stringify(heatmap.buckets)],
    );
    return rows.length === 1;
  }

  heatmaps(symbol: string, query: PageQuery): Promise<Page<StoredHeatmap>> {
    return this.page<StoredHeatmap>({
      table: "heatmaps",
      keys: { symbol },
      timeColumn: "time",
      columns: `symbol, ${ms("time")} AS time, reference_price AS "referencePrice", bucket_size_usd AS "bucketSizeUsd", buckets`,
      query,
    });
  }

  async insertWallSnapshot(snapshot: Omit<StoredWallSnapshot, "wallCount">): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO ${this.t("wall_snapshots")} (symbol, time, wall_count, walls)
       VALUES ($1, ${toTs("$2")}, $3, $4::text::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
      [snapshot.symbol, snapshot.time, snapshot.walls.length, JSON.stringify(snapshot.walls)],
    );
    return rows.length === 1;
  }

  wallSnapshots(symbol: string, query: PageQuery): Promise<Page<StoredWallSnapshot>> {
    return this.page<StoredWallSnapshot>({
      table: "wall_snapshots",
      keys: { symbol },
      timeColumn: "time",
      columns: `symbol, ${ms("time")} AS time, wall_count AS "wallCount", walls`,
      query,
    });
  }

  async insertSourceSnapshot(snapshot: StoredSourceSnapshot): Promise<boolean> {
    const rows = await this.sql.query(
      `INSERT INTO ${this.t("source_snapshots")} (source, time, available, payload)
       VALUES ($1, ${toTs("$2")}, $3, $4::text::jsonb) ON CONFLICT DO NOTHING RETURNING 1`,
      [snapshot.source, snapshot.time, snapshot.available, JSON.stringify(snapshot.payload)],
    );
    return rows.length === 1;
  }

  /** One source's snapshots, or every source's (null) interleaved by time. */
  sourceSnapshots(source: string | null, query: PageQuery): Promise<Page<StoredSourceSnapshot>> {
    return this.page<StoredSourceSnapshot>({
      table: "source_snapshots",
      keys: source === null ? {} : { source },
      timeColumn: "time",
      columns: `source, ${ms("time")} AS time, available, payload`,
      query,
    });
  }

  /** The time of the newest snapshot of each kind (heatmaps, walls, each source), for the recorder's schedule. */
  async latestSnapshotTimes(): Promise<{ heatmap: number | null; walls: number | null; sources: number | null }> {
    const [row] = await this.sql.query<{ heatmap: number | null; walls: number | null; sources: number | null }>(
      `SELECT (SELECT ${ms("max(time)")} FROM ${this.t("heatmaps")}) AS heatmap,
              (SELECT ${ms("max(time)")} FROM ${this.t("wall_snapshots")}) AS walls,
              (SELECT ${ms("max(time)")} FROM ${this.t("source_snapshots")}) AS sources`,
    );
    return { heatmap: row?.heatmap ?? null, walls: row?.walls ?? null, sources: row?.sources ?? null };
  }

  // ---- hourly states and analogs ----------------------------------------------------------------

  async insertStates(states: HourlyState[], runner: SqlQueryable = this.sql): Promise<number> {
    if (states.length === 0) return 0;
    const rows = await runner.query<{ n: number }>(
      `WITH inserted AS (
         INSERT INTO ${this.t("hourly_states")} (venue, time, close, rsi, fear_greed, trend, sim_regime)
         SELECT u.venue, ${toTs("u.time")}, u.close, u.rsi, u.fear_greed, u.trend, u.sim_regime
         FROM unnest($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::int[], $6::text[], $7::text[])
           AS u(venue, time, close, rsi, fear_greed, trend, sim_regime)
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM inserted`,
      [
        states.map((s) => s.venue),
        states.map((s) => s.time),
        states.map((s) => s.close),
        states.map((s) => s.rsi),
        states.map((s) => s.fearGreed),
        states.map((s) => s.trend),
        states.map((s) => s.simRegime),
      ],
    );
    return rows[0]?.n ?? 0;
  }

  async latestStateTime(venue: Venue): Promise<number | null> {
    const [row] = await this.sql.query<{ time: number | null }>(`SELECT ${ms("max(time)")} AS time FROM ${this.t("hourly_states")} WHERE venue = $1`, [venue]);
    return row?.time ?? null;
  }

  /** States at the given hours. */
  async statesAt(venue: Venue, times: number[]): Promise<HourlyState[]> {
    if (times.length === 0) return [];
    return this.sql.query<HourlyState & Record<string, unknown>>(
      `SELECT venue, ${ms("s.time")} AS time, close, rsi, fear_greed AS "fearGreed", trend, sim_regime AS "simRegime"
       FROM ${this.t("hourly_states")} s WHERE venue = $1 AND s.time IN (SELECT ${toTs("t")} FROM unnest($2::float8[]) AS u(t)) ORDER BY s.time`,
      [venue, times],
    );
  }

  /** Changes so far to candles and hourly states (any venue): unchanged means every copy of them is current. */
  async candleGeneration(): Promise<number> {
    const [row] = await this.sql.query<{ n: number }>(`SELECT n::float8 AS n FROM ${this.t("candle_generation")} WHERE id = 1`);
    return row?.n ?? 0;
  }

  /** Counts and first/last hour of one venue's 1h candles and states: what the analog series checks before each use. */
  async analogFingerprint(venue: Venue): Promise<AnalogFingerprint> {
    const [row] = await this.sql.query<AnalogFingerprint & Record<string, unknown>>(
      `SELECT c.n AS candles, c.first AS "candleFirst", c.last AS "candleLast", s.n AS states, s.first AS "stateFirst", s.last AS "stateLast"
       FROM (SELECT count(*)::int AS n, ${ms("min(open_time)")} AS first, ${ms("max(open_time)")} AS last
             FROM ${this.t("candles")} WHERE venue = $1 AND timeframe = '1h') c,
            (SELECT count(*)::int AS n, ${ms("min(time)")} AS first, ${ms("max(time)")} AS last FROM ${this.t("hourly_states")} WHERE venue = $1) s`,
      [venue],
    );
    return row;
  }

  /** One venue's 1h candles and states after the given hours (null: all), oldest first. */
  async analogRows(venue: Venue, candlesAfter: number | null, statesAfter: number | null): Promise<AnalogRows> {
    const [candles, states] = await Promise.all([
      this.sql.query<AnalogRows["candles"][number] & Record<string, unknown>>(
        `SELECT ${ms("c.open_time")} AS time, close, high, low FROM ${this.t("candles")} c
         WHERE venue = $1 AND timeframe = '1h' AND c.open_time > ${toTs("$2")} ORDER BY c.open_time`,
        [venue, candlesAfter ?? -1],
      ),
      this.sql.query<AnalogRows["states"][number] & Record<string, unknown>>(
        `SELECT ${ms("s.time")} AS time, rsi, fear_greed AS "fearGreed", trend FROM ${this.t("hourly_states")} s
         WHERE venue = $1 AND s.time > ${toTs("$2")} ORDER BY s.time`,
        [venue, statesAfter ?? -1],
      ),
    ]);
    return { candles, states };
  }

  // ---- summary ---------------------------------------------------------------------------------

  /** Count, first and last open time per timeframe of one venue. */
  async coverage(venue: Venue): Promise<CandleCoverage[]> {
    const rows = await this.sql.query<{ timeframe: HistoryTimeframe; count: number; first: number | null; last: number | null }>(
      `SELECT tf.timeframe, s.count, s.first, s.last
       FROM unnest($2::text[]) AS tf(timeframe)
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS count, ${ms("min(open_time)")} AS first, ${ms("max(open_time)")} AS last
         FROM ${this.t("candles")} WHERE venue = $1 AND timeframe = tf.timeframe) s`,
      [venue, [...HISTORY_TIMEFRAMES]],
    );
    return rows;
  }

  /** Highest high and lowest low of the 1d candles opened in [since, now). */
  async range(venue: Venue, since: number): Promise<{ high: number | null; low: number | null; highTime: number | null; lowTime: number | null }> {
    const rows = await this.sql.query<{ high: number; low: number; highTime: number; lowTime: number }>(
      `WITH w AS (SELECT open_time, high, low FROM ${this.t("candles")} WHERE venue = $1 AND timeframe = '1d' AND open_time >= ${toTs("$2")})
       SELECT (SELECT high FROM w ORDER BY high DESC LIMIT 1) AS high, (SELECT ${ms("open_time")} FROM w ORDER BY high DESC LIMIT 1) AS "highTime",
              (SELECT low FROM w ORDER BY low LIMIT 1) AS low, (SELECT ${ms("open_time")} FROM w ORDER BY low LIMIT 1) AS "lowTime"`,
      [venue, since],
    );
    const r = rows[0];
    return { high: r?.high ?? null, low: r?.low ?? null, highTime: r?.highTime ?? null, lowTime: r?.lowTime ?? null };
  }

  /** The close of the newest 1h candle opened at or before each instant (null when none). */
  async closesAtOrBefore(venue: Venue, instants: number[]): Promise<Array<{ at: number; time: number | null; close: number | null }>> {
    return this.sql.query(
      `SELECT i.at, c.time, c.close FROM unnest($2::float8[]) WITH ORDINALITY AS i(at, n)
       LEFT JOIN LATERAL (
         SELECT ${ms("open_time")} AS time, close FROM ${this.t("candles")}
         WHERE venue = $1 AND timeframe = '1h' AND open_time <= ${toTs("i.at")} ORDER BY open_time DESC LIMIT 1) c ON true
       ORDER BY i.n`,
      [venue, instants],
    );
  }

  /**
   * First and last snapshot of each kind and key, and how many were taken since `since`: index
   * lookups and one short range scan each, not a count over 90 days of snapshots.
   */
  async snapshotCoverage(keys: { heatmap: string[]; walls: string[]; source: string[] }, since: number): Promise<SnapshotCoverage[]> {
    const part = (kind: keyof typeof keys, table: string, column: string, param: number) => `
      SELECT '${kind}' AS kind, k.key,
        (SELECT ${ms("x.time")} FROM ${this.t(table)} x WHERE x.${column} = k.key ORDER BY x.time LIMIT 1) AS first,
        (SELECT ${ms("x.time")} FROM ${this.t(table)} x WHERE x.${column} = k.key ORDER BY x.time DESC LIMIT 1) AS last,
        (SELECT count(*)::int FROM ${this.t(table)} x WHERE x.${column} = k.key AND x.time >= ${toTs("$4")}) AS recent
      FROM unnest($${param}::text[]) AS k(key)`;
    return this.sql.query<SnapshotCoverage & Record<string, unknown>>(
      `${part("heatmap", "heatmaps", "symbol", 1)} UNION ALL ${part("walls", "wall_snapshots", "symbol", 2)} UNION ALL ${part("source", "source_snapshots", "source", 3)}`,
      [keys.heatmap, keys.walls, keys.source, since],
    );
  }

  /**
   * Reclaims pruned rows and refreshes the planner's statistics and the visibility map (so counts
   * run as index-only scans). PGlite runs no autovacuum; on PostgreSQL this only hurries it along.
   */
  async vacuum(): Promise<void> {
    for (const table of ["candles", "heatmaps", "wall_snapshots", "source_snapshots", "hourly_states"])
      await this.sql.query(`VACUUM (ANALYZE) ${this.t(table)}`);
  }

  // ---- retention -------------------------------------------------------------------------------

  /** Deletes what the policy no longer keeps at `now`; returns the rows deleted per table. */
  async prune(now: number, policy: RetentionPolicy = DEFAULT_RETENTION): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    const count = async (text: string, params: unknown[]) => (await this.sql.query<{ n: number }>(text, params))[0]?.n ?? 0;
    const del = (table: string, where: string) => `WITH d AS (DELETE FROM ${this.t(table)} WHERE ${where} RETURNING 1) SELECT count(*)::int AS n FROM d`;
    deleted.candles = 0;
    for (const timeframe of HISTORY_TIMEFRAMES)
      deleted.candles += await count(del("candles", `timeframe = $1 AND open_time < ${toTs("$2")}`), [timeframe, now - policy.candles[timeframe] * DAY_MS]);
    const snapshotCutoff = now - policy.snapshots * DAY_MS;
    deleted.heatmaps = await count(del("heatmaps", `time < ${toTs("$1")}`), [snapshotCutoff]);
    deleted.wall_snapshots = await count(del("wall_snapshots", `time < ${toTs("$1")}`), [snapshotCutoff]);
    deleted.source_snapshots = await count(del("source_snapshots", `time < ${toTs("$1")}`), [snapshotCutoff]);
    deleted.hourly_states = await count(del("hourly_states", `time < ${toTs("$1")}`), [now - policy.states * DAY_MS]);
    return deleted;
  }

  // ---- the one paging query --------------------------------------------------------------------

  private async page<T>(options: { table: string; keys: Record<string, string>; timeColumn: string; columns: string; query: PageQuery }): Promise<Page<T>> {
    const { query } = options;
    const params: unknown[] = [];
    const conditions = Object.entries(options.keys).map(([column, value]) => {
      params.push(value);
      return `r.${column} = $${params.length}`;
    });
    if (query.start !== undefined) {
      params.push(query.start);
      conditions.push(`r.${options.timeColumn} >= ${toTs(`$${params.length}`)}`);
    }
    if (query.end !== undefined) {
      params.push(query.end);
      conditions.push(`r.${options.timeColumn} < ${toTs(`$${params.length}`)}`);
    }
    params.push(query.limit + 1, query.offset);
    const rows = await this.sql.query<T & Record<string, unknown>>(
      // `r.` matters: a bare `time` in ORDER BY would name the output column (epoch ms), which no index serves.
      `SELECT ${options.columns} FROM ${this.t(options.table)} r WHERE ${conditions.join(" AND ") || "true"}
       ORDER BY r.${options.timeColumn} DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { items: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }
}
