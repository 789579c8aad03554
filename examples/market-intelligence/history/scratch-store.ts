// A throwaway history store for tests: in-memory PGlite by default; on PostgreSQL when
// MARKET_TEST_DATABASE_URL (or, as in CI's PostgreSQL pass, DATABASE_URL) is set, a fresh schema of
// its own in that database, dropped at the end, so it never meets the platform's tables or another
// test file's. One per test file (a PGlite costs seconds to start); `reset` empties it between tests.
import { randomBytes } from "node:crypto";
import { openHistoryStore, type HistoryStore } from "./store.ts";

export interface ScratchHistoryStore {
  store: HistoryStore;
  /** Which engine the tests run on. */
  engine: "pglite" | "postgres";
  /** Empties every table (the schema version stays). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const HISTORY_TABLES = ["candles", "heatmaps", "wall_snapshots", "source_snapshots", "hourly_states"];

export function testDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.MARKET_TEST_DATABASE_URL || env.DATABASE_URL || null;
}

export async function openScratchHistoryStore(): Promise<ScratchHistoryStore> {
  const databaseUrl = testDatabaseUrl();
  const schema = databaseUrl ? `market_history_test_${randomBytes(5).toString("hex")}` : "market_history";
  const store = await openHistoryStore({ databaseUrl, pgliteDir: null, schema });
  return {
    store,
    engine: store.sql.kind,
    reset: async () => {
      await store.sql.query(`TRUNCATE ${HISTORY_TABLES.map((t) => `${schema}.${t}`).join(", ")}`);
    },
    close: async () => {
      if (databaseUrl) await store.sql.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
      await store.close();
    },
  };
}
