// Offline migration diffing with Prisma's schema engine compiled to wasm. The Prisma CLI's
// `migrate diff` needs a native engine it downloads, which these machines cannot reach; the wasm
// engine computes the same SQL against an in-memory PGlite shadow database.
import { readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";

export type SchemaDiffOptions = {
  schemaPath: string;
  migrationsDir: string;
};

type WasmGlue = {
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
  SchemaEngine: {
    new: (
      options: { datamodels: [string, string][] },
      log: (message: string) => void,
      adapter: object,
    ) => Promise<{ diff(params: unknown): Promise<{ exitCode: number; stdout: string | null }>; free(): void }>;
  };
};

/** Loads the wasm schema engine by hand: Node cannot `import` its .wasm module directly. */
async function loadSchemaEngine(): Promise<WasmGlue> {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  const glue = (await import(gluePath)) as WasmGlue & Record<string, unknown>;
  const wasmBytes = await readFile(path.join(path.dirname(gluePath), "schema_engine_bg.wasm"));
  const module = new WebAssembly.Module(wasmBytes);
  const imports: WebAssembly.Imports = {};
  for (const entry of WebAssembly.Module.imports(module)) {
    imports[entry.module] ??= {};
    (imports[entry.module] as Record<string, unknown>)[entry.name] = glue[entry.name];
  }
  const instance = new WebAssembly.Instance(module, imports);
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  return glue;
}

/** Lists committed migrations in the layout Prisma's engine expects. */
export async function readMigrationDirectories(migrationsDir: string) {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch(() => []);
  const dirs = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    dirs.map(async (name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok" as const, value: await readFile(path.join(migrationsDir, name, "migration.sql"), "utf8") },
      },
    })),
  );
}

/**
 * Returns the SQL that takes a database from the committed migrations to `schema.prisma`.
 * An empty string means the migrations and the schema agree.
 */
export async function diffMigrationsToSchema(options: SchemaDiffOptions): Promise<string> {
  const glue = await loadSchemaEngine();
  const schemaText = await readFile(options.schemaPath, "utf8");
  // The same extensions as lib/db/client.ts, so migrations that create them replay here. The
  // engine replays migrations in the adapter's own shadow database, which the stock adapter opens
  // without extensions: open that one ourselves too.
  const extensions = { pg_trgm };
  const shadow = new PGlite({ extensions });
  const replays: PGlite[] = [];
  const factory = new PrismaPGlite(shadow);
  factory.connectToShadowDb = () => {
    const replay = new PGlite({ extensions });
    replays.push(replay);
    return new PrismaPGlite(replay).connect();
  };
  const adapter = bindMigrationAwareSqlAdapterFactory(factory);
  const engine = await glue.SchemaEngine.new({ datamodels: [[options.schemaPath, schemaText]] }, () => {}, adapter);
  try {
    const migrationDirectories = await readMigrationDirectories(options.migrationsDir);
    const from =
      migrationDirectories.length === 0
        ? { tag: "empty" }
        : {
            tag: "migrations",
            baseDir: options.migrationsDir,
            lockfile: { path: "migration_lock.toml", content: 'provider = "postgresql"\n' },
            shadowDbInitScript: "",
            migrationDirectories,
          };
    const result = await engine.diff({
      from,
      to: { tag: "schemaDatamodel", files: [{ path: options.schemaPath, content: schemaText }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? "";
    return /^\s*(-- This is an empty migration\.)?\s*$/.test(sql) ? "" : sql;
  } finally {
    engine.free();
    await Promise.all([shadow, ...replays].map((db) => db.close()));
  }
}
