// Child process of bench/instructions.ts, in one of four roles (BENCH_ROLE); each prints one JSON
// line once it is ready:
//   origin:  the origin every request ends at (a small JSON answer, as in bench/gateway-target.ts);
//   proxy:   the reference, a minimal reverse proxy (node:http in front, undici to the origin);
//   setup:   makes a scratch PostgreSQL database with the checkout's migrations and seeds a tenant
//            on the origin with a free, a per_request and a token_bucket endpoint, pre-paid proofs
//            and session tokens; writes them to BENCH_SETUP_FILE and exits;
//   gateway: opens that database and serves the checkout's gateway, nothing else.
// proxy and gateway run under Valgrind; origin and setup do not. The product code comes from the
// checkout BENCH_TARGET_DIR (default this one), so the same roles measure an older commit.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { Agent } from "undici";
import type * as ConfigModule from "@/lib/config/index.ts";
import type * as CryptoModule from "@/lib/crypto/secret-box.ts";
import type * as DbModule from "@/lib/db/client.ts";
import type * as GatewayModule from "@/lib/gateway/server.ts";
import type * as MacaroonModule from "@/lib/l402/macaroon.ts";
import type * as DevNodeModule from "@/lib/lightning/dev-node.ts";
import type * as LoggerModule from "@/lib/logging/logger.ts";
import type * as StoreModule from "@/lib/store/index.ts";
import type * as FactoriesModule from "@/prisma/factories.ts";

const role = process.env.BENCH_ROLE;
const targetDir = path.resolve(process.env.BENCH_TARGET_DIR ?? path.join(import.meta.dirname, ".."));
/** A module of the checkout under test, by its path in the repository (the same in every commit measured). */
const fromTarget = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(targetDir, file)).href) as Promise<T>;

const listen = (server: http.Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
const ready = (info: object) => console.log(JSON.stringify(info));

if (role === "origin") {
  const payload = JSON.stringify({ price: 97_123.45, symbol: "BTCUSD", at: "2026-01-01T00:00:00Z" });
  const origin = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
    res.end(payload);
  });
  // Idle keep-alive connections stay open: under Valgrind the process in front pauses for seconds
  // between windows, and an origin closing its idle sockets meanwhile (Node's default: after 5 s)
  // races the next request on them (a 502 of the old gateway in the first runs), which no figure here
  // is about.
  origin.keepAliveTimeout = 0;
  ready({ port: await listen(origin) });
} else if (role === "proxy") {
  // The reference: what any reverse proxy written on Node must do per request (parse, forward
  // with keep-alive to the origin, stream the answer back), and nothing else.
  const originUrl = process.env.BENCH_ORIGIN!;
  const agent = new Agent({ connections: 64, pipelining: 1 });
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    agent
      .request({ origin: originUrl, path: req.url!, method: req.method as "GET", headers, body: req.method === "GET" || req.method === "HEAD" ? null : req })
      .then(async (up) => {
        res.writeHead(up.statusCode, up.headers as http.OutgoingHttpHeaders);
        for await (const chunk of up.body) res.write(chunk);
        res.end();
      })
      .catch(() => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
  });
  const port = await listen(proxy);
  process.on("SIGTERM", () => process.exit(0));
  ready({ port });
} else if (role === "setup") {
  const { loadConfig } = await fromTarget<typeof ConfigModule>("lib/config/index.ts");
  const { hashToken, randomToken } = await fromTarget<typeof CryptoModule>("lib/crypto/secret-box.ts");
  const { openDatabase } = await fromTarget<typeof DbModule>("lib/db/client.ts");
  const { mintL402Macaroon } = await fromTarget<typeof MacaroonModule>("lib/l402/macaroon.ts");
  const { DevLightningNode } = await fromTarget<typeof DevNodeModule>("lib/lightning/dev-node.ts");
  const { devWalletFactory, endpointFactory, tenantFactory } = await fromTarget<typeof FactoriesModule>("prisma/factories.ts");

  const baseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `hub_instr_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const appSecret = randomBytes(32).toString("hex");
  const config = loadConfig({ DATA_DIR: "/tmp/hub-bench", APP_SECRET: appSecret, DATABASE_URL: url.toString(), LOG_LEVEL: "error" });
  const db = await openDatabase({ databaseUrl: url.toString(), pgliteDir: null, migrate: true, poolSize: 4 });
  const devNode = new DevLightningNode({ prisma: db.prisma, appSecret: config.appSecret });
  const { tenantId, slug } = await tenantFactory(db.prisma, config.appSecret, { originUrl: process.env.BENCH_ORIGIN! });
  await devWalletFactory(db.prisma, config.appSecret, tenantId, devNode.nodePubkey);
  await endpointFactory(db.prisma, tenantId, { path: "/v1/free" });
  const paid = await endpointFactory(db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 1 });
  const bucket = await endpointFactory(db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 1000, tokenBudget: 100_000_000 });

  // Pre-paid proofs, as after paying a challenge's invoice (the invoice row exists, unpaid until
  // the first valid proof settles it): one per per_request call.
  const proofs: string[] = [];
  const invoices = [];
  const later = new Date(Date.now() + 10 * 3_600_000);
  for (let i = 0; i < Number(process.env.BENCH_PROOFS); i++) {
    const preimage = randomBytes(32);
    const paymentHash = createHash("sha256").update(preimage).digest("hex");
    const { macaroon } = mintL402Macaroon({
      appSecret: config.appSecret,
      paymentHash,
      tenantId,
      scope: { kind: "endpoint", endpointId: paid.id },
      amountSats: 1,
      validUntil: later,
    });
    proofs.push(`L402 ${macaroon}:${preimage.toString("hex")}`);
    invoices.push({
      tenantId,
      endpointId: paid.id,
      paymentHash,
      paymentRequest: "lnbcrt-bench",
      amountSats: 1,
      purpose: "per_request" as const,
      expiresAt: later,
    });
  }
  for (let i = 0; i < invoices.length; i += 5000) await db.prisma.invoice.createMany({ data: invoices.slice(i, i + 5000) });

  // Session tokens, one per load-generator connection (a session is what a client holds after its
  // first paid call on a token_bucket endpoint).
  const sessions = Array.from({ length: Number(process.env.BENCH_SESSIONS) }, () => {
    const token = randomToken("hst_", 32);
    const row = {
      id: randomUUID(),
      tenantId,
      endpointId: bucket.id,
      model: "token_bucket" as const,
      tokenHash: hashToken(token),
      paymentHash: randomBytes(32).toString("hex"),
      balance: 100_000_000,
      initialBalance: 100_000_000,
      expiresAt: later,
    };
    return { token, row };
  });
  await db.prisma.paymentSession.createMany({ data: sessions.map((s) => s.row) });
  // Settled statistics, as autovacuum leaves them: the money statements are planned for them.
  await db.pg!.query("VACUUM ANALYZE");
  await db.close();
  writeFileSync(
    process.env.BENCH_SETUP_FILE!,
    JSON.stringify({ database: name, databaseUrl: url.toString(), appSecret, slug, proofs, sessions: sessions.map((s) => s.token) }),
  );
} else if (role === "gateway") {
  const { loadConfig } = await fromTarget<typeof ConfigModule>("lib/config/index.ts");
  const { openDatabase } = await fromTarget<typeof DbModule>("lib/db/client.ts");
  const { createGateway } = await fromTarget<typeof GatewayModule>("lib/gateway/server.ts");
  const { DevLightningNode } = await fromTarget<typeof DevNodeModule>("lib/lightning/dev-node.ts");
  const { createLogger } = await fromTarget<typeof LoggerModule>("lib/logging/logger.ts");
  const { openStore } = await fromTarget<typeof StoreModule>("lib/store/index.ts");

  const setup = JSON.parse(readFileSync(process.env.BENCH_SETUP_FILE!, "utf8")) as { databaseUrl: string; appSecret: string };
  const config = loadConfig({ DATA_DIR: "/tmp/hub-bench", APP_SECRET: setup.appSecret, DATABASE_URL: setup.databaseUrl, LOG_LEVEL: "error" });
  const db = await openDatabase({ databaseUrl: setup.databaseUrl, pgliteDir: null, migrate: false, poolSize: 20 });
  const store = openStore({ redisUrl: null, prefix: "bench:" });
  const gateway = createGateway({
    config,
    prisma: db.prisma,
    pg: db.pg,
    store,
    devNode: new DevLightningNode({ prisma: db.prisma, appSecret: config.appSecret }),
    log: createLogger("error"),
    // All load comes from one IP: lift the per-IP limits (their cost stays on the path), as bench:gateway does.
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
  const port = await gateway.listen(0, "127.0.0.1");
  process.on("SIGTERM", async () => {
    await gateway.close();
    await db.close();
    await store.close();
    process.exit(0);
  });
  ready({ port });
} else {
  throw new Error(`BENCH_ROLE must be origin, proxy, setup or gateway, not ${role}`);
}
