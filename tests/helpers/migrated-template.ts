// Test databases start already migrated: a PGlite cluster from a dumped data directory, a
// PostgreSQL database as a copy of a migrated template. Migrating from empty costs about 4.5 s a
// test file on PGlite (its initdb and 22 migrations) and 2.3 s on PostgreSQL; a copy costs under
// one. Each template is built once per set of migrations (their checksums name it) by whichever
// test worker asks first, and every test database still runs applyMigrations, which finds nothing
// pending and checks the checksums.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import pg from "pg";
import { applyMigrations, readMigrations, type SqlRunner } from "@/lib/db/migrate.ts";
import { openDatabase } from "@/lib/db/client.ts";

/** Names one set of migrations (and, for PGlite, the engine that wrote the archive). */
function templateKey(extra = ""): string {
  const hash = createHash("sha256").update(extra);
  for (const m of readMigrations()) hash.update(`${m.name}:${m.checksum}\n`);
  return hash.digest("hex").slice(0, 16);
}

let pgliteArchive: Promise<Blob> | undefined;

/** An archive of a migrated PGlite data directory, for `openDatabase({ pgliteArchive })`. */
export function migratedPgliteArchive(): Promise<Blob> {
  pgliteArchive ??= loadOrBuildPgliteArchive();
  return pgliteArchive;
}

async function loadOrBuildPgliteArchive(): Promise<Blob> {
  const engine = JSON.parse(readFileSync(path.join(process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")).version;
  const dir = path.join(os.tmpdir(), "hub-test-templates");
  const file = path.join(dir, `pglite-${templateKey(`pglite ${engine}`)}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const lite = new PGlite({ extensions: { pg_trgm } });
  await lite.waitReady;
  const sql: SqlRunner = {
    exec: async (text) => void (await lite.exec(text)),
    query: async (text, params) => (await lite.query(text, params as unknown[])).rows as Record<string, unknown>[],
    withLock: async (fn) => fn(sql),
  };
  await applyMigrations(sql);
  const archive = await lite.dumpDataDir("none");
  await lite.close();
  // Two workers may build it at once: each writes its own file and renames it into place whole.
  mkdirSync(dir, { recursive: true });
  const partial = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.partial`;
  writeFileSync(partial, Buffer.from(await archive.arrayBuffer()));
  renameSync(partial, file);
  return archive;
}

/**
 * The name of a migrated database on DATABASE_URL's server to copy test databases from
 * (`CREATE DATABASE … TEMPLATE`). Built under an advisory lock, so concurrent workers build it once;
 * templates of older migration sets are dropped then.
 */
export async function migratedPostgresTemplate(baseUrl: string): Promise<string> {
  const name = `hub_test_template_${templateKey()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query("SELECT pg_advisory_lock(4021403)");
    const existing = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'hub\\_test\\_template\\_%'`);
    if (existing.rows.some((r) => r.datname === name)) return name;
    for (const { datname } of existing.rows) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    const building = `${name}_building`;
    await admin.query(`CREATE DATABASE "${building}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${building}`;
    const db = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, migrate: true, poolSize: 1 });
    await db.close();
    // Renamed only once complete: a template that exists is a migrated one.
    await admin.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
    return name;
  } finally {
    await admin.query("SELECT pg_advisory_unlock(4021403)").catch(() => {});
    await admin.end();
  }
}
