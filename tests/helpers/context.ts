// Per-test-file context: a real database (in-memory PGlite by default; a fresh PostgreSQL
// database when DATABASE_URL is set), a store (memory, or Redis when REDIS_URL is set) and config.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { loadConfig, type Config } from "@/lib/config/index.ts";
import { openDatabase, type Database } from "@/lib/db/client.ts";
import { openStore, type KeyValueStore } from "@/lib/store/index.ts";
import { migratedPgliteArchive, migratedPostgresTemplate } from "./migrated-template.ts";

export type TestContext = {
  config: Config;
  db: Database;
  store: KeyValueStore;
  /** Empties every application table (5-8 ms on PGlite); call in beforeEach. */
  reset(): Promise<void>;
  close(): Promise<void>;
};

export const usingPostgres = Boolean(process.env.DATABASE_URL);
export const usingRedis = Boolean(process.env.REDIS_URL);

/** How a test file wants its database beyond the defaults. */
export type TestDatabaseOptions = {
  /**
   * The session time zone the database gives connections (an IANA name). PostgreSQL: the scratch
   * database's URL asks for it (`options=-c TimeZone=…`, after any zone DATABASE_URL itself asks
   * for), as a server or database configured in that zone would; lib/db's UTC pin still comes
   * after it. PGlite starts every session in UTC and ignores database defaults, so there it is
   * SET on the one session after opening, which overrides the pin too: only SQL that does its
   * own time arithmetic is right there.
   */
  sessionTimeZone?: string;
};

/**
 * Creates a throwaway PostgreSQL database next to DATABASE_URL's, a copy of the migrated
 * template (./migrated-template.ts), and returns its URL, which keeps
 * DATABASE_URL's query string (CI's session time zone) and adds `timeZone` when given.
 */
async function createScratchDatabase(baseUrl: string, timeZone?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `hub_test_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const template = await migratedPostgresTemplate(baseUrl);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  if (timeZone) url.searchParams.set("options", [url.searchParams.get("options"), `-c TimeZone=${timeZone}`].filter(Boolean).join(" "));
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: "test",
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), "hub-test-")),
    APP_SECRET: "test-app-secret-0123456789abcdef0123456789",
    HUB_ADMIN_TOKEN: "test-admin-token-0123456789",
    SEED_DEMO: "false",
    SITE_URL: "http://127.0.0.1:3000",
    REDIS_URL: process.env.REDIS_URL,
    ...overrides,
  });
}

export async function createTestContext(overrides: Record<string, string | undefined> = {}, options: TestDatabaseOptions = {}): Promise<TestContext> {
  const scratch = usingPostgres ? await createScratchDatabase(process.env.DATABASE_URL!, options.sessionTimeZone) : null;
  const config = testConfig({ DATABASE_URL: scratch?.url, ...overrides });
  const db = await openDatabase({
    databaseUrl: scratch?.url ?? null,
    pgliteDir: null,
    pgliteArchive: scratch ? undefined : await migratedPgliteArchive(),
    migrate: true,
    poolSize: 20,
  });
  if (!scratch && options.sessionTimeZone) await db.sql.exec(`SET TIME ZONE '${options.sessionTimeZone}'`);
  const store = openStore({ redisUrl: config.redisUrl, prefix: `test:${randomBytes(6).toString("hex")}:` });
  const tables = (await db.sql.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`)).map(
    (r) => `"${String(r.tablename)}"`,
  );
  return {
    config,
    db,
    store,
    reset: async () => {
      // A gateway may still be writing after the last test's answer (usage counters, a call's money
      // statements): a TRUNCATE of every table can then deadlock with it on PostgreSQL, and
      // PostgreSQL aborts one side. Whichever it was, the next attempt finds the tables free.
      for (let attempt = 1; ; attempt++) {
        try {
          await db.sql.exec(`TRUNCATE ${tables.join(", ")} CASCADE`);
          return;
        } catch (err) {
          if ((err as { code?: string }).code !== "40P01" || attempt === 5) throw err;
        }
      }
    },
    close: async () => {
      await store.close();
      await db.close();
      await scratch?.drop();
    },
  };
}

/**
 * The usual hooks of a test file: one context for the file, emptied before each test, closed at
 * the end. Returns a getter to read it inside tests (it exists once beforeAll has run).
 */
export function useTestContext(overrides: Record<string, string | undefined> = {}, options: TestDatabaseOptions = {}): () => TestContext {
  let ctx: TestContext | undefined;
  beforeAll(async () => {
    ctx = await createTestContext(overrides, options);
  });
  afterAll(async () => {
    await ctx?.close();
  });
  beforeEach(async () => {
    await ctx!.reset();
  });
  return () => ctx!;
}
