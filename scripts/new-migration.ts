// Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that brings the committed
// migrations up to prisma/schema.prisma. Usage: npm run db:migration -- add_something
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { diffMigrationsToSchema } from "@/lib/db/schema-diff.ts";

const name = (process.argv[2] ?? "").replace(/[^a-z0-9_]/gi, "_").toLowerCase();
if (!name) {
  console.error("usage: npm run db:migration -- <name>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const migrationsDir = path.join(root, "prisma/migrations");
const sql = await diffMigrationsToSchema({ schemaPath: path.join(root, "prisma/schema.prisma"), migrationsDir });
if (!sql) {
  console.log("schema.prisma and the migrations agree: nothing to write.");
  process.exit(0);
}
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const dir = path.join(migrationsDir, `${stamp}_${name}`);
await mkdir(dir, { recursive: true });
await writeFile(path.join(dir, "migration.sql"), sql);
await writeFile(path.join(migrationsDir, "migration_lock.toml"), 'provider = "postgresql"\n');
console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
