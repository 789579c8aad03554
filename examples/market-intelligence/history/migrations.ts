// The market history's own versioned schema. Every migration runs once, in order, in a transaction
// that also records its version in `schema_version`; an advisory lock taken in that transaction
// keeps two origins starting together on one PostgreSQL from applying a step twice. Migrations are
// append-only: a released step is never edited, a change is a new step.
//
// `candle_generation` counts every statement that changes candles or hourly states (a trigger, so
// raw SQL counts too): readers that keep a copy (the analog series, the summary's coverage) check
// one row instead of recounting a year of candles.
//
// Every table lives in one PostgreSQL schema (default `market_history`), so the example can share a
// database with the platform (or a test run) without touching its tables. Times are timestamptz.
// Each primary key ends in the time column: newest-first paging within one key (venue and
// timeframe, symbol, source) is a backward scan of that index, and a time-bounded page stops after
// `offset + limit` rows however much history there is.
import type { HistorySql } from "./sql.ts";

export interface Migration {
  version: number;
  name: string;
  /** The step's statements; `{schema}` stands for the store's schema name. */
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "candles, snapshots and hourly states",
    sql: `
      CREATE TABLE {schema}.candles (
        venue text NOT NULL,
        timeframe text NOT NULL CHECK (timeframe IN ('1h', '4h', '1d')),
        open_time timestamptz NOT NULL,
        open double precision NOT NULL,
        high double precision NOT NULL,
        low double precision NOT NULL,
        close double precision NOT NULL,
        volume double precision NOT NULL,
        PRIMARY KEY (venue, timeframe, open_time)
      );
      CREATE TABLE {schema}.heatmaps (
        symbol text NOT NULL,
        time timestamptz NOT NULL,
        reference_price double precision NOT NULL,
        bucket_size_usd double precision NOT NULL,
        buckets jsonb NOT NULL,
        PRIMARY KEY (symbol, time)
      );
      CREATE INDEX heatmaps_time ON {schema}.heatmaps (time);
      CREATE TABLE {schema}.wall_snapshots (
        symbol text NOT NULL,
        time timestamptz NOT NULL,
        wall_count integer NOT NULL,
        walls jsonb NOT NULL,
        PRIMARY KEY (symbol, time)
      );
      CREATE INDEX wall_snapshots_time ON {schema}.wall_snapshots (time);
      CREATE TABLE {schema}.source_snapshots (
        source text NOT NULL,
        time timestamptz NOT NULL,
        available boolean NOT NULL,
        payload jsonb NOT NULL,
        PRIMARY KEY (source, time)
      );
      CREATE INDEX source_snapshots_time ON {schema}.source_snapshots (time);
      CREATE TABLE {schema}.hourly_states (
        venue text NOT NULL,
        time timestamptz NOT NULL,
        close double precision NOT NULL,
        rsi double precision,
        fear_greed integer,
        trend text NOT NULL CHECK (trend IN ('bullish', 'neutral', 'bearish')),
        sim_regime text,
        PRIMARY KEY (venue, time)
      );
      CREATE INDEX hourly_states_trend ON {schema}.hourly_states (venue, trend, time);
      CREATE TABLE {schema}.candle_generation (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL);
      INSERT INTO {schema}.candle_generation VALUES (1, 0);
      CREATE FUNCTION {schema}.bump_candle_generation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE {schema}.candle_generation SET n = n + 1 WHERE id = 1; RETURN NULL; END $$;
      CREATE TRIGGER candles_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {schema}.candles FOR EACH STATEMENT EXECUTE FUNCTION {schema}.bump_candle_generation();
      CREATE TRIGGER hourly_states_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {schema}.hourly_states FOR EACH STATEMENT EXECUTE FUNCTION {schema}.bump_candle_generation();
    `,
  },
];

/** Creates the schema and applies the pending migrations; returns the version the store is at. */
export async function migrateHistory(sql: HistorySql, schema: string): Promise<number> {
  await sql.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await sql.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  let current = 0;
  for (const migration of MIGRATIONS) {
    current = await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`market-history:${schema}`]);
      const [row] = await tx.query<{ version: number | null }>(`SELECT max(version)::int AS version FROM ${schema}.schema_version`);
      const applied = row?.version ?? 0;
      if (applied >= migration.version) return applied;
      for (const statement of splitStatements(migration.sql.replaceAll("{schema}", schema))) await tx.query(statement);
      await tx.query(`INSERT INTO ${schema}.schema_version (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      return migration.version;
    });
  }
  return current;
}

/**
 * One statement per query: the extended protocol (parameters) takes one statement at a time. A
 * statement ends with `;` at the end of its line (a function body keeps its `;`s on one line).
 */
function splitStatements(text: string): string[] {
  return text
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}
