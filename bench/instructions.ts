// `npm run bench:instructions`: CPU instructions per request in the process under test, counted by
// Valgrind (callgrind), so the figure does not move with what else the machine runs. Wall-clock
// ratios on the shared 2-core machines swing by ±15 points between rounds; instruction counts repeat.
//
// Processes (bench/instructions-server.ts): an origin; the reference, a minimal node:http + undici
// reverse proxy in front of it; and the gateway of the checkout under test on a scratch PostgreSQL
// database (DATABASE_URL, default the local service) with a free, a per_request (a fresh pre-paid
// proof on every request) and a token_bucket endpoint (a session per connection). The proxy and
// the gateway run under `valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes`:
// nothing is counted while they start. This process is the load generator: BENCH_WARMUP requests
// per path first (default 1,500); then per path BENCH_WINDOWS windows (default 3), each opened once
// the process is idle (`callgrind_control -i on`), BENCH_REQUESTS requests (default 300) over
// BENCH_CONNECTIONS keep-alive connections (default 8), closed (`-i off`) and dumped.
// Instructions per request = a window's total / BENCH_REQUESTS, the median of the windows; printed
// for the main thread (JavaScript, HTTP parsing, crypto, scavenges: the lead figure) and for all
// threads (plus V8's optimizing compiler and concurrent GC, which move with when V8 decides to
// optimize). Node.js runs with --no-memory-reducer (see nodeArgs). PostgreSQL's own instructions
// are not counted (its processes are not under Valgrind).
//
// BENCH_RUNS runs (default 3), each on fresh processes; prints every run, the mean, the spread
// (max - min) / mean and the ratio gateway / proxy. BENCH_TARGET_DIR=<checkout> measures another
// checkout's gateway (it needs its own `npm ci`); BENCH_BASELINE_DIR=<checkout> measures that one
// too, in the same runs, and prints the two side by side, e.g. for a no-regression check:
//   git worktree add --detach /tmp/pre c2186a2 && (cd /tmp/pre && npm ci --no-audit --no-fund)
//   BENCH_BASELINE_DIR=/tmp/pre npm run bench:instructions
// About 10 minutes per run and checkout on a 2-core VM at load average 10 (Valgrind runs Node.js
// ~50× slower). The counts depend on the load only through the gateway's timers, so runs can be
// made side by side:
//   BENCH_RUNS=1 npm run bench:instructions & BENCH_RUNS=1 BENCH_TARGET_DIR=/tmp/pre npm run bench:instructions
// BENCH_VERBOSE=1 prints each step and window; BENCH_KEEP=1 keeps the callgrind dumps
// (callgrind_annotate shows where a window's instructions went).
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import pg from "pg";
import { Pool } from "undici";

const repoRoot = path.resolve(import.meta.dirname, "..");
const serverScript = path.join(repoRoot, "bench/instructions-server.ts");
const requests = Number(process.env.BENCH_REQUESTS ?? 300);
const warmup = Number(process.env.BENCH_WARMUP ?? 1500);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const windows = Number(process.env.BENCH_WINDOWS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
/**
 * Node.js flags of the counted processes. --no-memory-reducer: V8 otherwise starts a full collection
 * a few seconds after allocation slows down, which the idle pauses between windows always trigger
 * and which then lands in one window and not the next (+60 M instructions in the window that caught
 * it); a gateway under load never idles like that. Its full collections driven by heap growth stay.
 */
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "--no-memory-reducer").split(" ").filter(Boolean);
const baseUrl = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** The checkouts whose gateways are measured: the target, and the baseline it is compared with. */
const checkouts = [
  { name: "target", dir: path.resolve(process.env.BENCH_TARGET_DIR ?? repoRoot) },
  ...(process.env.BENCH_BASELINE_DIR ? [{ name: "baseline", dir: path.resolve(process.env.BENCH_BASELINE_DIR) }] : []),
];
/** The checkout and the commit it has out, for the printout. */
const describe = (dir: string) => {
  try {
    return `${dir} @ ${execFileSync("git", ["-C", dir, "log", "-1", "--format=%h %s"]).toString().trim().slice(0, 80)}`;
  } catch {
    return dir;
  }
};

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), "hub-instr-"));
const children = new Set<ChildProcess>();
// A load-generator connection reset after its pool closed surfaced as an uncaught ECONNRESET (three
// times in runs at load average 15-23) and ended the run; every counted request's answer is checked
// in sendRequests, so a reset after the fact changes no figure.
process.on("uncaughtException", (err: NodeJS.ErrnoException) => {
  if (err.code !== "ECONNRESET") throw err;
  console.warn(`  note: a connection was reset after its requests were answered (${err.message})`);
});
process.on("exit", () => children.forEach((child) => child.kill("SIGKILL")));

type Started = { child: ChildProcess; info: Record<string, unknown>; nextLine: () => Promise<string> };

/** Starts a role of bench/instructions-server.ts (under callgrind when counted) and waits for its JSON line. */
async function startRole(role: string, options: { dir: string; env?: Record<string, string>; counted: boolean }): Promise<Started> {
  const node = [process.execPath, ...nodeArgs, "--import", "tsx", serverScript];
  const command = options.counted
    ? [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--separate-threads=yes",
        `--callgrind-out-file=${scratch}/cg.%p`,
        `--log-file=${scratch}/valgrind.%p.log`,
        ...node,
      ]
    : node;
  const child = spawn(command[0], command.slice(1), {
    cwd: options.dir,
    env: { ...process.env, ...options.env, BENCH_ROLE: role, BENCH_TARGET_DIR: options.dir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  // Every line the child prints, in order, for whoever waits for the next one.
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => (waiting.length ? waiting.shift()!(line) : lines.push(line)));
  const nextLine = () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => waiting.push(resolve)));
  const info = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${role} exited with ${code}${options.counted ? ` (see ${scratch}/valgrind.*.log)` : ""}`)));
    void nextLine().then((line) => resolve(JSON.parse(line)));
  });
  child.removeAllListeners("exit");
  return { child, info, nextLine };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

/** Runs a setup role to its end (it writes the database, proofs and sessions to a file). */
async function setUp(dir: string, originUrl: string) {
  const file = path.join(scratch, `setup-${Date.now()}.json`);
  const child = spawn(process.execPath, ["--import", "tsx", serverScript], {
    cwd: dir,
    env: {
      ...process.env,
      BENCH_ROLE: "setup",
      BENCH_TARGET_DIR: dir,
      BENCH_ORIGIN: originUrl,
      BENCH_SETUP_FILE: file,
      BENCH_PROOFS: String(warmup + windows * requests),
      BENCH_SESSIONS: String(connections),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`setup in ${dir} exited with ${code}`);
  return { file, ...(JSON.parse(readFileSync(file, "utf8")) as { database: string; slug: string; proofs: string[]; sessions: string[] }) };
}

/** A path to load: its URL and the headers of the n-th request on connection c. */
type Load = { url: string; headers: (n: number, connection: number) => Record<string, string> };

/** Sends `count` GETs over `connections` keep-alive connections, each connection one request at a time. */
async function sendRequests(load: Load, count: number, first = 0) {
  const url = new URL(load.url);
  const pool = new Pool(url.origin, { connections, pipelining: 1 });
  let next = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, connection) => {
      while (next < count) {
        const n = first + next++;
        const res = await pool.request({ path: url.pathname, method: "GET", headers: load.headers(n, connection) });
        const body = await res.body.text();
        if (res.statusCode !== 200 && failures.length < 3) failures.push(`${res.statusCode} ${body.slice(0, 200)}`);
      }
    }),
  );
  await pool.close();
  if (failures.length) throw new Error(`${load.url} answered: ${failures.join(" | ")}`);
}

/** Instructions counted in one window: every thread of the process, and its main (JavaScript) thread alone. */
type Count = { all: number; main: number };

/**
 * The newest dump of a process (--separate-threads=yes: one file per thread, `cg.<pid>.<n>-<thread>`,
 * thread 01 the main thread; V8's compiler and GC helpers are the others).
 */
function dumpedCount(pid: number): Count {
  const files = readdirSync(scratch).filter((file) => file.startsWith(`cg.${pid}.`));
  const part = Math.max(...files.map((file) => Number(file.split(".")[2].split("-")[0])));
  const count: Count = { all: 0, main: 0 };
  for (const file of files.filter((f) => f.split(".")[2].split("-")[0] === String(part))) {
    const totals = /^totals: (\d+)/m.exec(readFileSync(path.join(scratch, file), "utf8"));
    if (!totals) throw new Error(`no totals in callgrind dump ${file}`);
    count.all += Number(totals[1]);
    if (Number(file.split("-").at(-1)) === 1) count.main += Number(totals[1]);
  }
  return count;
}

/** Counts one window of `requests` requests, once the process is idle; per request. */
async function countWindow(target: Started, load: Load, first: number): Promise<Count> {
  const pid = target.child.pid!;
  await settle(pid);
  await run("callgrind_control", ["-z", String(pid)]);
  await run("callgrind_control", ["-i", "on", String(pid)]);
  await sendRequests(load, requests, first);
  await run("callgrind_control", ["-i", "off", String(pid)]);
  await run("callgrind_control", ["-d", String(pid)]);
  const count = dumpedCount(pid);
  return { all: count.all / requests, main: count.main / requests };
}

/**
 * One path's figure: the median of BENCH_WINDOWS windows (default 3) in a row, main thread and all
 * threads apiece. V8 still deoptimizes and reoptimizes now and then after any warm-up, and a window
 * that catches it runs baseline code for a while (+50% measured); the median leaves it out.
 */
async function countMedian(target: Started, load: Load, first: number): Promise<Count> {
  const counts: Count[] = [];
  for (let window = 0; window < windows; window++) {
    const count = await countWindow(target, load, first + window * requests);
    step(`window ${window + 1}: ${Math.round(count.main).toLocaleString("en")} main thread, ${Math.round(count.all).toLocaleString("en")} all threads`);
    counts.push(count);
  }
  return { main: median(counts.map((c) => c.main)), all: median(counts.map((c) => c.all)) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim());

/** CPU time (user + system, every thread) of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until the process under test has been idle for a second (at most 2 minutes): its compiler
 * and GC threads have finished what the warm-up and the forced collection started, so none of that
 * work spills into the counted window. Under Valgrind a TurboFan job takes tens of milliseconds.
 */
async function settle(pid: number) {
  const deadline = Date.now() + 120_000;
  let before = cpuTicks(pid);
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1_000));
    const now = cpuTicks(pid);
    if (now - before <= ticksPerSecond / 50) return;
    before = now;
  }
  console.warn(`  note: process ${pid} did not go idle before its window`);
}

const paths = ["free", "per_request", "token_bucket"] as const;
type Path = (typeof paths)[number];
type Figure = Count;
/** Per run: the proxy's figure, and each checkout's figure per path. */
const proxyRuns: Figure[] = [];
const gatewayRuns: Record<string, Record<Path, Figure[]>> = Object.fromEntries(checkouts.map((c) => [c.name, { free: [], per_request: [], token_bucket: [] }]));
const show = (f: Figure) =>
  `${Math.round(f.main).toLocaleString("en")} main thread, ${Math.round(f.all).toLocaleString("en")} all threads (median of ${windows} windows)`;
const databases: string[] = [];

const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
/** BENCH_VERBOSE=1: each step's time, to size BENCH_WARMUP and BENCH_REQUESTS. */
const step = (what: string) => process.env.BENCH_VERBOSE && console.log(`  ${elapsed()}: ${what}`);
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
console.log(
  `instructions per request (callgrind): ${runs} runs; per path ${warmup} warm-up requests, then ${requests} counted; ${connections} connections; PostgreSQL; load average ${loadAverage()}`,
);
for (const checkout of checkouts) console.log(`  ${checkout.name}: ${describe(checkout.dir)}`);

const origin = await startRole("origin", { dir: repoRoot, counted: false });
const originUrl = `http://127.0.0.1:${origin.info.port}`;
try {
  for (let r = 1; r <= runs; r++) {
    // The reference proxy.
    const proxy = await startRole("proxy", { dir: repoRoot, env: { BENCH_ORIGIN: originUrl }, counted: true });
    step("proxy started");
    const proxyLoad: Load = { url: `http://127.0.0.1:${proxy.info.port}/v1/data`, headers: () => ({}) };
    await sendRequests(proxyLoad, warmup);
    step("proxy warmed up");
    proxyRuns.push(await countMedian(proxy, proxyLoad, 0));
    await stop(proxy.child);
    console.log(`run ${r}: plain proxy ${show(proxyRuns.at(-1)!)} (${elapsed()}, load average ${loadAverage()})`);

    for (const checkout of checkouts) {
      const setup = await setUp(checkout.dir, originUrl);
      databases.push(setup.database);
      step(`${checkout.name} set up`);
      const gateway = await startRole("gateway", { dir: checkout.dir, env: { BENCH_SETUP_FILE: setup.file }, counted: true });
      step(`${checkout.name} gateway started`);
      const base = `http://127.0.0.1:${gateway.info.port}/gw/${setup.slug}`;
      const loads: Record<Path, Load> = {
        free: { url: `${base}/v1/free`, headers: () => ({}) },
        // A fresh proof on every request: the first `warmup` for the warm-up, the rest counted.
        per_request: { url: `${base}/v1/paid`, headers: (n) => ({ authorization: setup.proofs[n] }) },
        token_bucket: { url: `${base}/v1/bucket`, headers: (_, connection) => ({ "x-session-token": setup.sessions[connection] }) },
      };
      for (const p of paths) await sendRequests(loads[p], warmup);
      step(`${checkout.name} gateway warmed up`);
      for (const p of paths) {
        gatewayRuns[checkout.name][p].push(await countMedian(gateway, loads[p], warmup));
        step(`${checkout.name} ${p} counted`);
      }
      await stop(gateway.child);
      for (const p of paths) console.log(`run ${r}: ${checkout.name} gateway, ${p}: ${show(gatewayRuns[checkout.name][p].at(-1)!)}`);
      console.log(`  (${elapsed()}, load average ${loadAverage()})`);
    }
  }
} finally {
  await stop(origin.child);
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const spread = (values: number[]) => (Math.max(...values) - Math.min(...values)) / mean(values);
const count = (n: number) => Math.round(n).toLocaleString("en");
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const threads = { main: "main thread", all: "all threads" } as const;
for (const checkout of checkouts) {
  for (const which of ["main", "all"] as const) {
    const proxyValues = proxyRuns.map((f) => f[which]);
    console.log(`\n${checkout.name} (${describe(checkout.dir)}): instructions per request, ${threads[which]}, ${runs} runs of ${requests} requests`);
    console.table([
      {
        path: "plain proxy (node:http + undici)",
        runs: proxyValues.map(count).join(" / "),
        mean: count(mean(proxyValues)),
        spread: pct(spread(proxyValues)),
        "gateway / proxy": "",
      },
      ...paths.map((p) => {
        const values = gatewayRuns[checkout.name][p].map((f) => f[which]);
        return {
          path: `gateway, ${p}`,
          runs: values.map(count).join(" / "),
          mean: count(mean(values)),
          spread: pct(spread(values)),
          "gateway / proxy": `${(mean(values) / mean(proxyValues)).toFixed(2)}×`,
        };
      }),
    ]);
  }
}
if (checkouts.length === 2) {
  for (const which of ["main", "all"] as const) {
    const proxyMean = mean(proxyRuns.map((f) => f[which]));
    console.log(`\ntarget against baseline, ${threads[which]} (means; below 100%: the target runs fewer instructions):`);
    console.table(
      paths.map((p) => {
        const t = mean(gatewayRuns.target[p].map((f) => f[which]));
        const b = mean(gatewayRuns.baseline[p].map((f) => f[which]));
        return {
          path: p,
          target: count(t),
          baseline: count(b),
          "target / baseline": pct(t / b),
          "target / proxy": `${(t / proxyMean).toFixed(2)}×`,
          "baseline / proxy": `${(b / proxyMean).toFixed(2)}×`,
        };
      }),
    );
  }
}
console.log(`\ndone in ${elapsed()}`);
if (!process.env.BENCH_KEEP) rmSync(scratch, { recursive: true, force: true });
