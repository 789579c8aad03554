// One-process launcher. `npm start` runs the web app, the gateway and the worker together on
// embedded defaults (PGlite under DATA_DIR, in-memory store, dev Lightning node). With
// `--only=web|gateway|worker` (npm run start:web|start:gateway|start:worker) it runs one part,
// which is how production scales each part out on PostgreSQL + Redis.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, gatewayUrlFor, loadConfig, type Config } from "./lib/config/index.ts";
import { AppError, toErrorResponse } from "./lib/errors/index.ts";
import { databaseOptionsFrom, openDatabase, registerDatabase } from "./lib/db/client.ts";
import { seedDemoTenant } from "./lib/demo/seed-demo.ts";
import { launchHostedExamples, stopHostedExamples } from "./lib/hosted-examples/launch-hosted-examples.ts";
import { createGateway } from "./lib/gateway/server.ts";
import { clientIpResolver } from "./lib/client-address.ts";
import { platformJobs } from "./lib/jobs/schedule.ts";
import { platformWalletProblem } from "./lib/billing/platform-wallet.ts";
import { startWorker } from "./lib/jobs/worker.ts";
import { createLogger } from "./lib/logging/logger.ts";
import { guardStdio } from "./lib/logging/safe-stdio.ts";
import { newRequestId, REQUEST_ID_HEADER, WEB_REQUEST_ID_HEADER } from "./lib/logging/request-id.ts";
import { buildServerContext, registerServerContext } from "./lib/server-context.ts";
import { openStore, registerStore } from "./lib/store/index.ts";

type Role = "web" | "gateway" | "worker";
const roles: readonly Role[] = ["web", "gateway", "worker"];
const root = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv: string[]): { dev: boolean; only: Role[] } {
  const dev = argv.includes("--dev");
  const onlyArg = argv.find((a) => a.startsWith("--only="));
  if (!onlyArg) return { dev, only: [...roles] };
  const only = onlyArg.slice("--only=".length).split(",") as Role[];
  const unknown = only.filter((r) => !roles.includes(r));
  if (unknown.length) {
    console.error(`Unknown role(s) ${unknown.join(", ")}: use --only=web, --only=gateway or --only=worker`);
    process.exit(2);
  }
  return { dev, only };
}

function readConfig(): Config {
  try {
    const config = loadConfig();
    // The platform wallet's fields are checked against the wallet schemas, which lib/config cannot import.
    const walletProblem = platformWalletProblem(config);
    if (walletProblem) throw new ConfigError([walletProblem]);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

/** Builds the Next app once (first start of a fresh clone), like `npm run build`. */
function ensureNextBuild(log: ReturnType<typeof createLogger>) {
  if (existsSync(path.join(root, ".next", "BUILD_ID"))) return;
  log.info("no web build found: running `next build` (first start only, about a minute)");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) {
    log.error("next build failed; fix the errors above and start again");
    process.exit(1);
  }
}

/** Says which development features run and why, so an exposed install is never a surprise. */
function logDevelopmentFeatures(config: Config, log: ReturnType<typeof createLogger>) {
  if (config.devFeatures) {
    log.info("development features on (dev Lightning node, /api/dev/*, dev mailbox, private origins): never expose this install", {
      host: config.host,
      devNode: config.lightningDevNode,
      devMailbox: config.devMailbox,
    });
  } else if (!config.isProduction) {
    log.info(`development features off (HOST=${config.host}): they are on by default only while HOST is a loopback address; DEV_FEATURES=true turns them on`);
  }
}

function isDecodablePath(url: string): boolean {
  try {
    decodeURIComponent(url.split("?")[0]);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  // Before anything logs: a log reader that goes away must cost log lines, never the process.
  guardStdio();
  const { dev, only } = parseArgs(process.argv.slice(2));
  const config = readConfig();
  const log = createLogger(config.logLevel);
  logDevelopmentFeatures(config, log);
  if (!config.databaseUrl && only.length < roles.length) {
    log.warn("running one part alone on embedded PGlite: the other parts cannot share its data directory; set DATABASE_URL for separate processes");
  }
  if (!config.redisUrl && only.length < roles.length) {
    log.warn("running one part alone without REDIS_URL: config changes and rate limits are not shared between processes");
  }
  if (only.includes("web") && !dev) ensureNextBuild(log);

  const dbPromise = openDatabase(databaseOptionsFrom(config));
  registerDatabase(dbPromise);
  const db = await dbPromise;
  const store = openStore({ redisUrl: config.redisUrl, log: log.child({ part: "store" }) });
  registerStore(store);
  const ctx = buildServerContext({ config, db, store });
  registerServerContext(ctx);
  log.info("database ready", { kind: db.kind, dataDir: db.kind === "pglite" ? config.dataDir : undefined, store: store.kind });

  if (config.seedDemo && ctx.devNode && (await seedDemoTenant({ prisma: db.prisma, config, devNode: ctx.devNode }))) {
    log.info("seeded the demo tenant", { gateway: gatewayUrlFor(config, "demo") });
  }

  const stops: (() => Promise<void>)[] = [];

  if (only.includes("gateway")) {
    const gateway = createGateway({ config, prisma: db.prisma, pg: db.pg, store, devNode: ctx.devNode, log: log.child({ part: "gateway" }) });
    const port = await gateway.listen(config.gatewayPort);
    stops.push(() => gateway.close());
    log.info("gateway listening", { address: `${config.host}:${port}`, url: `http://localhost:${port}`, example: gatewayUrlFor(config, "<slug>") });
  }

  if (only.includes("web")) {
    const { default: next } = await import("next");
    const app = next({ dev, dir: root, hostname: "localhost", port: config.port });
    await app.prepare();
    const handler = app.getRequestHandler();
    // The caller's address for the directory API's rate limits: a header no client can forge
    // (overwritten here), resolved through TRUSTED_PROXIES like the gateway does.
    const webClientIp = clientIpResolver(config.trustedProxies);
    const web = http.createServer((req, res) => {
      req.headers["x-hub-client-ip"] = webClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"]);
      const requestId = newRequestId();
      req.headers[WEB_REQUEST_ID_HEADER] = requestId;
      res.setHeader(REQUEST_ID_HEADER, requestId);
      // Next answers a path it cannot percent-decode (`/directory/%ZZ`) with a 500: it is the client's error.
      if (!isDecodablePath(req.url ?? "/")) {
        const { status, body } = toErrorResponse(
          new AppError("bad_request", "The request path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8)"),
        );
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
        return;
      }
      void handler(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      web.once("error", reject);
      web.listen(config.port, config.host, () => resolve());
    });
    stops.push(async () => {
      web.closeAllConnections();
      await new Promise<void>((resolve) => web.close(() => resolve()));
      await app.close?.();
    });
    log.info("web app listening", { address: `${config.host}:${config.port}`, url: config.siteUrl, dev });
  }

  // The example APIs (examples/): their own processes, seeded as tenants paid through the dev node.
  // Not awaited: a first start builds a road graph for a while; the rest of the hub is up meanwhile.
  if (config.seedDemo && ctx.devNode && config.hostedExamples.length && only.includes("gateway")) {
    void launchHostedExamples({ prisma: db.prisma, store, config, devNode: ctx.devNode, log: log.child({ part: "examples" }), root });
    stops.push(() => stopHostedExamples());
  }

  // Last, so the first health probes of a one-process install find the demo origin listening.
  if (only.includes("worker")) {
    const worker = startWorker({
      prisma: db.prisma,
      jobs: platformJobs({ prisma: db.prisma, store, devNode: ctx.devNode, log, config }),
      log: log.child({ part: "worker" }),
    });
    stops.push(() => worker.stop());
    log.info("worker started");
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    for (const stop of stops.reverse()) await stop().catch((err) => log.error("shutdown step failed", { error: err }));
    await ctx.wallets.close();
    await store.close();
    await db.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
