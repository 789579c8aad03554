// `npm run bench:gateway`: one run on loopback and PostgreSQL, about 6 minutes.
// First 1,000 concurrent SSE streams (time_pass session token): event latency through the gateway
// vs straight from the origin (a process of its own, bench/sse-origin.ts; an origin inside the
// clients' process is printed for reference), in repeated phases, and the gateway process's memory
// per open stream. Then the origin called directly, and in interleaved rounds (BENCH_ROUNDS,
// default 3; BENCH_SECONDS per scenario):
//   a plain Node reverse proxy | our gateway, free endpoint |
//   our gateway, per_request endpoint with a fresh pre-paid proof on every request |
//   our gateway, token_bucket endpoint with session tokens (one session per connection, and one
//   session shared by every connection).
// Then p99 latency at half of the plain proxy's max rate, proxy vs gateway, also in rounds. Prints
// the median over the rounds of each ratio against the goals, with its spread.
// BENCH_ONLY=streams stops after the streams, BENCH_ONLY=calls skips them; BENCH_TARGET_NODE_ARGS
// passes Node.js flags to the process under test (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { createInterface } from "node:readline";
import { performance, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import { createParser } from "eventsource-parser";
import { Agent, request } from "undici";
import { median, ProofSupply, repoRoot, runLoad, startTarget as launchTarget, type LoadResult } from "./harness.ts";
import { createSseOrigin, monotonicMs } from "./sse-origin-server.ts";

/** Seconds per scenario per round, and rounds (the calls are interleaved, see below). */
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const streamCount = Number(process.env.BENCH_STREAMS ?? 1000);
const streamRounds = Number(process.env.BENCH_STREAM_ROUNDS ?? 5);
/** Repetitions of each stream phase (every path, both modes), for medians: BENCH_STREAM_REPEATS. */
const streamRepeats = Number(process.env.BENCH_STREAM_REPEATS ?? 3);
/** Extra Node.js flags for the process under test, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const targetNodeArgs = (process.env.BENCH_TARGET_NODE_ARGS ?? "").split(" ").filter(Boolean);

// This process is the measuring instrument of the stream test (SSE origin and 1,000 clients): a
// garbage collection here during a phase would be counted as latency of whichever path was being
// measured. Each phase starts after a full collection, and the collections that still fall inside
// a phase are reported with its figures.
v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;
const loadgenGcs: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) loadgenGcs.push({ start: entry.startTime, duration: entry.duration });
}).observe({ entryTypes: ["gc"] });

// Event latency is measured on the system's monotonic clock (bench/sse-origin-server.ts). Two SSE
// origins:
//   - bench/sse-origin.ts, a process of its own, as every real origin is: the baseline, and the
//     origin behind the gateway's streaming endpoint;
//   - one inside this process, next to the clients: a path with no process hop at all, which no
//     deployment has, printed for reference (earlier runs used it as the baseline).
const localOrigin = createSseOrigin();
await new Promise<void>((resolve) => localOrigin.server.listen(0, "127.0.0.1", resolve));
const ssePort = (localOrigin.server.address() as AddressInfo).port;

const originProcess = spawn(process.execPath, ["--import", "tsx", "bench/sse-origin.ts"], { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
const remoteSsePort = await new Promise<number>((resolve, reject) => {
  originProcess.once("exit", (code) => reject(new Error(`bench/sse-origin.ts exited with ${code}`)));
  createInterface({ input: originProcess.stdout! }).once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
});
const remoteSse = `http://127.0.0.1:${remoteSsePort}`;
// The origin process keeps this one alive no longer than its work; however this run ends (done,
// an early exit, a thrown error), the origin process ends with it.
originProcess.stdout!.destroy();
originProcess.unref();
process.on("exit", () => originProcess.kill("SIGTERM"));

/** The process under test, on a scratch database. */
const startTarget = (proofs: number) => launchTarget({ proofs, sessions: connections, sseOrigin: remoteSse, nodeArgs: targetNodeArgs });

type Result = LoadResult;

/** One autocannon run at this benchmark's connections and duration. */
const run = (
  name: string,
  url: string,
  options: { credentials?: { header: string; values: string[] }; rate?: number; duration?: number } = {},
): Promise<Result> => runLoad(name, url, { connections, duration: options.duration ?? seconds, credentials: options.credentials, rate: options.rate });

console.log(
  `gateway benchmark: ${seconds} s per run, ${connections} connections, PostgreSQL, store=${process.env.REDIS_URL ? "redis" : "memory"}, ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}\n`,
);
if (process.env.BENCH_ONLY !== "calls") {
  // ---------------------------------------------------------------- 1,000 SSE streams
  // First, on a target process of their own (no proofs minted, no earlier load), so its memory shows
  // what streams cost.
  const streamsTarget = await startTarget(0);

  const streamAgent = new Agent({ pipelining: 1, connections: null, keepAliveTimeout: 1_000 });
  type OpenStream = { abort: () => void; connected: Promise<void> };

  /** Opens one SSE stream; every event's latency (now minus the origin's stamp) goes to `onLatency`. */
  async function openStream(url: string, headers: Record<string, string>, onLatency: (ms: number) => void): Promise<OpenStream> {
    const controller = new AbortController();
    const res = await request(url, { headers, signal: controller.signal, dispatcher: streamAgent });
    if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}: ${await res.body.text()}`);
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    const parser = createParser({ onComment: () => connected(), onEvent: (event) => onLatency(monotonicMs() - (JSON.parse(event.data) as { t: number }).t) });
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      } catch {
        // aborted at the end of the run
      }
    })();
    return { abort: () => controller.abort(), connected: ready };
  }

  /** Opens `count` streams in batches (no SYN flood) and waits until each has its first frame. */
  async function openMany(url: string, headers: Record<string, string>, count: number, onLatency: (ms: number) => void): Promise<OpenStream[]> {
    const streams: OpenStream[] = [];
    for (let i = 0; i < count; i += 100) {
      streams.push(...(await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => openStream(url, headers, onLatency)))));
    }
    await Promise.all(streams.map((s) => s.connected));
    return streams;
  }

  /** The three paths an event can take; each has its own 1,000 streams, open side by side. */
  type StreamPath = "local" | "direct" | "gateway";
  type Phase = { p50: number; p99: number; received: number; loadgenGcs: number; loadgenGcMaxMs: number };

  /**
   * Sends `streamRounds` stamped events to every stream of one path and collects their latencies.
   * `burst`: each round writes to all streams at once (the last stream waits for the 999 before it,
   * on every path); `paced`: each round spreads the writes over one second, so an event's latency is
   * the path's own, not the queue behind a fan-out. Only that path's streams receive events.
   */
  async function measureLatency(latencies: number[], expectedPerRound: number, mode: "burst" | "paced", path: StreamPath): Promise<Phase> {
    latencies.length = 0;
    collectGarbage();
    const startedAt = performance.now();
    for (let round = 1; round <= streamRounds; round++) {
      if (path === "local") await localOrigin.round(mode);
      else await (await request(`${remoteSse}/round?mode=${mode}&group=${path}`, { method: "POST" })).body.dump();
      const deadline = Date.now() + 3_000;
      while (latencies.length < expectedPerRound * round && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 50));
    }
    const endedAt = performance.now();
    // The observer reports a collection on a later turn of the loop: give it one.
    await new Promise((r) => setImmediate(r));
    const during = loadgenGcs.filter((gc) => gc.start >= startedAt && gc.start <= endedAt);
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    return { p50: at(0.5), p99: at(0.99), received: sorted.length, loadgenGcs: during.length, loadgenGcMaxMs: Math.max(0, ...during.map((gc) => gc.duration)) };
  }

  type GatewayMemory = { rss: number; heapUsed: number; external: number; openStreams: number; gc: boolean };
  type GatewayLoop = { delayP50Ms: number; delayP99Ms: number; delayMaxMs: number; gcCount: number; gcTotalMs: number; gcMaxMs: number };

  /** GET on the stream target's control port: /memory (after a forced GC), /loop (stalls since the last /loop). */
  async function gatewayControl<T>(route: "/memory" | "/loop"): Promise<T> {
    const res = await request(`http://127.0.0.1:${streamsTarget.ready.controlPort}${route}`);
    return (await res.body.json()) as T;
  }
  const gatewayMemory = () => gatewayControl<GatewayMemory>("/memory");
  const gatewayLoop = () => gatewayControl<GatewayLoop>("/loop");

  /** Streams the origin in its own process still holds open. */
  async function remoteOpen(): Promise<number> {
    const res = await request(`${remoteSse}/open`);
    return ((await res.body.json()) as { open: number }).open;
  }

  async function closeAll(streams: OpenStream[]) {
    streams.forEach((s) => s.abort());
    const deadline = Date.now() + 10_000;
    while ((localOrigin.open() > 0 || (await remoteOpen()) > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  async function waitForStreamsClosed() {
    let memory = await gatewayMemory();
    for (let i = 0; i < 50 && memory.openStreams > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      memory = await gatewayMemory();
    }
    return memory;
  }

  console.log(
    `${streamCount} concurrent SSE streams per path (time_pass session token), ${streamRepeats} interleaved repetitions of ${streamRounds} events per stream per mode:`,
  );
  // Memory: the first 1,000 streams also grow pools and heap for good; the second 1,000, opened after
  // those closed, show the steady cost of an open stream.
  const streamUrl = `http://127.0.0.1:${streamsTarget.ready.gatewayPort}/gw/${streamsTarget.ready.streamSlug}/v1/stream?group=gateway`;
  const streamHeaders = { "x-session-token": streamsTarget.sessions.pass };
  const cold = await gatewayMemory();
  await closeAll(await openMany(streamUrl, streamHeaders, streamCount, () => {}));
  const warm = await waitForStreamsClosed();
  const latencies: Record<StreamPath, number[]> = { local: [], direct: [], gateway: [] };
  const open = {
    local: await openMany(`http://127.0.0.1:${ssePort}/v1/stream`, {}, streamCount, (ms) => latencies.local.push(ms)),
    direct: await openMany(`${remoteSse}/v1/stream?group=direct`, {}, streamCount, (ms) => latencies.direct.push(ms)),
    gateway: await openMany(streamUrl, streamHeaders, streamCount, (ms) => latencies.gateway.push(ms)),
  };
  const during = await gatewayMemory();

  // A VM stall of a few ms decides a phase's p99 (50 events of 5,000): one phase per path says more
  // about the host than about the path. So each mode runs `streamRepeats` times, every path once per
  // repetition in rotating order, and the added latency is the median over the repetitions of the
  // gateway's figure minus the direct path's of the same repetition.
  const modes = ["paced", "burst"] as const;
  const noPhases = (): Record<StreamPath, Phase[]> => ({ local: [], direct: [], gateway: [] });
  const phases: Record<(typeof modes)[number], Record<StreamPath, Phase[]>> = { paced: noPhases(), burst: noPhases() };
  const loops: Record<(typeof modes)[number], GatewayLoop[]> = { paced: [], burst: [] };
  const order: StreamPath[] = ["local", "direct", "gateway"];
  for (let repeat = 0; repeat < streamRepeats; repeat++) {
    for (const mode of modes) {
      for (let i = 0; i < order.length; i++) {
        const path = order[(i + repeat) % order.length];
        if (path === "gateway") await gatewayLoop();
        phases[mode][path].push(await measureLatency(latencies[path], streamCount, mode, path));
        if (path === "gateway") loops[mode].push(await gatewayLoop());
      }
    }
  }
  await closeAll([...open.local, ...open.direct, ...open.gateway]);
  const after = await waitForStreamsClosed();

  const ms = (n: number) => n.toFixed(2);
  const list = (values: number[]) => values.map(ms).join(" ");
  const pathNames: Record<StreamPath, string> = {
    local: "origin in the clients' process (no hop; reference)",
    direct: "origin direct (own process)",
    gateway: "gateway",
  };
  console.table(
    modes.flatMap((mode) =>
      order.map((path) => {
        const runs = phases[mode][path];
        return {
          path: `${pathNames[path]}, ${mode}`,
          "p50 ms (median)": ms(median(runs.map((r) => r.p50))),
          "p99 ms (median)": ms(median(runs.map((r) => r.p99))),
          "p99 ms per repetition": list(runs.map((r) => r.p99)),
          events: runs.map((r) => r.received).join(" "),
          "load generator GCs (longest ms)": runs.map((r) => `${r.loadgenGcs} (${ms(r.loadgenGcMaxMs)})`).join(" "),
        };
      }),
    ),
  );
  const kb = (bytes: number) => (bytes / 1024 / streamCount).toFixed(1);
  console.log(
    `gateway memory per open stream: ${kb(during.rss - cold.rss)} KB RSS on the fresh process (first ${streamCount} streams, pools and JIT included), ${kb(during.rss - warm.rss)} KB RSS and ${kb(during.heapUsed - warm.heapUsed)} KB heap once warm (goal ≤ 50 KB; GC forced: ${during.gc})\n`,
  );
  /** Per repetition, the gateway's figure minus the baseline's; median and the list. */
  const added = (mode: (typeof modes)[number], baseline: StreamPath, q: "p50" | "p99") => {
    const diffs = phases[mode].gateway.map((g, i) => g[q] - phases[mode][baseline][i][q]);
    return { median: median(diffs), list: list(diffs) };
  };
  for (const mode of modes) {
    const p50 = added(mode, "direct", "p50");
    const p99 = added(mode, "direct", "p99");
    const goal = mode === "paced" ? " (goal ≤ 2 ms)" : "";
    console.log(`event latency added by the gateway, ${mode}: p50 ${ms(p50.median)} ms, p99 ${ms(p99.median)} ms${goal}; per repetition p99 ${p99.list}`);
  }
  const reference = added("paced", "local", "p99");
  console.log(
    `  (paced, against the origin in the clients' own process, which has no hop at all: p99 ${ms(reference.median)} ms; per repetition ${reference.list})`,
  );
  for (const mode of modes)
    for (const loop of loops[mode])
      console.log(
        `gateway event loop, ${mode}: delay p50 ${loop.delayP50Ms} ms, p99 ${loop.delayP99Ms} ms, max ${loop.delayMaxMs} ms; ${loop.gcCount} GCs, ${loop.gcTotalMs} ms in all, longest ${loop.gcMaxMs} ms`,
      );
  console.log(`open streams in the gateway after the clients left: ${after.openStreams} (was ${during.openStreams})`);
  await streamAgent.close();
  await streamsTarget.stop();
}

// ---------------------------------------------------------------- calls
if (process.env.BENCH_ONLY === "streams") process.exit(0);
const target = await startTarget(Number(process.env.BENCH_PROOFS ?? 60_000));
const { ready, proofs, sessions } = target;
const origin = `http://127.0.0.1:${ready.originPort}/v1/data`;
const proxied = `http://127.0.0.1:${ready.proxyPort}/v1/data`;
const gwBase = `http://127.0.0.1:${ready.gatewayPort}/gw/${ready.slug}`;

await run("warm-up", `${gwBase}/v1/free`, { duration: 2 });
const originDirect = await run("origin direct", origin);

// Interleaved rounds: this VM's speed drifts by tens of percent within minutes (neighbours on the
// host), so one long run per scenario compares scenarios measured under different conditions.
// Each round runs the plain proxy and then every gateway scenario back to back; a scenario's ratio
// is taken against the proxy of its own round, and the median over the rounds is reported.
type Scenario = { name: string; url: string; credentials?: { header: string; values: string[] }; proofs?: ProofSupply; duration?: number };
const scenarios: Scenario[] = [
  { name: "plain Node proxy", url: proxied },
  { name: "gateway, free endpoint", url: `${gwBase}/v1/free` },
  { name: "gateway, per_request (fresh proof each)", url: `${gwBase}/v1/paid`, proofs: new ProofSupply(proofs) },
  { name: "gateway, token_bucket (session per connection)", url: `${gwBase}/v1/bucket`, credentials: { header: "x-session-token", values: sessions.bucket } },
  {
    name: "gateway, token_bucket (one shared session)",
    url: `${gwBase}/v1/bucket`,
    credentials: { header: "x-session-token", values: sessions.bucket.slice(0, 1) },
    duration: Math.min(seconds, 3),
  },
];
const byScenario = scenarios.map(() => [] as Result[]);
for (let round = 0; round < rounds; round++) {
  for (const [i, scenario] of scenarios.entries()) {
    const result = await run(scenario.name, scenario.url, { credentials: scenario.proofs?.credentials() ?? scenario.credentials, duration: scenario.duration });
    scenario.proofs?.consumed(result);
    byScenario[i].push(result);
  }
}

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
/** Per round: the scenario's throughput over the same round's plain proxy. */
const ratiosOf = (i: number) => byScenario[i].map((r, round) => r.rps / byScenario[0][round].rps);
const table = [
  {
    scenario: originDirect.name,
    "req/s (median)": Math.round(originDirect.rps),
    "p50 / p99 ms": `${originDirect.p50} / ${originDirect.p99}`,
    "vs proxy, per round": "",
    "vs proxy (median)": "",
    "errors/non-2xx": `${originDirect.errors}/${originDirect.non2xx}`,
  },
  ...scenarios.map((scenario, i) => {
    const runs = byScenario[i];
    return {
      scenario: scenario.name,
      "req/s (median)": Math.round(median(runs.map((r) => r.rps))),
      "p50 / p99 ms": `${median(runs.map((r) => r.p50))} / ${median(runs.map((r) => r.p99))}`,
      "vs proxy, per round": ratiosOf(i).map(pct).join(" "),
      "vs proxy (median)": pct(median(ratiosOf(i))),
      "errors/non-2xx": `${runs.reduce((a, r) => a + r.errors, 0)}/${runs.reduce((a, r) => a + r.non2xx, 0)}`,
    };
  }),
];
console.log(`${rounds} interleaved rounds of ${seconds} s per scenario (proxy first in each round):`);
console.table(table);

// p99 at half of the proxy's maximum rate, proxy and gateway back to back in each round.
const half = Math.max(50, Math.round(median(byScenario[0].map((r) => r.rps)) / 2));
console.log(`\nlatency at half of the plain proxy's max rate (${half} req/s), ${rounds} rounds:`);
const atHalf: { proxy: Result; gateway: Result }[] = [];
for (let round = 0; round < rounds; round++) {
  atHalf.push({
    proxy: await run("plain Node proxy @half", proxied, { rate: half }),
    gateway: await run("gateway free @half", `${gwBase}/v1/free`, { rate: half }),
  });
}
console.table(
  atHalf.map(({ proxy, gateway }, round) => ({
    round: round + 1,
    "proxy req/s": Math.round(proxy.rps),
    "proxy p50 / p99 ms": `${proxy.p50} / ${proxy.p99}`,
    "gateway req/s": Math.round(gateway.rps),
    "gateway p50 / p99 ms": `${gateway.p50} / ${gateway.p99}`,
    "p99 added ms": gateway.p99 - proxy.p99,
  })),
);
const added = atHalf.map(({ proxy, gateway }) => gateway.p99 - proxy.p99);
const spread = (values: number[], format: (x: number) => string) => `${format(Math.min(...values))} to ${format(Math.max(...values))}`;
console.log(
  `p99 added by the gateway at ${half} req/s: median ${median(added).toFixed(2)} ms over ${rounds} rounds (${spread(added, (x) => x.toFixed(0))} ms) (goal ≤ 5 ms)`,
);
const verdict = (name: string, i: number, goal: string | null) =>
  console.log(`${name}: median ${pct(median(ratiosOf(i)))} of the plain proxy (rounds ${spread(ratiosOf(i), pct)})${goal ? ` (goal ≥ ${goal})` : ""}`);
verdict("free endpoint throughput", 1, "80%");
verdict("per_request throughput", 2, "50%");
verdict("session-token throughput", 3, "60%");
verdict("one shared session", 4, null);

localOrigin.server.closeAllConnections();
localOrigin.server.close();
await target.stop();
