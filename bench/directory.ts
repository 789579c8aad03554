// `npm run bench:directory`: the public directory at scale on PostgreSQL. Seeds a scratch database
// with 10,000 listed APIs of 10 endpoints each (plus a day of hourly health samples per endpoint),
// then measures the queries behind GET /directory (list, search, tag) and GET /directory/:slug,
// sequentially, and prints p50/p95 per scenario. Goal (issue 5): p95 <= 50 ms each.
//
// BENCH_DATABASE_URL (default: DATABASE_URL, else postgresql://postgres@127.0.0.1:5432/postgres)
// names the server; the scratch database is created next to it and dropped at the end.
// BENCH_APIS and BENCH_ITERATIONS shrink or grow the run; BENCH_KEEP_DATABASE=1 keeps the seeded
// database (its name is printed) for EXPLAIN ANALYZE sessions.
import { randomBytes } from "node:crypto";
import os from "node:os";
import pg from "pg";
import { loadConfig } from "@/lib/config/index.ts";
import { openDatabase } from "@/lib/db/client.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { listDirectory } from "@/lib/directory/list-directory.ts";

const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const apis = Number(process.env.BENCH_APIS ?? 10_000);
const endpointsPerApi = 10;
const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const goalMs = 50;

// Vocabularies for names, descriptions, tags and paths: enough variety that searches select a
// realistic share of the directory (a few rows to a few hundred), not all or nothing.
const nouns = [
  "weather",
  "route",
  "market",
  "bitcoin",
  "candle",
  "forecast",
  "geocode",
  "translate",
  "image",
  "speech",
  "invoice",
  "price",
  "news",
  "sports",
  "stock",
  "crypto",
  "map",
  "traffic",
  "flight",
  "hotel",
  "recipe",
  "movie",
  "music",
  "book",
  "health",
  "fitness",
  "energy",
  "solar",
  "carbon",
  "water",
  "soil",
  "crop",
  "ship",
  "rail",
  "parcel",
  "address",
  "postcode",
  "ocean",
  "tide",
  "quake",
];
const adjectives = ["fast", "global", "open", "smart", "live", "deep", "micro", "mega", "rapid", "exact", "daily", "swift", "clear", "prime", "urban"];
const tags = [
  "maps",
  "finance",
  "bitcoin",
  "weather",
  "ai",
  "media",
  "transport",
  "science",
  "health",
  "commerce",
  "data",
  "geo",
  "energy",
  "sports",
  "travel",
  "food",
  "music",
  "books",
  "climate",
  "logistics",
];

type Timing = { scenario: string; p50: number; p95: number; max: number };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(scenario: string, run: (i: number) => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < 10; i++) await run(i); // warm-up: plans and caches
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await run(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { scenario, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(times[times.length - 1]) };
}

async function seed(db: Awaited<ReturnType<typeof openDatabase>>) {
  const sqlArray = (items: string[]) => `ARRAY[${items.map((w) => `'${w}'`).join(",")}]`;
  const started = performance.now();
  await db.sql.exec(`
    INSERT INTO "Tenant" ("id", "slug", "name", "description", "tags", "listed", "status", "gatewaySecretEnc", "hmacSecretEnc", "createdAt", "updatedAt")
    SELECT 'bench' || i,
      'api-' || i,
      initcap((${sqlArray(adjectives)})[1 + i % ${adjectives.length}] || ' ' || (${sqlArray(nouns)})[1 + (i / 7) % ${nouns.length}]) || ' ' || i,
      'Pay-per-call ' || (${sqlArray(nouns)})[1 + (i / 7) % ${nouns.length}] || ' data with ' || (${sqlArray(nouns)})[1 + (i * 13) % ${nouns.length}] || ' lookups, updated ' || (${sqlArray(adjectives)})[1 + (i * 3) % ${adjectives.length}] || '.',
      ARRAY[(${sqlArray(tags)})[1 + i % ${tags.length}], (${sqlArray(tags)})[1 + (i * 7) % ${tags.length}]],
      true, 'active', 'sealed', 'sealed',
      now() - (i || ' minutes')::interval, now()
    FROM generate_series(1, ${apis}) AS i;
    INSERT INTO "Wallet" ("id", "tenantId", "type", "credentialsEnc", "nodePubkey", "updatedAt")
    SELECT 'w' || i, 'bench' || i, 'dev', 'sealed', '02' || md5(i::text) || md5((i + 1)::text), now() FROM generate_series(1, ${apis}) AS i;
    INSERT INTO "Endpoint" ("id", "tenantId", "method", "path", "title", "description", "pricingModel", "priceSats", "parameters", "exampleResponse", "createdAt", "updatedAt")
    SELECT 'e' || i || '-' || j, 'bench' || i, CASE WHEN j % 4 = 0 THEN 'POST' ELSE 'GET' END,
      '/v1/' || (${sqlArray(nouns)})[1 + (i + j * 11) % ${nouns.length}] || '/' || j,
      initcap((${sqlArray(nouns)})[1 + (i + j * 11) % ${nouns.length}]) || ' lookup',
      'Returns ' || (${sqlArray(nouns)})[1 + (i + j * 11) % ${nouns.length}] || ' records.',
      CASE WHEN j = 10 THEN NULL ELSE 'per_request'::"PricingModel" END,
      CASE WHEN j = 10 THEN NULL ELSE 1 + (i + j) % 50 END,
      '[{"name":"q","in":"query","required":false,"type":"string","description":"filter"}]'::jsonb,
      '{"ok":true}'::jsonb, now() + (j || ' milliseconds')::interval, now()
    FROM generate_series(1, ${apis}) AS i, generate_series(1, ${endpointsPerApi}) AS j;
    INSERT INTO "HealthSample" ("id", "tenantId", "endpointId", "ok", "statusCode", "latencyMs", "checkedAt")
    SELECT 'h' || i || '-' || j || '-' || h, 'bench' || i, 'e' || i || '-' || j, (i + j + h) % 97 <> 0, 200, 20 + (i + h) % 180,
      now() - (h || ' hours')::interval
    FROM generate_series(1, ${apis}) AS i, generate_series(1, ${endpointsPerApi}) AS j, generate_series(0, 23) AS h;
  `);
  // A settled database, as autovacuum leaves it: statistics, and visibility maps for index-only scans.
  await db.sql.exec("VACUUM ANALYZE");
  return Math.round(performance.now() - started);
}

async function main() {
  const name = `hub_bench_directory_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, migrate: true, poolSize: 4 });
  try {
    console.log(
      `directory benchmark: ${apis} APIs x ${endpointsPerApi} endpoints, PostgreSQL, ${iterations} sequential requests per scenario, ${os.cpus().length} cores`,
    );
    const seedMs = await seed(db);
    console.log(`seeded in ${(seedMs / 1000).toFixed(1)} s (${apis * endpointsPerApi * 24} health samples)\n`);

    const config = loadConfig({
      NODE_ENV: "test",
      APP_SECRET: "bench-app-secret-0123456789abcdef012345",
      SITE_URL: "http://127.0.0.1:3000",
      DATA_DIR: os.tmpdir(),
    });
    const prisma = db.prisma;
    const list = (query: Partial<Parameters<typeof listDirectory>[0]>) => listDirectory({ prisma, config, page: 1, limit: 50, sort: "relevance", ...query });
    const searches = ["weather", "bitcoin candle", "fast route", "forecst", "geocode api", "tide", "solar energy", "transl", "ocean tide lookup", "market"];

    const results: Timing[] = [];
    results.push(await measure("list: page 1, 50 by name", () => list({})));
    results.push(await measure("list: page 200, 50 by name", () => list({ page: 200 })));
    results.push(await measure("list: newest first", () => list({ sort: "recent" })));
    results.push(await measure("search: one of 10 queries", (i) => list({ search: searches[i % searches.length] })));
    results.push(await measure("tag: one of 20 tags", (i) => list({ tag: tags[i % tags.length] })));
    results.push(await measure("tag + search", (i) => list({ tag: tags[i % tags.length], search: nouns[i % nouns.length] })));
    results.push(await measure("detail: random API", (i) => getDirectoryEntry({ prisma, config, slug: `api-${1 + ((i * 7919) % apis)}` })));

    console.table(results.map((r) => ({ ...r, goal: r.p95 <= goalMs ? `ok (<= ${goalMs} ms)` : `MISSED (> ${goalMs} ms)` })));
    const missed = results.filter((r) => r.p95 > goalMs);
    if (missed.length) process.exitCode = 1;
  } finally {
    await db.close();
    if (process.env.BENCH_KEEP_DATABASE === "1") console.log(`kept database ${name}`);
    else await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

await main();
