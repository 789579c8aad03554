// Prisma client factory: embedded PGlite (persisted under DATA_DIR, or in memory for tests) or
// PostgreSQL through the pg adapter. Same generated client and queries in both modes.
import path from "node:path";
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import pg from "pg";
import type { Config } from "@/lib/config/index.ts";
import { PrismaClient } from "./generated/client.ts";
import { applyMigrations, type SqlRunner } from "./migrate.ts";

export type { PrismaClient } from "./generated/client.ts";
export { Prisma } from "./generated/client.ts";

/**
 * True for a unique-constraint violation (P2002). Checked by code, not instanceof: Next's bundle
 * and server.ts may load the Prisma runtime as different module instances in one process.
 */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

/**
 * Every session runs in UTC. Prisma's adapters (adapter-pg, pglite-prisma-adapter) send a Date as
 * UTC wall time without an offset and read a timestamptz by replacing its offset with +00:00, so a
 * Date written or read through Prisma is the right instant only on a UTC session, whatever zone the
 * server, the database or the connection string asks for. Our own SQL does its time arithmetic
 * with now() on timestamptz and is right in any zone (docs/decisions.md, "Time zones").
 */
const pinSessionTimeZone = `SET TIME ZONE 'UTC'`;

export type Database = {
  prisma: PrismaClient;
  kind: "pglite" | "postgres";
  /** PostgreSQL only: the pool Prisma runs on, for the gateway's prepared money statements (lib/payments/hot-sql.ts). */
  pg?: pg.Pool;
  /** Runs raw multi-statement SQL outside Prisma (migrations, test truncation). */
  sql: SqlRunner;
  close(): Promise<void>;
};

export type DatabaseOptions = {
  /** PostgreSQL URL; when null, PGlite is used. */
  databaseUrl: string | null;
  /** Directory for the PGlite data; null keeps it in memory (tests). */
  pgliteDir: string | null;
  /** Apply committed migrations before returning. */
  migrate?: boolean;
  /** Connection pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * PGlite in memory only: start from this archive of a data directory (PGlite's `dumpDataDir`)
   * instead of an empty cluster. Tests start from one already migrated: a fresh cluster and its
   * migrations cost seconds per test file, loading the archive under one.
   */
  pgliteArchive?: Blob;
};

/** Opens the database described by options, applying pending migrations when asked. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // Run to completion before the pool hands the new connection out (no query queued behind it,
      // which pg deprecates); a connection that cannot take it is closed and its checkout fails.
      onConnect: async (client) => void (await client.query(pinSessionTimeZone)),
    });
    // An idle connection dropped by the server (restart, failover) must not crash the process;
    // the pool replaces it on the next checkout.
    pool.on("error", () => {});
    const sql: SqlRunner = {
      exec: async (text) => void (await pool.query(text)),
      query: async (text, params) => (await pool.query(text, params as unknown[])).rows,
      withLock: async (fn) => {
        const client = await pool.connect();
        try {
          await client.query("SELECT pg_advisory_lock(4021402)");
          return await fn({
            exec: async (text) => void (await client.query(text)),
            query: async (text, params) => (await client.query(text, params as unknown[])).rows,
          });
        } finally {
          await client.query("SELECT pg_advisory_unlock(4021402)").catch(() => {});
          client.release();
        }
      },
    };
    if (options.migrate) await applyMigrations(sql);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    return {
      prisma,
      kind: "postgres",
      pg: pool,
      sql,
      close: async () => {
        await prisma.$disconnect();
        await pool.end().catch(() => {});
      },
    };
  }

  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  // pg_trgm: directory search's typo-tolerant name matching (PostgreSQL ships it in contrib).
  const extensions = { pg_trgm };
  const lite = options.pgliteDir ? new PGlite(options.pgliteDir, { extensions }) : new PGlite({ extensions, loadDataDir: options.pgliteArchive });
  await lite.waitReady;
  await lite.exec(pinSessionTimeZone);
  const sql: SqlRunner = {
    exec: async (text) => void (await lite.exec(text)),
    query: async (text, params) => (await lite.query(text, params as unknown[])).rows as Record<string, unknown>[],
    // PGlite is a single connection inside this process: no other writer can race us.
    withLock: async (fn) => fn(sql),
  };
  if (options.migrate) await applyMigrations(sql);
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(lite) });
  return {
    prisma,
    kind: "pglite",
    sql,
    close: async () => {
      await prisma.$disconnect();
      await lite.close();
    },
  };
}

/** Database options for a running process, from its configuration. */
export function databaseOptionsFrom(config: Config): DatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    pgliteDir: config.databaseUrl ? null : path.join(config.dataDir, "pglite"),
    migrate: true,
  };
}

const globalKey = Symbol.for("l402-hub.database");
type GlobalWithDb = typeof globalThis & { [globalKey]?: Promise<Database> };

/**
 * The process-wide database. server.ts opens it once and registers it here so that Next's route
 * handlers (bundled separately) share the same PGlite instance instead of opening the directory twice.
 */
export function registerDatabase(db: Promise<Database>): void {
  (globalThis as GlobalWithDb)[globalKey] = db;
}

/** Returns the registered database, opening one from `config` if this process has none yet. */
export function getDatabase(config: Config): Promise<Database> {
  const g = globalThis as GlobalWithDb;
  if (!g[globalKey]) {
    const pending = openDatabase(databaseOptionsFrom(config));
    g[globalKey] = pending;
    pending.catch(() => {
      if (g[globalKey] === pending) delete g[globalKey];
    });
  }
  return g[globalKey];
}
