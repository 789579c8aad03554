// The history store's one SQL layer over both engines: embedded PGlite (the default, persisted under
// DATA_DIR/market-history, or in memory for tests) and PostgreSQL through `pg` when
// MARKET_DATABASE_URL is set. The example keeps its own storage, not the platform's Prisma database
// (examples import only npm packages, node built-ins and the public SDK), so the SQL is plain
// PostgreSQL that both engines run unchanged: times travel as epoch milliseconds (to_timestamp on the
// way in, extract(epoch) on the way out) and JSON as text cast to jsonb, so no driver's type
// parsers or session time zone decide what a value means.
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

export type SqlRow = Record<string, unknown>;

/** Runs parameterised statements; a transaction hands its callback one of these. */
export interface SqlQueryable {
  query<Row extends SqlRow = SqlRow>(text: string, params?: unknown[]): Promise<Row[]>;
}

export interface HistorySql extends SqlQueryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: all of its statements commit together or none does. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** PGlite only: the whole data directory as a tarball (a template for further in-memory stores). */
  dumpDataDir?(): Promise<Blob>;
}

export interface HistorySqlOptions {
  /** PostgreSQL URL (MARKET_DATABASE_URL); null or absent opens PGlite. */
  databaseUrl?: string | null;
  /** PGlite's data directory (DATA_DIR/market-history); null or absent keeps PGlite in memory. */
  pgliteDir?: string | null;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /**
   * A PGlite data directory dump (`PGlite.dumpDataDir`) to start from instead of running initdb:
   * tests start their in-memory stores from a migrated template (history/scratch-store.ts).
   */
  pgliteLoadDataDir?: Blob;
}

/** Opens PGlite or a PostgreSQL pool, as the options say. */
export async function openHistorySql(options: HistorySqlOptions): Promise<HistorySql> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 5);
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const lite = new PGlite({ dataDir: options.pgliteDir ?? undefined, loadDataDir: options.pgliteLoadDataDir });
  await lite.waitReady;
  const run = async <Row extends SqlRow>(runner: Pick<PGlite, "query">, text: string, params?: unknown[]) => (await runner.query<Row>(text, params)).rows;
  return {
    kind: "pglite",
    query: (text, params) => run(lite, text, params),
    transaction: (fn) => lite.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) })),
    close: () => lite.close(),
    dumpDataDir: () => lite.dumpDataDir("none"),
  };
}

function openPostgres(url: string, max: number): HistorySql {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle connection the server drops (restart, failover) must not crash the origin; the pool
  // replaces it on the next checkout.
  pool.on("error", () => {});
  return {
    kind: "postgres",
    query: async (text, params) => (await pool.query(text, params)).rows,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn({ query: async (text, params) => (await client.query(text, params)).rows });
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** A schema name safe to splice into SQL (lower-case letters, digits, underscores). */
export function checkSchemaName(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`Invalid schema name for the market history: ${JSON.stringify(schema)}`);
  return schema;
}
