// Child process of bench/gateway.ts: the servers under test, apart from the load generator.
// Starts an origin, a plain Node reverse proxy in front of it, and our gateway on PostgreSQL
// (a scratch database) with a free, a per_request and a token_bucket endpoint, plus a time_pass
// streaming endpoint in front of the parent's SSE origin (BENCH_SSE_ORIGIN); mints pre-paid proofs
// and session tokens; serves GET /memory (after a forced GC) and GET /loop (event-loop delay and
// GCs since the last /loop) on a control port for the stream test; prints one JSON line with the
// addresses.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { readFileSync, writeFileSync } from "node:fs";
import pg from "pg";
import { loadConfig } from "@/lib/config/index.ts";
import { hashToken, randomToken } from "@/lib/crypto/secret-box.ts";
import { openDatabase } from "@/lib/db/client.ts";
import { createGateway } from "@/lib/gateway/server.ts";
import { mintL402Macaroon } from "@/lib/l402/macaroon.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { openStore } from "@/lib/store/index.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";

const baseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const proofCount = Number(process.env.BENCH_PROOFS ?? 60_000);
const proofsFile = process.env.BENCH_PROOFS_FILE!;
const sessionsFile = process.env.BENCH_SESSIONS_FILE!;
const sseOrigin = process.env.BENCH_SSE_ORIGIN!;
/** Sessions for the session-token run: one per load-generator connection. */
const sessionCount = Number(process.env.BENCH_SESSIONS ?? 32);

const listen = (server: http.Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));

const payload = JSON.stringify({ price: 97_123.45, symbol: "BTCUSD", at: "2026-01-01T00:00:00Z" });
const origin = http.createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
});
const originPort = await listen(origin);

// The baseline every gateway is compared with: a plain streaming reverse proxy, keep-alive to the origin.
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const proxy = http.createServer((req, res) => {
  const upstream = http.request({ host: "127.0.0.1", port: originPort, path: req.url, method: req.method, headers: req.headers, agent }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  upstream.on("error", () => res.writeHead(502).end());
  req.pipe(upstream);
});
const proxyPort = await listen(proxy);

const name = `hub_bench_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: baseUrl });
await admin.connect();
await admin.query(`CREATE DATABASE "${name}"`);
await admin.end();
const url = new URL(baseUrl);
url.pathname = `/${name}`;
const config = loadConfig({
  DATA_DIR: "/tmp/hub-bench",
  APP_SECRET: randomBytes(32).toString("hex"),
  DATABASE_URL: url.toString(),
  LOG_LEVEL: "error",
  REDIS_URL: process.env.REDIS_URL,
});
const db = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, migrate: true, poolSize: 20 });
const store = openStore({ redisUrl: config.redisUrl, prefix: `${name}:` });
const devNode = new DevLightningNode({ prisma: db.prisma, appSecret: config.appSecret });
const { tenantId, slug } = await tenantFactory(db.prisma, config.appSecret, { originUrl: `http://127.0.0.1:${originPort}` });
await devWalletFactory(db.prisma, config.appSecret, tenantId, devNode.nodePubkey);
await endpointFactory(db.prisma, tenantId, { path: "/v1/free" });
const paid = await endpointFactory(db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 1 });

// Pre-paid proofs: what a client holds after paying an invoice (the invoice row exists, unpaid
// until the first valid proof settles it, exactly as after a real challenge). They go to the load
// generator through a file; minted in a function so none of them stays on this process's heap (a
// gateway holds no such list: 40,000 of them made every scenario's garbage collections slower).
async function mintProofs() {
  const proofs: string[] = [];
  const invoices = [];
  for (let i = 0; i < proofCount; i++) {
    const preimage = randomBytes(32);
    const paymentHash = createHash("sha256").update(preimage).digest("hex");
    const { macaroon } = mintL402Macaroon({
      appSecret: config.appSecret,
      paymentHash,
      tenantId,
      scope: { kind: "endpoint", endpointId: paid.id },
      amountSats: 1,
      validUntil: new Date(Date.now() + 3_600_000),
    });
    proofs.push(`L402 ${macaroon}:${preimage.toString("hex")}`);
    invoices.push({
      tenantId,
      endpointId: paid.id,
      paymentHash,
      paymentRequest: "lnbcrt-bench",
      amountSats: 1,
      purpose: "per_request" as const,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
  }
  for (let i = 0; i < invoices.length; i += 5000) await db.prisma.invoice.createMany({ data: invoices.slice(i, i + 5000) });
  writeFileSync(proofsFile, JSON.stringify(proofs));
}
await mintProofs();

// Session tokens: what clients hold after their first paid call on a session endpoint.
const bucket = await endpointFactory(db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 1000, tokenBudget: 100_000_000 });
const streamTenant = await tenantFactory(db.prisma, config.appSecret, { originUrl: sseOrigin });
await devWalletFactory(db.prisma, config.appSecret, streamTenant.tenantId, devNode.nodePubkey);
const stream = await endpointFactory(db.prisma, streamTenant.tenantId, {
  path: "/v1/stream",
  pricingModel: "time_pass",
  priceSats: 100,
  durationMinutes: 600,
  streaming: true,
});
const later = new Date(Date.now() + 10 * 3_600_000);
const session = (tenant: string, endpointId: string, model: "token_bucket" | "time_pass", balance: number | null) => {
  const token = randomToken("hst_", 32);
  const row = {
    id: randomUUID(),
    tenantId: tenant,
    endpointId,
    model,
    tokenHash: hashToken(token),
    paymentHash: randomBytes(32).toString("hex"),
    balance,
    initialBalance: balance,
    expiresAt: later,
  };
  return { token, row };
};
const bucketSessions = Array.from({ length: sessionCount }, () => session(tenantId, bucket.id, "token_bucket", 100_000_000));
const pass = session(streamTenant.tenantId, stream.id, "time_pass", null);
await db.prisma.paymentSession.createMany({ data: [...bucketSessions.map((s) => s.row), pass.row] });
writeFileSync(sessionsFile, JSON.stringify({ bucket: bucketSessions.map((s) => s.token), pass: pass.token }));

// The history of a gateway that has been selling for a while: settled invoices and their consumed
// proofs, ended sessions, delivered events. Then VACUUM ANALYZE, a settled database as autovacuum
// leaves it: the money statements are prepared once per connection and PostgreSQL plans them for the
// table sizes it knows (docs/decisions.md, "Prepared money statements rely on table statistics").
// The stream test's process (no proofs) skips the history: it runs no money statement.
const history = proofCount === 0 ? 0 : Number(process.env.BENCH_HISTORY ?? 200_000);
await db.pg!.query(
  `INSERT INTO "Invoice" ("id", "tenantId", "endpointId", "paymentHash", "paymentRequest", "amountSats", "purpose", "status", "expiresAt", "settledAt", "createdAt")
   SELECT 'h' || g, $1, $2, encode(sha256(('h' || g)::bytea), 'hex'), 'lnbcrt-history', 1, 'per_request', 'settled', now() - interval '1 day', now() - interval '1 day', now() - interval '1 day'
   FROM generate_series(1, $3::int) g`,
  [tenantId, paid.id, history],
);
await db.pg!.query(
  `INSERT INTO "Proof" ("paymentHash", "tenantId", "endpointId", "state", "requestId", "consumedAt", "createdAt", "updatedAt")
   SELECT "paymentHash", "tenantId", "endpointId", 'consumed', gen_random_uuid()::text, "settledAt", "settledAt", "settledAt" FROM "Invoice" WHERE "paymentRequest" = 'lnbcrt-history'`,
);
await db.pg!.query(
  `INSERT INTO "OutboxEvent" ("id", "tenantId", "type", "data", "createdAt", "dispatchedAt")
   SELECT gen_random_uuid()::text, $1, 'invoice.settled', '{}'::jsonb, now() - interval '1 day', now() - interval '1 day' FROM generate_series(1, $2::int)`,
  [tenantId, history],
);
await db.pg!.query(
  `INSERT INTO "PaymentSession" ("id", "tenantId", "endpointId", "model", "tokenHash", "paymentHash", "balance", "initialBalance", "expiresAt", "expiredEventAt", "createdAt", "updatedAt")
   SELECT 'h' || g, $1, $2, 'token_bucket', encode(sha256(('t' || g)::bytea), 'hex'), encode(sha256(('s' || g)::bytea), 'hex'), 0, 100, now() - interval '1 day', now() - interval '1 day', now() - interval '2 days', now() - interval '1 day'
   FROM generate_series(1, $3::int / 4) g`,
  [tenantId, bucket.id, history],
);
// Experiments (bench:gateway-ab): a file of SQL run on the scratch database before it settles,
// e.g. AB_B_ENV="BENCH_TARGET_SQL_FILE=/tmp/drop-index.sql" to measure what an index costs.
if (process.env.BENCH_TARGET_SQL_FILE) await db.pg!.query(readFileSync(process.env.BENCH_TARGET_SQL_FILE, "utf8"));
await db.pg!.query("VACUUM ANALYZE");
await db.pg!.query("CHECKPOINT");

const gateway = createGateway({
  config,
  prisma: db.prisma,
  pg: db.pg,
  store,
  devNode,
  log: createLogger("error"),
  // Throughput is measured from one IP: lift the per-IP limits (their cost stays on the path).
  rateLimits: {
    endpointPerMinute: 1e9,
    globalPerMinute: 1e9,
    credentialedPerMinute: 1e9,
    forgeriesBeforeDemotion: 1e9,
    demotionMs: 1,
    challengesPerMinute: 1e9,
    tenantLookupsPerMinute: 1e9,
  },
});
const gatewayPort = await gateway.listen(0, "127.0.0.1");

// The stream test reads this process's memory with and without 1,000 open streams (GET /memory,
// after a forced GC), and what stalled its event loop during a phase (GET /loop: the delay
// histogram and the garbage collections since the previous /loop).
const gc = (globalThis as { gc?: () => void }).gc;
/** Event-loop delay and GC pauses, watched from the first GET /loop on (the calls' process never asks). */
let loopWatch: { delay: ReturnType<typeof monitorEventLoopDelay>; pauses: number[] } | null = null;
function loopStats() {
  if (!loopWatch) {
    const watch = { delay: monitorEventLoopDelay({ resolution: 1 }), pauses: [] as number[] };
    watch.delay.enable();
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) watch.pauses.push(entry.duration);
    }).observe({ entryTypes: ["gc"] });
    loopWatch = watch;
  }
  const { delay, pauses } = loopWatch;
  const ms = (n: number, unit: number) => Math.round((n / unit) * 100) / 100;
  const sorted = pauses.splice(0).sort((a, b) => a - b);
  const stats = {
    delayP50Ms: ms(delay.percentile(50), 1e6),
    delayP99Ms: ms(delay.percentile(99), 1e6),
    delayMaxMs: ms(delay.max, 1e6),
    gcCount: sorted.length,
    gcTotalMs: ms(
      sorted.reduce((a, b) => a + b, 0),
      1,
    ),
    gcMaxMs: ms(sorted.at(-1) ?? 0, 1),
  };
  delay.reset();
  return stats;
}
const control = http.createServer((req, res) => {
  if (req.url === "/loop") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(loopStats()));
    return;
  }
  gc?.();
  gc?.();
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ ...process.memoryUsage(), openStreams: gateway.openStreams(), gc: Boolean(gc) }));
});
const controlPort = await listen(control);
// Drop the proof-minting garbage now, so the stream test's memory readings start from a settled heap.
gc?.();
gc?.();
await new Promise((r) => setTimeout(r, 1_000));

console.log(JSON.stringify({ originPort, proxyPort, gatewayPort, controlPort, slug, streamSlug: streamTenant.slug, store: store.kind }));

process.on("SIGTERM", async () => {
  await gateway.close();
  await db.close();
  await store.close();
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await c.end();
  process.exit(0);
});
