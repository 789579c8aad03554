// `npm run bench:gateway`: one run, side by side, on loopback and PostgreSQL:
//   origin called directly | a plain Node reverse proxy | our gateway, free endpoint |
//   our gateway, per_request endpoint with a fresh pre-paid proof on every request.
// Then p99 latency at half of the plain proxy's max rate, proxy vs gateway. Prints ratios.
import { spawn } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const root = path.resolve(import.meta.dirname, "..");
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const proofsFile = path.join(mkdtempSync(path.join(os.tmpdir(), "hub-bench-")), "proofs.json");

const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), "bench/gateway-target.ts"], {
  cwd: root,
  env: { ...process.env, BENCH_PROOFS_FILE: proofsFile },
  stdio: ["ignore", "pipe", "inherit"],
});
const ready = await new Promise<{ originPort: number; proxyPort: number; gatewayPort: number; slug: string; store: string }>((resolve, reject) => {
  child.once("exit", (code) => reject(new Error(`target exited with ${code}`)));
  createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line)));
});
const proofs: string[] = JSON.parse(readFileSync(proofsFile, "utf8"));

type Result = { name: string; rps: number; p50: number; p99: number; errors: number; non2xx: number };

async function run(name: string, url: string, options: { proofs?: boolean; rate?: number; duration?: number } = {}): Promise<Result> {
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    duration: options.duration ?? seconds,
    overallRate: options.rate,
    requests: options.proofs
      ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, authorization: proofs[next++ % proofs.length] } }) }]
      : undefined,
  });
  if (options.proofs && next > proofs.length) console.warn(`  note: ${next} requests used ${proofs.length} proofs (some were reused and refused)`);
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

const origin = `http://127.0.0.1:${ready.originPort}/v1/data`;
const proxied = `http://127.0.0.1:${ready.proxyPort}/v1/data`;
const gwBase = `http://127.0.0.1:${ready.gatewayPort}/gw/${ready.slug}`;

console.log(`gateway benchmark: ${seconds} s per run, ${connections} connections, PostgreSQL, store=${ready.store}, ${os.cpus().length} cores\n`);
await run("warm-up", `${gwBase}/v1/free`, { duration: 2 });
const results: Result[] = [];
results.push(await run("origin direct", origin));
results.push(await run("plain Node proxy", proxied));
results.push(await run("gateway, free endpoint", `${gwBase}/v1/free`));
results.push(await run("gateway, per_request (fresh proof each)", `${gwBase}/v1/paid`, { proofs: true, duration: Math.min(seconds, 6) }));

const proxy = results[1];
const table = results.map((r) => ({
  scenario: r.name,
  "req/s": Math.round(r.rps),
  "p50 ms": r.p50,
  "p99 ms": r.p99,
  "vs proxy": `${((r.rps / proxy.rps) * 100).toFixed(0)}%`,
  "errors/non-2xx": `${r.errors}/${r.non2xx}`,
}));
console.table(table);

const half = Math.max(50, Math.round(proxy.rps / 2));
console.log(`\nlatency at half of the plain proxy's max rate (${half} req/s):`);
const atHalf = [await run("plain Node proxy @half", proxied, { rate: half }), await run("gateway free @half", `${gwBase}/v1/free`, { rate: half })];
console.table(atHalf.map((r) => ({ scenario: r.name, "req/s": Math.round(r.rps), "p50 ms": r.p50, "p99 ms": r.p99 })));
console.log(`p99 added by the gateway at ${half} req/s: ${(atHalf[1].p99 - atHalf[0].p99).toFixed(2)} ms (goal ≤ 5 ms)`);
console.log(`free endpoint throughput: ${((results[2].rps / proxy.rps) * 100).toFixed(0)}% of the plain proxy (goal ≥ 80%)`);
console.log(`per_request throughput: ${((results[3].rps / proxy.rps) * 100).toFixed(0)}% of the plain proxy (goal ≥ 50%)`);

child.kill("SIGTERM");
await new Promise((r) => child.once("exit", r));
