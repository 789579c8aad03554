// `npm run cluster`: the production topology on one machine (docs/deploy.md). PostgreSQL and Redis
// (private instances this script starts, unless DATABASE_URL / REDIS_URL name existing ones), two
// gateway processes and two web processes behind HAProxy (deploy/haproxy.cfg, health-checked), two
// workers, and the example origins (launched by the first gateway). Every process is the same
// `server.ts --only=<role>` a real deployment runs; Ctrl-C (or SIGTERM) stops them all.
//
// The public addresses are the one-process defaults: the platform on PORT (3000), the gateway on
// GATEWAY_PORT (8402). Processes listen on CLUSTER_PORT_BASE + n (default 7400: web 7401-7402,
// gateways 7411-7412, stats 7404, PostgreSQL 7432, Redis 7479). State lives under CLUSTER_DIR
// (default .data/cluster); delete it for a fresh start.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, chownSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface ClusterPlan {
  dir: string;
  webPort: number;
  gatewayPort: number;
  statsPort: number;
  webPorts: [number, number];
  gatewayPorts: [number, number];
  pgPort: number;
  redisPort: number;
  databaseUrl: string | null;
  redisUrl: string | null;
}

export function clusterPlan(env: Record<string, string | undefined>): ClusterPlan {
  const base = Number(env.CLUSTER_PORT_BASE ?? 7400);
  if (!Number.isInteger(base) || base < 1024 || base > 65_000)
    throw new Error(`CLUSTER_PORT_BASE must be a port number 1024-65000, got "${env.CLUSTER_PORT_BASE}"`);
  return {
    dir: path.resolve(root, env.CLUSTER_DIR ?? ".data/cluster"),
    webPort: Number(env.PORT ?? 3000),
    gatewayPort: Number(env.GATEWAY_PORT ?? 8402),
    statsPort: base + 4,
    webPorts: [base + 1, base + 2],
    gatewayPorts: [base + 11, base + 12],
    pgPort: base + 32,
    redisPort: base + 79,
    databaseUrl: env.DATABASE_URL ?? null,
    redisUrl: env.REDIS_URL ?? null,
  };
}

/** The environment HAProxy reads deploy/haproxy.cfg with. */
export function haproxyEnvironment(plan: ClusterPlan): Record<string, string> {
  return {
    HUB_LB_BIND: "127.0.0.1",
    HUB_WEB_PORT: String(plan.webPort),
    HUB_GATEWAY_PORT: String(plan.gatewayPort),
    HUB_STATS_PORT: String(plan.statsPort),
    HUB_WEB_1: `127.0.0.1:${plan.webPorts[0]}`,
    HUB_WEB_2: `127.0.0.1:${plan.webPorts[1]}`,
    HUB_GATEWAY_1: `127.0.0.1:${plan.gatewayPorts[0]}`,
    HUB_GATEWAY_2: `127.0.0.1:${plan.gatewayPorts[1]}`,
  };
}

const running: Array<{ name: string; child: ChildProcess }> = [];

/** Starts a child whose output lines are prefixed with its name. */
function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): void {
  const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  child.on("exit", (code, signal) => {
    if (!stopping) process.stdout.write(`[${name}] exited (${signal ?? code})\n`);
  });
  running.push({ name, child });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${what} did not become ready within ${Math.round(timeoutMs / 1000)} s`);
}

const healthy = (url: string) => async () => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;

/** A private PostgreSQL cluster under `dir` (initdb once, then pg_ctl start): never the machine's own. */
function startPostgres(plan: ClusterPlan): string {
  const dataDir = path.join(plan.dir, "postgres");
  // PostgreSQL refuses to run as root: on a root shell (containers, CI) it runs as `postgres`.
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const run = (args: string[]) => {
    const [command, ...rest] = [...asPostgres, ...args];
    const result = spawnSync(command, rest, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr || result.stdout}`);
  };
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    mkdirSync(dataDir, { recursive: true });
    if (asPostgres.length) {
      const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
      const gids = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
      chownSync(dataDir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
    }
    run(["initdb", "-D", dataDir, "-U", "postgres", "--auth=trust", "--no-sync"]);
  }
  run(["pg_ctl", "-D", dataDir, "-l", path.join(dataDir, "server.log"), "-o", `-p ${plan.pgPort} -k /tmp -c listen_addresses=127.0.0.1`, "-w", "start"]);
  stopSteps.push(() => run(["pg_ctl", "-D", dataDir, "-m", "fast", "-w", "stop"]));
  return `postgresql://postgres@127.0.0.1:${plan.pgPort}/postgres`;
}

function startRedis(plan: ClusterPlan): string {
  start("redis", "redis-server", ["--port", String(plan.redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], process.env);
  return `redis://127.0.0.1:${plan.redisPort}`;
}

const stopSteps: Array<() => void> = [];
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  process.stdout.write("[cluster] stopping\n");
  // The balancer first, then the hub's processes (each finishes its work on SIGTERM), then the stores.
  for (const { child } of [...running].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill("SIGTERM");
    await new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 30_000);
      child.once("exit", () => {
        clearTimeout(timer);
        resolve(null);
      });
    });
  }
  for (const step of stopSteps.reverse()) {
    try {
      step();
    } catch (err) {
      process.stdout.write(`[cluster] ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  process.exit(code);
}

async function main() {
  const plan = clusterPlan(process.env);
  mkdirSync(plan.dir, { recursive: true });
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  const databaseUrl = plan.databaseUrl ?? startPostgres(plan);
  const redisUrl = plan.redisUrl ?? startRedis(plan);
  if (!plan.redisUrl) await waitFor("Redis", async () => spawnSync("redis-cli", ["-p", String(plan.redisPort), "ping"]).status === 0, 15_000);

  // Shared by every hub process: one database, one store, one DATA_DIR for the persisted secrets.
  const shared: NodeJS.ProcessEnv = {
    ...process.env,
    SEED_DEMO: "false",
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    DATA_DIR: path.join(plan.dir, "data"),
    SITE_URL: process.env.SITE_URL ?? `http://localhost:${plan.webPort}`,
    GATEWAY_URL_TEMPLATE: process.env.GATEWAY_URL_TEMPLATE ?? `http://localhost:${plan.gatewayPort}/gw/{slug}`,
    // X-Forwarded-For is believed only from the balancer.
    TRUSTED_PROXIES: process.env.TRUSTED_PROXIES ?? "127.0.0.1/32",
  };
  const hub = (role: string) => ["--import", "tsx", "server.ts", `--only=${role}`];

  // The first gateway migrates the database, seeds the demo and launches the example origins; the
  // others start after it, so no two processes race to seed.
  // On one machine with the dev node the demo and the example APIs are seeded as `npm start` does
  // (SEED_DEMO=false turns that off); a DATABASE_URL alone would otherwise mean "production: no demo".
  start("gateway-1", process.execPath, hub("gateway"), { ...shared, GATEWAY_PORT: String(plan.gatewayPorts[0]), SEED_DEMO: process.env.SEED_DEMO ?? "true" });
  await waitFor("gateway-1", healthy(`http://127.0.0.1:${plan.gatewayPorts[0]}/healthz`), 180_000);
  start("gateway-2", process.execPath, hub("gateway"), { ...shared, GATEWAY_PORT: String(plan.gatewayPorts[1]), SEED_DEMO: "false", HOSTED_EXAMPLES: "none" });
  // The first web process builds the Next app when no build exists; the second reuses it.
  start("web-1", process.execPath, hub("web"), { ...shared, PORT: String(plan.webPorts[0]) });
  await waitFor("web-1", healthy(`http://127.0.0.1:${plan.webPorts[0]}/api/health`), 600_000);
  start("web-2", process.execPath, hub("web"), { ...shared, PORT: String(plan.webPorts[1]) });
  start("worker-1", process.execPath, hub("worker"), shared);
  start("worker-2", process.execPath, hub("worker"), shared);
  await waitFor("gateway-2", healthy(`http://127.0.0.1:${plan.gatewayPorts[1]}/healthz`), 180_000);
  await waitFor("web-2", healthy(`http://127.0.0.1:${plan.webPorts[1]}/api/health`), 180_000);

  const haproxyConfig = path.join(root, "deploy", "haproxy.cfg");
  const lbEnv = { ...process.env, ...haproxyEnvironment(plan) };
  const check = spawnSync("haproxy", ["-c", "-q", "-f", haproxyConfig], { env: lbEnv, encoding: "utf8" });
  if (check.error || check.status !== 0) {
    throw new Error(`haproxy -c failed (install it with apt-get install haproxy): ${check.error?.message ?? check.stderr}`);
  }
  start("haproxy", "haproxy", ["-W", "-db", "-f", haproxyConfig], lbEnv);
  await waitFor("the balanced web", healthy(`http://127.0.0.1:${plan.webPort}/api/health`), 30_000);
  await waitFor("the balanced gateway", healthy(`http://127.0.0.1:${plan.gatewayPort}/healthz`), 30_000);

  const summary = {
    site: shared.SITE_URL,
    gateway: `http://localhost:${plan.gatewayPort}/gw/<slug>`,
    haproxyStats: `http://127.0.0.1:${plan.statsPort}/`,
    processes: running.map(({ name, child }) => ({ name, pid: child.pid })),
    databaseUrl,
    redisUrl,
  };
  writeFileSync(path.join(plan.dir, "cluster.json"), JSON.stringify(summary, null, 2));
  process.stdout.write(`[cluster] ready: ${JSON.stringify(summary)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    process.stdout.write(`[cluster] ${err instanceof Error ? err.message : String(err)}\n`);
    void stopAll(1);
  });
}
