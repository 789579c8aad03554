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
import { median, ProofSupply, repoRoot, runLoad, startTarget, type Target } from "./harness.ts";

const scenario = process.env.AB_SCENARIO ?? "paid";
const seconds = Number(process.env.AB_SECONDS ?? 3);
const rounds = Number(process.env.AB_ROUNDS ?? 8);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
if (!["paid", "bucket", "free"].includes(scenario)) throw new Error(`AB_SCENARIO must be paid, bucket or free, not ${scenario}`);

const words = (text = "") => text.split(" ").filter(Boolean);
const envOf = (text?: string) => Object.fromEntries(words(text).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));

/** One side: its target, the scenario's URL, and its proofs or session tokens. */
type Side = { name: string; target: Target; url: string; proofs?: ProofSupply; sessions?: string[] };

async function startSide(name: "A" | "B"): Promise<Side> {
  const target = await startTarget({
    dir: process.env[`AB_${name}_DIR`] ?? repoRoot,
    env: { BENCH_HISTORY: process.env.BENCH_HISTORY ?? "50000", ...envOf(process.env[`AB_${name}_ENV`]) },
    nodeArgs: words(process.env[`AB_${name}_ARGS`]),
    // Enough for every round at a rate well above what this machine reaches; runLoad warns if not.
    proofs: scenario === "paid" ? (rounds + 2) * seconds * 7000 : 0,
    sessions: connections,
    sseOrigin: "http://127.0.0.1:9",
  });
  const base = `http://127.0.0.1:${target.ready.gatewayPort}/gw/${target.ready.slug}`;
  if (scenario === "paid") return { name, target, url: `${base}/v1/paid`, proofs: new ProofSupply(target.proofs) };
  if (scenario === "bucket") return { name, target, url: `${base}/v1/bucket`, sessions: target.sessions.bucket };
  return { name, target, url: `${base}/v1/free` };
}

async function run(side: Side) {
  const credentials = side.proofs?.credentials() ?? (side.sessions && { header: "x-session-token", values: side.sessions });
  const result = await runLoad(side.name, side.url, { connections, duration: seconds, credentials });
  side.proofs?.consumed(result);
  return result;
}

const a = await startSide("A");
const b = await startSide("B");
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
console.log(
  `B/A: median ${median(ratios).toFixed(3)} over ${rounds} rounds (${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}); B won ${ratios.filter((r) => r > 1).length} of ${rounds}`,
);
await Promise.all([a.target.stop(), b.target.stop()]);
