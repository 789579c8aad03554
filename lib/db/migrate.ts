// Applies committed prisma/migrations/*/migration.sql in order and records each in the standard
// `_prisma_migrations` table, so `prisma migrate deploy` elsewhere sees them as applied. Needed
// because the Prisma CLI's migrate commands require a native engine we cannot download.
import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";

export type SqlExecutor = {
  exec(sql: string): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
};

export type SqlRunner = SqlExecutor & {
  /** Runs fn while holding the cluster-wide migration lock (advisory lock on PostgreSQL). */
  withLock<T>(fn: (sql: SqlExecutor) => Promise<T>): Promise<T>;
};

export type Migration = { name: string; sql: string; checksum: string };

/**
 * Where the committed migrations live: every launcher (npm scripts, tests, `next start`) runs from
 * the project root. Not `new URL(..., import.meta.url)`: Next's bundler would try to inline it.
 */
export const defaultMigrationsDir = path.join(process.cwd(), "prisma", "migrations");

/** Reads the committed migrations, sorted by their timestamped directory names. */
export function readMigrations(dir = defaultMigrationsDir): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

const createTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Applies pending migrations, each in its own transaction. Returns the names applied.
 * Refuses to continue when an applied migration's file was edited afterwards.
 */
export async function applyMigrations(runner: SqlRunner, migrations = readMigrations()): Promise<string[]> {
  return runner.withLock(async (sql) => {
    await sql.exec(createTable);
    const rows = await sql.query(`SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`);
    const applied = new Map(rows.map((r) => [String(r.migration_name), String(r.checksum)]));
    const done: string[] = [];
    for (const m of migrations) {
      const previous = applied.get(m.name);
      if (previous !== undefined) {
        if (previous !== m.checksum) {
          throw new Error(`Migration ${m.name} was modified after it was applied (checksum differs). Add a new migration instead.`);
        }
        continue;
      }
      const id = randomUUID();
      await sql.exec("BEGIN");
      try {
        await sql.exec(m.sql);
        await sql.query(`INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)`, [
          id,
          m.checksum,
          m.name,
        ]);
        await sql.exec("COMMIT");
      } catch (err) {
        await sql.exec("ROLLBACK").catch(() => {});
        throw new Error(`Migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
      }
      done.push(m.name);
    }
    return done;
  });
}
