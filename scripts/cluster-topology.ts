// The production topology as an importable module: `npm run cluster` (scripts/cluster.ts) runs it until
// Ctrl-C; `npm run soak` (scripts/soak.ts) runs it under load and kills, restarts and audits its parts.
// Every hub process is the same `server.ts --only=<role>` a real deployment runs, behind HAProxy with
// deploy/haproxy.cfg; PostgreSQL and Redis are private instances started here unless URLs are given.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { accessSync, chownSync, constants, existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

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

/** Ports and directories from the environment (CLUSTER_PORT_BASE, CLUSTER_DIR, PORT, GATEWAY_PORT). */
export function clusterPlan(env: Record<string, string | undefined>): ClusterPlan {
  const base = Number(env.CLUSTER_PORT_BASE ?? 7400);
  if (!Number.isInteger(base) || base < 1024 || base > 65_000)
    throw new Error(`CLUSTER_PORT_BASE must be a port number 1024-65000, got "${env.CLUSTER_PORT_BASE}"`);
  return {
    dir: path.resolve(repositoryRoot, env.CLUSTER_DIR ?? ".data/cluster"),
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

/** Where a child's output lines go: `npm run cluster` prints them, the soak files them. */
export type LineSink = (name: string, line: string) => void;

/** Polls `check` every 250 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} did not become ready within ${Math.round(timeoutMs / 1000)} s`);
}

/** A check that an HTTP health URL answers 200. */
export const healthy = (url: string) => async () => (await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok;

/** One supervised child: started, killed and restarted by name with the same command line. */
export class ManagedProcess {
  child: ChildProcess | null = null;
  /** Set while the topology stops, so exits are expected rather than reported. */
  stopping = false;
  /**
   * Restart the child 2 s after an exit nobody asked for, as the systemd units in deploy/systemd do
   * (Restart=always, RestartSec=2); every such exit is recorded in `unplannedExits`.
   */
  supervise = false;
  readonly unplannedExits: Array<{ at: number; how: string }> = [];
  private killing = false;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly sink: LineSink,
    /** The URL that answers 200 once the process serves, if it has one. */
    readonly healthUrl: string | null,
  ) {}

  /** Spawns the child (again, after a kill). */
  start(): void {
    const child = spawn(this.command, this.args, { cwd: repositoryRoot, env: this.env, stdio: ["ignore", "pipe", "pipe"] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => this.sink(this.name, line));
    }
    child.on("exit", (code, signal) => {
      if (this.stopping) return;
      this.sink(this.name, `exited (${signal ?? code})`);
      if (this.killing) return;
      this.unplannedExits.push({ at: Date.now(), how: String(signal ?? code) });
      if (this.supervise) setTimeout(() => !this.stopping && !this.alive && this.start(), 2_000);
    });
    this.child = child;
  }

  /**
   * Closes the reading end of the child's stdout and stderr pipes, as a log shipper that died would:
   * the child's next log write fails with EPIPE (lib/logging/safe-stdio.ts must keep it serving).
   */
  closeLogReader(): void {
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
  }

  /** True when the last stop needed SIGKILL after SIGTERM's grace ran out. */
  neededSigkill = false;

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once the child answers its health check (at once when it has none). */
  async ready(timeoutMs = 180_000): Promise<void> {
    if (this.healthUrl) await waitFor(this.name, healthy(this.healthUrl), timeoutMs);
  }

  /** Sends `signal` and waits for the exit; SIGTERM escalates to SIGKILL after `graceMs`. */
  async kill(signal: NodeJS.Signals, graceMs = 30_000): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    this.killing = true;
    child.kill(signal);
    const timer = setTimeout(() => {
      this.neededSigkill = signal !== "SIGKILL";
      child.kill("SIGKILL");
    }, graceMs);
    await exited;
    this.killing = false;
    clearTimeout(timer);
  }
}

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The one directory that holds both `initdb` and `pg_ctl` (so they are of one version): the first
 * such directory on the PATH, else Debian's newest `/usr/lib/postgresql/<major>/bin` (its packages put
 * only wrappers on the PATH, not these). Null when neither has them.
 */
function postgresBinDir(): string | null {
  const holdsBoth = (dir: string) => ["initdb", "pg_ctl"].every((tool) => isExecutable(path.join(dir, tool)));
  const onPath = (process.env.PATH ?? "").split(path.delimiter).find((dir) => dir && holdsBoth(dir));
  if (onPath) return onPath;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)) : [];
  return (
    majors
      .sort((a, b) => Number(b) - Number(a))
      .map((major) => path.join(root, major, "bin"))
      .find(holdsBoth) ?? null
  );
}

/** Whether a private PostgreSQL can be made here (the server's `initdb` and `pg_ctl` are installed). */
export function postgresToolsAvailable(): boolean {
  return postgresBinDir() !== null;
}

/** Runs `args` (as the `postgres` user on a root shell: PostgreSQL refuses to run as root). */
function runPostgresTool(args: string[]): void {
  const asPostgres = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--"] : [];
  const bin = postgresBinDir();
  if (!bin) throw new Error("initdb and pg_ctl not found on the PATH or under /usr/lib/postgresql/<major>/bin: install PostgreSQL's server package");
  const [command, ...rest] = [...asPostgres, path.join(bin, args[0]), ...args.slice(1)];
  const result = spawnSync(command, rest, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr || result.stdout}`);
}

/** A private PostgreSQL cluster under `dataDir` (initdb once, then pg_ctl): never the machine's own. */
export class PrivatePostgres {
  /** `settings`: more server settings (`name=value`), e.g. a test's `wal_writer_delay`. */
  constructor(
    readonly dataDir: string,
    readonly port: number,
    readonly settings: string[] = [],
  ) {
    // pg_ctl starts the server through a shell: only plain `name=value` settings pass.
    const unsafe = settings.find((setting) => !/^[a-z_]+=[\w.:-]+$/.test(setting));
    if (unsafe !== undefined) throw new Error(`PostgreSQL setting "${unsafe}" is not of the form name=value (letters, digits, . : -)`);
  }

  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  start(): void {
    if (!existsSync(path.join(this.dataDir, "PG_VERSION"))) {
      mkdirSync(this.dataDir, { recursive: true });
      if (process.getuid?.() === 0) {
        const ids = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
        const gids = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
        chownSync(this.dataDir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
      }
      runPostgresTool(["initdb", "-D", this.dataDir, "-U", "postgres", "--auth=trust", "--no-sync"]);
    }
    runPostgresTool([
      "pg_ctl",
      "-D",
      this.dataDir,
      "-l",
      path.join(this.dataDir, "server.log"),
      "-o",
      [`-p ${this.port} -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=200`, ...this.settings.map((s) => `-c ${s}`)].join(" "),
      "-w",
      "start",
    ]);
  }

  /** `fast` stops cleanly; `immediate` is a crash (recovery replays the WAL on the next start). */
  stop(mode: "fast" | "immediate" = "fast"): void {
    runPostgresTool(["pg_ctl", "-D", this.dataDir, "-m", mode, "-w", "stop"]);
  }
}

/** A private redis-server on `port` (no persistence: what Redis holds may be lost, by design). */
export function redisProcess(port: number, sink: LineSink): ManagedProcess {
  return new ManagedProcess(
    "redis",
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    process.env,
    sink,
    null,
  );
}

/** Waits until redis-cli pings the server on `port`. */
export function redisReady(port: number): Promise<void> {
  return waitFor("Redis", async () => spawnSync("redis-cli", ["-p", String(port), "ping"]).status === 0, 15_000);
}

export type TopologyOptions = {
  plan: ClusterPlan;
  databaseUrl: string;
  redisUrl: string;
  /** Added to every hub process's environment (after the defaults below). */
  env?: Record<string, string | undefined>;
  /** Start the two web processes (the first builds the Next app when no build exists). */
  web?: boolean;
  /** Restart a process that exits on its own, as systemd does (ManagedProcess.supervise). */
  supervise?: boolean;
  /** The first gateway seeds the demo and launches the example origins (`npm run cluster`), as `npm start` does. */
  seedDemo?: boolean;
  sink: LineSink;
};

/** The hub's processes behind HAProxy, by name: gateway-1/2, web-1/2, worker-1/2, haproxy. */
export type Topology = {
  processes: Map<string, ManagedProcess>;
  /** Where clients reach the balanced gateway and web. */
  gatewayUrl: string;
  webUrl: string;
  /** Stops the balancer first, then the hub's processes (each finishes its work on SIGTERM). */
  stop(): Promise<void>;
};

/** Starts the topology on an existing database and Redis; resolves when every part answers its health check. */
export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const { plan, sink } = options;
  const processes = new Map<string, ManagedProcess>();
  const shared: NodeJS.ProcessEnv = {
    ...process.env,
    SEED_DEMO: "false",
    DATA_DIR: path.join(plan.dir, "data"),
    SITE_URL: process.env.SITE_URL ?? `http://localhost:${plan.webPort}`,
    GATEWAY_URL_TEMPLATE: process.env.GATEWAY_URL_TEMPLATE ?? `http://localhost:${plan.gatewayPort}/gw/{slug}`,
    // X-Forwarded-For is believed only from the balancer.
    TRUSTED_PROXIES: process.env.TRUSTED_PROXIES ?? "127.0.0.1/32",
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
  };
  const hub = (role: string) => ["--import", "tsx", "server.ts", `--only=${role}`];
  const add = (name: string, command: string, args: string[], env: NodeJS.ProcessEnv, healthUrl: string | null) => {
    const proc = new ManagedProcess(name, command, args, env, sink, healthUrl);
    proc.supervise = options.supervise ?? false;
    processes.set(name, proc);
    proc.start();
    return proc;
  };
  const gatewayHealth = (port: number) => `http://127.0.0.1:${port}/healthz`;
  const webHealth = (port: number) => `http://127.0.0.1:${port}/api/health`;

  const stop = async () => {
    for (const proc of [...processes.values()].reverse()) {
      proc.stopping = true;
      await proc.kill("SIGTERM");
    }
  };
  // A part that never comes up stops the parts already started: none may outlive the caller.
  try {
    // The first gateway migrates the database (and seeds the demo and launches the example origins when
    // asked); the others start after it, so no two processes race to migrate or seed.
    await add(
      "gateway-1",
      process.execPath,
      hub("gateway"),
      { ...shared, GATEWAY_PORT: String(plan.gatewayPorts[0]), SEED_DEMO: options.seedDemo ? "true" : "false" },
      gatewayHealth(plan.gatewayPorts[0]),
    ).ready();
    const second = add(
      "gateway-2",
      process.execPath,
      hub("gateway"),
      { ...shared, GATEWAY_PORT: String(plan.gatewayPorts[1]), SEED_DEMO: "false", HOSTED_EXAMPLES: "none" },
      gatewayHealth(plan.gatewayPorts[1]),
    );
    if (options.web) {
      // The first web process builds the Next app when no build exists; the second reuses it.
      await add("web-1", process.execPath, hub("web"), { ...shared, PORT: String(plan.webPorts[0]) }, webHealth(plan.webPorts[0])).ready(600_000);
      add("web-2", process.execPath, hub("web"), { ...shared, PORT: String(plan.webPorts[1]) }, webHealth(plan.webPorts[1]));
    }
    add("worker-1", process.execPath, hub("worker"), shared, null);
    add("worker-2", process.execPath, hub("worker"), shared, null);
    await second.ready();
    if (options.web) await processes.get("web-2")!.ready();

    const haproxyConfig = path.join(repositoryRoot, "deploy", "haproxy.cfg");
    const lbEnv = { ...process.env, ...haproxyEnvironment(plan) };
    const check = spawnSync("haproxy", ["-c", "-q", "-f", haproxyConfig], { env: lbEnv, encoding: "utf8" });
    if (check.error || check.status !== 0) {
      throw new Error(`haproxy -c failed (install it with apt-get install haproxy): ${check.error?.message ?? check.stderr}`);
    }
    add("haproxy", "haproxy", ["-W", "-db", "-f", haproxyConfig], lbEnv, `http://127.0.0.1:${plan.gatewayPort}/healthz`);
    if (options.web) await waitFor("the balanced web", healthy(`http://127.0.0.1:${plan.webPort}/api/health`), 30_000);
    await waitFor("the balanced gateway", healthy(`http://127.0.0.1:${plan.gatewayPort}/healthz`), 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    processes,
    gatewayUrl: `http://127.0.0.1:${plan.gatewayPort}`,
    webUrl: `http://127.0.0.1:${plan.webPort}`,
    stop,
  };
}
