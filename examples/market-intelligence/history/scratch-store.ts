// A throwaway history store for tests: in-memory PGlite by default; on PostgreSQL when
// MARKET_TEST_DATABASE_URL (or, as in CI's PostgreSQL pass, DATABASE_URL) is set, a fresh schema of
// its own in that database, dropped at the end, so it never meets the platform's tables or another
// test file's. One per test file; `reset` empties it between tests.
//
// A new PGlite runs initdb, which costs seconds (far more on a loaded 2-core machine) and most of a
// market test file's setup. So the first in-memory store migrated on this machine dumps its data
// directory to a template in the OS temp directory (keyed by the PGlite build and the migrations'
// text), and every later one, in any test process, starts from that dump: the same engine and the
// same schema, without initdb. Written to a temporary name and renamed, so a concurrent reader sees
// a whole template or none.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS } from "./migrations.ts";
import { DEFAULT_HISTORY_SCHEMA, openHistoryStore, type HistoryStore } from "./store.ts";

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

/** Where this machine keeps the migrated PGlite template for the current PGlite build, migrations and schema. */
export function pgliteTemplatePath(schema: string = DEFAULT_HISTORY_SCHEMA): string {
  const pglite = fileURLToPath(import.meta.resolve("@electric-sql/pglite"));
  const { size, mtimeMs } = statSync(pglite);
  const key = createHash("sha256")
    .update(JSON.stringify({ pglite, size, mtimeMs, migrations: MIGRATIONS, schema }))
    .digest("hex")
    .slice(0, 16);
  return path.join(os.tmpdir(), `l402-market-history-pglite-${key}.tar`);
}

/**
 * An in-memory PGlite history store, migrated, in `schema` (default the origin's): started from the
 * machine's template when there is one, else initialised and then dumped as the template.
 */
export async function openTestPgliteStore(schema: string = DEFAULT_HISTORY_SCHEMA): Promise<HistoryStore> {
  const template = pgliteTemplatePath(schema);
  if (existsSync(template)) {
    try {
      return await openHistoryStore({ pgliteDir: null, schema, pgliteLoadDataDir: new Blob([readFileSync(template)]) });
    } catch {
      // A template from an interrupted writer or another build: start afresh below (and rewrite it).
    }
  }
  const store = await openHistoryStore({ pgliteDir: null, schema });
  const dump = await store.sql.dumpDataDir?.();
  if (dump) {
    const partial = `${template}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, template);
  }
  return store;
}

export async function openScratchHistoryStore(): Promise<ScratchHistoryStore> {
  const databaseUrl = testDatabaseUrl();
  const schema = databaseUrl ? `market_history_test_${randomBytes(5).toString("hex")}` : DEFAULT_HISTORY_SCHEMA;
  const store = databaseUrl ? await openHistoryStore({ databaseUrl, pgliteDir: null, schema }) : await openTestPgliteStore(schema);
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
