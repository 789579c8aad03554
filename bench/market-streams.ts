// The stream half of `npm run bench:market` (alone: BENCH_ONLY=streams), against issue 21 item 8:
// 1,000 concurrent subscribers cost ≤ 50 KB each in the origin, and events reach them within 50 ms
// p99 of their production. The origin runs in a child process (bench/market-streams-origin.ts) on a
// market clock BENCH_SPEED (default 60) times real time with a BENCH_POLL_MS (default 20) delivery
// loop, so a liquidation is produced at most 20 ms after its timestamp and a short run sees many.
// BENCH_SUBSCRIBERS (default 1,000) subscribers open each stream straight to the origin, each request
// signed as the gateway signs it (both signatures, its own nonce), the liquidation stream with
// min_size_usd=0 (every event to every subscriber); the alerts stream carries the market's own alerts
// and BENCH_ALERTS_PER_SECOND (default 4) wall alerts the origin child adds on its bus, since a short
// run raises few. Then for BENCH_STREAM_SECONDS (default 20):
// - heap per subscriber: the origin's heap (after GC) with everyone subscribed, less before, over the
//   number of subscribers; external memory (socket buffers) reported beside it;
// - delivery: for every event frame a subscriber receives, receipt time less the moment the origin's
//   producer emitted it (stamped in the origin; both processes read the same wall clock), p50/p99/max;
// - completeness: every subscriber got every event produced while it was subscribed;
// - one producer per process: the source's delivery loop and the alert bus each hold one listener
//   per subscriber (plus the origin's own), never a loop of their own per subscriber.
// BENCH_ORIGIN_CPUS / BENCH_CLIENT_CPUS (taskset lists, e.g. 1 and 0) pin the origin and this client
// to separate cores, so the client's reading of 2,000 sockets does not queue the origin's writes.
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { canonicalOriginPayload, canonicalOriginPayloadV2, signOriginPayload } from "@l402-hub/sdk/origin";

const subscribers = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000);
const seconds = Number(process.env.BENCH_STREAM_SECONDS ?? 20);
const HEAP_GOAL = 50 * 1024;
const LATENCY_GOAL = 50;
const STREAMS = [
  { name: "liquidations", path: "/v1/derivatives/liquidations/stream", query: "min_size_usd=0" },
  { name: "alerts", path: "/v1/alerts/stream", query: "" },
] as const;

const stamp = () => performance.timeOrigin + performance.now();
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Measure {
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  rss: number;
  liquidationListeners: number;
  alertSubscribers: number;
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (message: { type: string }) => {
      if (message.type !== type) return;
      child.off("message", on);
      resolve(message as T);
    };
    child.on("message", on);
    child.send({ type });
  });
}

/** One subscriber: a signed GET kept open; records (event id, receipt time) for each data frame. */
function subscribe(port: number, stream: (typeof STREAMS)[number], secrets: { gatewaySecret: string; hmacSecret: string }, received: Map<string, number[]>) {
  const parts = { method: "GET", path: stream.path, timestamp: String(Date.now()), nonce: randomUUID(), body: "" };
  const headers = {
    "x-gateway-secret": secrets.gatewaySecret,
    "x-gateway-timestamp": parts.timestamp,
    "x-gateway-nonce": parts.nonce,
    "x-gateway-signature": signOriginPayload(secrets.hmacSecret, canonicalOriginPayload(parts)),
    "x-gateway-signature-v2": signOriginPayload(secrets.hmacSecret, canonicalOriginPayloadV2({ ...parts, query: stream.query })),
  };
  return new Promise<{ hello: boolean; close: () => void }>((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: `${stream.path}${stream.query ? `?${stream.query}` : ""}`, headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${stream.path} answered ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      let hello = false;
      res.on("data", (chunk: string) => {
        const at = stamp();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith("event: hello")) {
            if (!hello) resolve({ hello: (hello = true), close: () => req.destroy() });
            continue;
          }
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          if (!id) continue;
          let times = received.get(id);
          if (!times) received.set(id, (times = []));
          times.push(at);
        }
      });
    });
    req.on("error", reject);
  });
}

export async function benchStreams(): Promise<{ met: number; of: number }> {
  const secrets = { gatewaySecret: randomBytes(24).toString("hex"), hmacSecret: randomBytes(32).toString("hex") };
  const child = fork(path.join(import.meta.dirname, "market-streams-origin.ts"), [], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    env: { ...process.env, ORIGIN_GATEWAY_SECRET: secrets.gatewaySecret, ORIGIN_HMAC_SECRET: secrets.hmacSecret },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  for (const [cpus, pid] of [
    [process.env.BENCH_ORIGIN_CPUS, child.pid],
    [process.env.BENCH_CLIENT_CPUS, process.pid],
  ] as const) {
    if (cpus && pid) execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
  }
  type Listening = { type: string; port: number; speed: number; pollMs: number; alertsPerSecond: number };
  const { port, speed, pollMs, alertsPerSecond } = await new Promise<Listening>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the stream origin exited (${code})`)));
    child.on("message", (m: Listening) => m.type === "listening" && resolve(m));
  });
  await new Promise((r) => setTimeout(r, 2_000));
  const before = await ask<Measure>(child, "measure");

  const received = STREAMS.map(() => new Map<string, number[]>());
  const opened: Array<{ close: () => void }> = [];
  for (const [i, stream] of STREAMS.entries()) {
    for (let n = 0; n < subscribers; n += 100) {
      const batch = await Promise.all(Array.from({ length: Math.min(100, subscribers - n) }, () => subscribe(port, stream, secrets, received[i])));
      opened.push(...batch);
    }
  }
  const subscribedAt = stamp();
  const after = await ask<Measure>(child, "measure");
  await new Promise((r) => setTimeout(r, seconds * 1_000));
  const during = await ask<Measure>(child, "measure");
  const { produced, fanouts } = await ask<{ produced: Record<string, number>; fanouts: number[] }>(child, "produced");
  const stoppedAt = stamp();
  for (const s of opened) s.close();
  child.send({ type: "stop" });

  const total = subscribers * STREAMS.length;
  const heapPer = (after.heapUsed - before.heapUsed) / total;
  const externalPer = (after.external - before.external) / total;
  const heapPerDuring = (during.heapUsed - before.heapUsed) / total;
  console.log(
    `\nstreams: ${subscribers} subscribers on each of ${STREAMS.length} streams (${total} open), market clock ×${speed}, delivery loop ${pollMs} ms, ${alertsPerSecond} bench alerts/s besides the market's own, ${seconds} s; load average ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(
    `one producer per process: the source's delivery loop has ${after.liquidationListeners} listeners (${subscribers} subscribers + the alert producer + the bench's stamp), the alert bus ${after.alertSubscribers} (${subscribers} + the stamp)`,
  );
  const heapMet = heapPer <= HEAP_GOAL;
  console.log(
    `origin heap per subscriber: ${(heapPer / 1024).toFixed(1)} KB after subscribing, ${(heapPerDuring / 1024).toFixed(1)} KB after ${seconds} s of events (goal ≤ 50 KB: ${(heapPer / HEAP_GOAL).toFixed(2)}× the goal, ${heapMet ? "met" : "MISSED"}); external (socket buffers) ${(externalPer / 1024).toFixed(1)} KB each; origin RSS ${(before.rss / 2 ** 20).toFixed(0)} → ${(during.rss / 2 ** 20).toFixed(0)} MiB`,
  );
  let met = heapMet ? 1 : 0;
  fanouts.sort((a, b) => a - b);
  console.log(
    `the origin's own hand-out of one delivery round (every event of the round to every subscriber: frame and socket write), ${fanouts.length} rounds: p50 ${percentile(fanouts, 50).toFixed(1)} ms, p99 ${percentile(fanouts, 99).toFixed(1)} ms`,
  );
  for (const [i, stream] of STREAMS.entries()) {
    const latencies: number[] = [];
    /** Per event: the first subscriber's latency, and how long the last one waited after the first. */
    const firsts: number[] = [];
    const spreads: number[] = [];
    let expected = 0;
    let delivered = 0;
    for (const [id, at] of Object.entries(produced)) {
      // Events produced while everyone was subscribed and that had time to arrive.
      if (at < subscribedAt || at > stoppedAt - 1_000) continue;
      const times = received[i].get(id);
      const isThisStream = stream.name === "liquidations" ? id.startsWith("liq-") : !id.startsWith("liq-");
      if (!isThisStream) continue;
      expected += subscribers;
      for (const t of times ?? []) latencies.push(t - at);
      delivered += times?.length ?? 0;
      if (times?.length) {
        firsts.push(Math.min(...times) - at);
        spreads.push(Math.max(...times) - Math.min(...times));
      }
    }
    latencies.sort((a, b) => a - b);
    firsts.sort((a, b) => a - b);
    spreads.sort((a, b) => a - b);
    const p99 = percentile(latencies, 99);
    const ok = latencies.length > 0 && p99 <= LATENCY_GOAL;
    if (ok) met++;
    console.log(
      `${stream.path}: ${expected / subscribers} events × ${subscribers} subscribers, ${delivered} of ${expected} delivered; production → receipt p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(1)} ms (goal p99 ≤ 50 ms: ${(p99 / LATENCY_GOAL).toFixed(2)}× the goal, ${latencies.length ? (ok ? "met" : "MISSED") : "NO EVENTS"})`,
    );
    console.log(
      `  first subscriber reached p50 ${percentile(firsts, 50).toFixed(1)} ms; first to last subscriber of one event p50 ${percentile(spreads, 50).toFixed(1)} ms, p99 ${percentile(spreads, 99).toFixed(1)} ms (the fan-out's sweep over ${subscribers} sockets and the client's reading of them)`,
    );
  }
  return { met, of: 1 + STREAMS.length };
}
