// The committed migrations must produce exactly prisma/schema.prisma, and apply idempotently.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { diffMigrationsToSchema } from "@/lib/db/schema-diff.ts";
import { openDatabase } from "@/lib/db/client.ts";
import { applyMigrations, readMigrations } from "@/lib/db/migrate.ts";

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

  it("moves timestamps to timestamptz keeping each stored UTC instant, whatever the session's time zone", async () => {
    const db = await openDatabase({ databaseUrl: null, pgliteDir: null, migrate: false });
    try {
      const migrations = readMigrations();
      const at = migrations.findIndex((m) => m.name.endsWith("_timestamptz"));
      expect(at).toBeGreaterThan(0);
      await applyMigrations(db.sql, migrations.slice(0, at));
      // What Prisma wrote before: UTC wall time in timestamp(3) columns.
      await db.sql.exec(`
        INSERT INTO "JobLease" ("name", "lockedUntil", "lastRunAt") VALUES ('job', '2026-11-20 23:30:00.123', NULL);
        INSERT INTO "Tenant" ("id", "slug", "name", "gatewaySecretEnc", "hmacSecretEnc", "createdAt", "updatedAt")
          VALUES ('t1', 't1', 'T', 'x', 'x', '2026-11-20 23:30:00', '2026-11-20 23:30:00');
        INSERT INTO "Endpoint" ("id", "tenantId", "method", "path", "updatedAt") VALUES ('e1', 't1', 'GET', '/x', '2026-11-20 23:30:00');`);
      // A session east of UTC: a bare type change would read 23:30 as Tokyo time (14:30 UTC).
      await db.sql.exec(`SET TIME ZONE 'Asia/Tokyo'`);
      await applyMigrations(db.sql, migrations);
      const [lease] = await db.sql.query(`SELECT extract(epoch FROM "lockedUntil") * 1000 AS "ms", pg_typeof("lockedUntil")::text AS "type" FROM "JobLease"`);
      expect([Number(lease.ms), lease.type]).toEqual([Date.parse("2026-11-20T23:30:00.123Z"), "timestamp with time zone"]);
      const columns = await db.sql.query(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'timestamp without time zone'`,
      );
      expect(columns).toEqual([]);
      // 23:30 UTC is the next day in Tokyo; a health sample's day is still its UTC day.
      await db.sql.exec(
        `INSERT INTO "HealthSample" ("id", "tenantId", "endpointId", "ok", "checkedAt") VALUES ('h1', 't1', 'e1', true, '2026-11-20T23:30:00Z')`,
      );
      const [day] = await db.sql.query(`SELECT to_char("day", 'YYYY-MM-DD') AS "day" FROM "EndpointHealthDay"`);
      expect(day.day).toBe("2026-11-20");
    } finally {
      await db.close();
    }
  });
});
