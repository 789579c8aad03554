// `npm run cluster`: the production topology on one machine (docs/deploy.md). PostgreSQL and Redis
// (private instances this script starts, unless DATABASE_URL / REDIS_URL name existing ones), two
// gateway processes and two web processes behind HAProxy (deploy/haproxy.cfg, health-checked), two
// workers, and the example origins (launched by the first gateway). The processes themselves are
// started by scripts/cluster-topology.ts, which `npm run soak` shares; Ctrl-C (or SIGTERM) stops them all.
//
// The public addresses are the one-process defaults: the platform on PORT (3000), the gateway on
// GATEWAY_PORT (8402). Processes listen on CLUSTER_PORT_BASE + n (default 7400: web 7401-7402,
// gateways 7411-7412, stats 7404, PostgreSQL 7432, Redis 7479). State lives under CLUSTER_DIR
// (default .data/cluster); delete it for a fresh start.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { clusterPlan, PrivatePostgres, redisProcess, redisReady, startTopology, type ManagedProcess, type Topology } from "./cluster-topology.ts";

export { clusterPlan, haproxyEnvironment, type ClusterPlan } from "./cluster-topology.ts";

const print = (name: string, line: string) => process.stdout.write(`[${name}] ${line}\n`);

let topology: Topology | null = null;
let redis: ManagedProcess | null = null;
let postgres: PrivatePostgres | null = null;
let stopping = false;

async function stopAll(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  print("cluster", "stopping");
  // The balancer first, then the hub's processes (each finishes its work on SIGTERM), then the stores.
  await topology?.stop();
  if (redis) {
    redis.stopping = true;
    await redis.kill("SIGTERM");
  }
  try {
    postgres?.stop();
  } catch (err) {
    print("cluster", err instanceof Error ? err.message : String(err));
  }
  process.exit(code);
}

async function main() {
  const plan = clusterPlan(process.env);
  mkdirSync(plan.dir, { recursive: true });
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  if (!plan.databaseUrl) {
    postgres = new PrivatePostgres(path.join(plan.dir, "postgres"), plan.pgPort);
    postgres.start();
  }
  const databaseUrl = plan.databaseUrl ?? postgres!.url;
  if (!plan.redisUrl) {
    redis = redisProcess(plan.redisPort, print);
    redis.start();
    await redisReady(plan.redisPort);
  }
  const redisUrl = plan.redisUrl ?? `redis://127.0.0.1:${plan.redisPort}`;

  // On one machine with the dev node the demo and the example APIs are seeded as `npm start` does
  // (SEED_DEMO=false turns that off); a DATABASE_URL alone would otherwise mean "production: no demo".
  topology = await startTopology({ plan, databaseUrl, redisUrl, web: true, seedDemo: (process.env.SEED_DEMO ?? "true") !== "false", sink: print });

  const summary = {
    site: process.env.SITE_URL ?? `http://localhost:${plan.webPort}`,
    gateway: `http://localhost:${plan.gatewayPort}/gw/<slug>`,
    haproxyStats: `http://127.0.0.1:${plan.statsPort}/`,
    processes: [...(redis ? [redis] : []), ...topology.processes.values()].map(({ name, child }) => ({ name, pid: child?.pid })),
    databaseUrl,
    redisUrl,
  };
  writeFileSync(path.join(plan.dir, "cluster.json"), JSON.stringify(summary, null, 2));
  print("cluster", `ready: ${JSON.stringify(summary)}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    print("cluster", err instanceof Error ? err.message : String(err));
    void stopAll(1);
  });
}
