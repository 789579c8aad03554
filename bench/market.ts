// `npm run bench:market`: the market-intelligence API in the origin (routing, parameter validation,
// the handler, the meta block; no HTTP), against issue 21's goals: every JSON endpoint's p95 ≤ 20 ms,
// /v1/market/intelligence?detail=full ≤ 50 ms. The simulated source runs on the real clock over a
// year of recorded history (the history endpoints read it from in-memory PGlite, as the origin reads
// its embedded store). Each endpoint's documented example is asked BENCH_RUNS times (default 200),
// round-robin across endpoints so the source's minute caches age as in service.
// Then the streams (bench/market-streams.ts): 1,000 subscribers per stream through the origin's
// gateway guard, heap per subscriber and delivery latency. BENCH_ONLY=json or BENCH_ONLY=streams runs one half.
import { performance } from "node:perf_hooks";
import { createMarketApp } from "@/examples/market-intelligence/app.ts";
import { HistoryRecorder } from "@/examples/market-intelligence/history/recorder.ts";
import { openHistoryStore } from "@/examples/market-intelligence/history/store.ts";
import { SimulatedMarketSource } from "@/examples/market-intelligence/model/simulated/index.ts";

const runs = Number(process.env.BENCH_RUNS ?? 200);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  const started = performance.now();
  const source = new SimulatedMarketSource({ seed: 21, now: () => Date.now(), autoPoll: true, backfillDays: 365 });
  const history = await openHistoryStore({ pgliteDir: null });
  const backfill = performance.now();
  await new HistoryRecorder({ store: history, source }).tick();
  const backfillMs = performance.now() - backfill;
  const app = await createMarketApp({ source, history, background: true });
  console.log(`market ready in ${((performance.now() - started) / 1000).toFixed(1)} s (history backfill ${(backfillMs / 1000).toFixed(1)} s)`);

  const cases = app.endpoints
    .filter((endpoint) => endpoint.kind === "json")
    .map((endpoint) => {
      const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(endpoint.example[name] ?? ""));
      const query = new URLSearchParams(Object.entries(endpoint.example).filter(([name]) => !endpoint.path.includes(`{${name}}`)));
      return { name: `${endpoint.path}${query.size ? `?${query}` : ""}`, path, query, goal: 20, times: [] as number[] };
    });
  cases.push({
    name: "/v1/market/intelligence?detail=full",
    path: "/v1/market/intelligence",
    query: new URLSearchParams({ detail: "full" }),
    goal: 50,
    times: [],
  });

  for (const c of cases) {
    const answer = await app.origin.handle({ method: "GET", path: c.path, query: c.query, body: undefined, headers: {}, probe: false });
    if (!("body" in answer) || answer.status !== 200)
      throw new Error(`${c.name} answered ${answer.status}: ${JSON.stringify("body" in answer ? answer.body : null)}`);
  }
  for (let i = 0; i < runs; i++) {
    for (const c of cases) {
      const t = performance.now();
      await app.origin.handle({ method: "GET", path: c.path, query: c.query, body: undefined, headers: {}, probe: false });
      c.times.push(performance.now() - t);
    }
  }

  let missed = 0;
  console.log(`\n${"endpoint".padEnd(72)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} goal`);
  for (const c of cases) {
    const sorted = c.times.sort((a, b) => a - b);
    const p95 = percentile(sorted, 95);
    const met = p95 <= c.goal;
    if (!met) missed++;
    console.log(
      `${c.name.slice(0, 72).padEnd(72)} ${percentile(sorted, 50).toFixed(2).padStart(8)} ${p95.toFixed(2).padStart(8)} ≤ ${c.goal} ${met ? "met" : "MISSED"}`,
    );
  }
  console.log(
    `\n${cases.length - missed} of ${cases.length} within their goal; ${runs} runs each; load average ${(await import("node:os")).loadavg()[0].toFixed(1)}`,
  );
  await app.close();
  await history.close();
}

async function run() {
  const only = process.env.BENCH_ONLY;
  if (only !== "streams") await main();
  if (only !== "json") {
    const { benchStreams } = await import("./market-streams.ts");
    const { met, of } = await benchStreams();
    console.log(`\nstreams: ${met} of ${of} goals met`);
  }
}

run().catch((err) => {
  console.error(err);
  process.exit(1);
});
