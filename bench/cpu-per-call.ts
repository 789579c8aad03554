// `npm run bench:cpu`: where the CPU of one call goes, by process, on this machine (Linux /proc).
// The process under test (bench/gateway-target.ts: origin, plain proxy and gateway), PostgreSQL's
// processes and this process (the load generator) are read before and after each autocannon run;
// their CPU time over the requests served gives µs per call, and /proc/stat how busy the machine was
// in all. It tells which part limits a scenario: a process near one core of CPU per second of run
// is the limit; a machine well below 100% busy has room that a single process cannot use.
// Each round runs the plain proxy, the gateway's free endpoint, per_request (a fresh proof per
// request) and token_bucket (a session per connection), after one warm-up run of each
// (BENCH_ROUNDS rounds, default 2, of BENCH_SECONDS, default 5).
import { execSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { ProofSupply, runLoad, startTarget, type LoadResult } from "./harness.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ticksPerSecond = Number(execSync("getconf CLK_TCK").toString().trim());

/** CPU time (user + system) of a process in clock ticks; null once it is gone. */
function cpuTicks(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/**
 * The CPU ticks of every PostgreSQL process (the server and its backends, by command name). A
 * process that exits while it is read is left out rather than read as 0, which would subtract its
 * whole life from the run.
 */
function postgresTicksByPid(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
    } catch {
      continue;
    }
    const pid = Number(entry);
    const value = cpuTicks(pid);
    if (value !== null) ticks.set(pid, value);
  }
  return ticks;
}

type Reading = { machineTotal: number; machineIdle: number; target: number; postgres: Map<number, number>; self: number };

function read(targetPid: number): Reading {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  return {
    machineTotal: cpu.reduce((a, b) => a + b, 0),
    machineIdle: cpu[3] + cpu[4],
    target: cpuTicks(targetPid) ?? 0,
    postgres: postgresTicksByPid(),
    self: cpuTicks(process.pid) ?? 0,
  };
}

/**
 * PostgreSQL's ticks between two readings: backends that started in between count from zero; a
 * backend that ended in between (a pool closing an idle connection) takes its run's CPU with it,
 * so a scenario that lets connections idle out reads a little low.
 */
function postgresTicks(before: Reading, after: Reading): number {
  let sum = 0;
  for (const [pid, ticks] of after.postgres) sum += ticks - (before.postgres.get(pid) ?? 0);
  return sum;
}

const target = await startTarget({ proofs: (rounds + 1) * seconds * 8000, sessions: connections, sseOrigin: "http://127.0.0.1:9" });
const base = `http://127.0.0.1:${target.ready.gatewayPort}/gw/${target.ready.slug}`;
const proofs = new ProofSupply(target.proofs);
const scenarios = [
  { name: "plain Node proxy", url: `http://127.0.0.1:${target.ready.proxyPort}/v1/data` },
  { name: "gateway, free endpoint", url: `${base}/v1/free` },
  { name: "gateway, per_request", url: `${base}/v1/paid`, proofs },
  { name: "gateway, token_bucket", url: `${base}/v1/bucket`, credentials: { header: "x-session-token", values: target.sessions.bucket } },
];

const rows: Record<string, string | number>[] = [];
try {
  console.log(`CPU per call by process: ${rounds} rounds of ${seconds} s after a warm-up, ${connections} connections`);
  for (let round = 0; round <= rounds; round++) {
    for (const scenario of scenarios) {
      const before = read(target.pid);
      const result: LoadResult = await runLoad(scenario.name, scenario.url, {
        connections,
        duration: round === 0 ? 2 : seconds,
        credentials: scenario.proofs?.credentials() ?? scenario.credentials,
      });
      const after = read(target.pid);
      scenario.proofs?.consumed(result);
      if (round === 0) continue;
      const calls = result.requests;
      const us = (ticks: number) => Math.round(((ticks / ticksPerSecond) * 1e6) / calls);
      const targetUs = us(after.target - before.target);
      rows.push({
        round,
        scenario: scenario.name,
        "req/s": Math.round(result.rps),
        "µs/call: process under test": targetUs,
        "µs/call: PostgreSQL": us(postgresTicks(before, after)),
        "µs/call: load generator": us(after.self - before.self),
        "process under test, cores": ((targetUs * result.rps) / 1e6).toFixed(2),
        "machine busy": `${Math.round(100 * (1 - (after.machineIdle - before.machineIdle) / (after.machineTotal - before.machineTotal)))}%`,
        "non-2xx": result.non2xx,
      });
    }
  }
  console.table(rows);
} finally {
  await target.stop();
}
