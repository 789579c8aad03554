// The committed migrations must produce exactly prisma/schema.prisma, and apply idempotently.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diffMigrationsToSchema } from "../../lib/db/schema-diff.ts";
import { openDatabase } from "../../lib/db/client.ts";
import { applyMigrations, readMigrations } from "../../lib/db/migrate.ts";

const root = path.resolve(import.meta.dirname, "../..");

describe("migrations", () => {
  it("agree with schema.prisma (run `npm run db:migration -- <name>` when this fails)", async () => {
    const sql = await diffMigrationsToSchema({
      schemaPath: path.join(root, "prisma/schema.prisma"),
      migrationsDir: path.join(root, "prisma/migrations"),
    });
    expect(sql).toBe("");
  }, 120_000); // the wasm schema engine needs 5-10 s on a quiet machine, several times that under load

  it("apply once, record themselves in _prisma_migrations, and are skipped the second time", async () => {
    const db = await openDatabase({ databaseUrl: null, pgliteDir: null, migrate: false });
    try {
      const all = readMigrations().map((m) => m.name);
      expect(await applyMigrations(db.sql)).toEqual(all);
      expect(await applyMigrations(db.sql)).toEqual([]);
      const rows = await db.sql.query(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`);
      expect(rows.map((r) => r.migration_name)).toEqual(all);
      expect(await db.prisma.tenant.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it("refuses a migration edited after it was applied", async () => {
    const db = await openDatabase({ databaseUrl: null, pgliteDir: null, migrate: false });
    try {
      const migrations = readMigrations();
      await applyMigrations(db.sql, migrations);
      const edited = migrations.map((m, i) => (i === 0 ? { ...m, checksum: "0".repeat(64) } : m));
      await expect(applyMigrations(db.sql, edited)).rejects.toThrow(/modified after it was applied/);
    } finally {
      await db.close();
    }
  });
});
