// `npm run bench:gateway-ab`: is change B faster than A? Two gateway targets (bench/gateway-target.ts)
// run side by side, each on its own scratch database: A from AB_A_DIR, B from AB_B_DIR (default both
// this checkout), with extra environment AB_A_ENV / AB_B_ENV ("KEY=value KEY2=value") and Node.js
// flags AB_A_ARGS / AB_B_ARGS. After two warm-up rounds each, one scenario (AB_SCENARIO: paid, bucket
// or free) runs in AB_ROUNDS interleaved rounds of AB_SECONDS, the order swapped every round; the
// verdict is the median of the per-round ratios B/A with its spread. On a VM whose speed drifts by
// tens of percent within minutes, only such paired rounds tell a 5% change from the weather.
//
// Comparing a commit with the working tree:
//   git worktree add /tmp/base HEAD && ln -s "$PWD/node_modules" /tmp/base/node_modules \
//     && cp -r lib/db/generated /tmp/base/lib/db/
//   AB_A_DIR=/tmp/base npm run bench:gateway-ab
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";

const root = path.resolve(import.meta.dirname, "..");
const scenario = process.env.AB_SCENARIO ?? "paid";
const seconds = Number(process.env.AB_SECONDS ?? 3);
const rounds = Number(process.env.AB_ROUNDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
if (!["paid", "bucket", "free"].includes(scenario)) throw new Error(`AB_SCENARIO must be paid, bucket or free, not ${scenario}`);

const words = (text = "") => text.split(" ").filter(Boolean);
const envOf = (text?: string) => Object.fromEntries(words(text).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));

type Target = { name: string; child: ChildProcess; url: string; header: string | null; values: string[]; next: number };

async function startTarget(name: string, dir: string, env: Record<string, string>, nodeArgs: string[]): Promise<Target> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "hub-ab-"));
  const files = { proofs: path.join(scratch, "proofs.json"), sessions: path.join(scratch, "sessions.json") };
  const child = spawn(process.execPath, ["--expose-gc", ...nodeArgs, "--import", "tsx", "bench/gateway-target.ts"], {
    cwd: dir,
    env: {
      ...process.env,
      ...env,
      BENCH_HISTORY: process.env.BENCH_HISTORY ?? "50000",
      // Enough for every round at a rate well above what this machine reaches; the target warns if not.
      BENCH_PROOFS: scenario === "paid" ? String((rounds + 2) * seconds * 7000) : "0",
      BENCH_PROOFS_FILE: files.proofs,
      BENCH_SESSIONS_FILE: files.sessions,
      BENCH_SSE_ORIGIN: "http://127.0.0.1:9",
      BENCH_SESSIONS: String(connections),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<{ gatewayPort: number; slug: string }>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`target ${name} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", (line) => resolve(JSON.parse(line)));
  });
  child.removeAllListeners("exit");
  const base = `http://127.0.0.1:${ready.gatewayPort}/gw/${ready.slug}`;
  if (scenario === "paid") return { name, child, url: `${base}/v1/paid`, header: "authorization", values: JSON.parse(readFileSync(files.proofs, "utf8")), next: 0 };
  if (scenario === "bucket") return { name, child, url: `${base}/v1/bucket`, header: "x-session-token", values: JSON.parse(readFileSync(files.sessions, "utf8")).bucket, next: 0 };
  return { name, child, url: `${base}/v1/free`, header: null, values: [], next: 0 };
}

async function run(target: Target, duration = seconds) {
  const { header, values } = target;
  const result = await autocannon({
    url: target.url,
    connections,
    duration,
    requests: header ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, [header]: values[target.next++ % values.length] } }) }] : undefined,
  });
  if (header === "authorization" && target.next > values.length) console.warn(`  note: ${target.name} reused proofs (some were refused)`);
  return { rps: result.requests.total / result.duration, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

const a = await startTarget("A", process.env.AB_A_DIR ?? root, envOf(process.env.AB_A_ENV), words(process.env.AB_A_ARGS));
const b = await startTarget("B", process.env.AB_B_DIR ?? root, envOf(process.env.AB_B_ENV), words(process.env.AB_B_ARGS));
console.log(`gateway A/B, ${scenario}: ${rounds} interleaved rounds of ${seconds} s, ${connections} connections`);
for (let i = 0; i < 2; i++) {
  await run(a);
  await run(b);
}
const ratios: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const [first, second] = round % 2 ? [a, b] : [b, a];
  const one = await run(first);
  const two = await run(second);
  const [ra, rb] = round % 2 ? [one, two] : [two, one];
  ratios.push(rb.rps / ra.rps);
  const show = (r: typeof ra) => `${Math.round(r.rps)} req/s (p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors})`;
  console.log(`round ${round}: A ${show(ra)}, B ${show(rb)}, B/A ${(rb.rps / ra.rps).toFixed(3)}`);
}
const sorted = [...ratios].sort((x, y) => x - y);
const mid = Math.floor(sorted.length / 2);
const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
console.log(`B/A: median ${median.toFixed(3)} over ${rounds} rounds (${sorted[0].toFixed(3)} to ${sorted.at(-1)!.toFixed(3)}); B won ${ratios.filter((r) => r > 1).length} of ${rounds}`);
for (const target of [a, b]) {
  target.child.kill("SIGTERM");
  await new Promise((resolve) => target.child.once("exit", resolve));
}
