// Child process of `BENCH_ONLY=streams npm run bench:market`: the market-intelligence origin as
// server.ts serves it (createMarketApp behind the shared origin listener and its gateway guard, which
// checks every stream request's signatures), on a market clock running BENCH_SPEED times real time
// with a BENCH_POLL_MS delivery loop, so a short run sees many liquidations. Its own process, as the
// origin is in service: the heap it reports is the origin's alone.
//
// It stamps the moment each event is produced (the source's one delivery loop hands a liquidation to
// its listeners; the alert bus publishes an alert): a listener registered before any subscriber runs
// first. IPC: {type:"listening", port} once it listens; on "measure" it collects garbage and answers
// its memory and how many listeners each producer has; on "produced" it answers the stamps by event id.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { originRequestListener } from "@/examples/shared/origin-server.ts";
import { createMarketApp } from "@/examples/market-intelligence/app.ts";
import { KEEPALIVE_SECONDS } from "@/examples/market-intelligence/endpoints/derivatives.ts";
import { openTestPgliteStore } from "@/examples/market-intelligence/history/scratch-store.ts";
import { acceleratedClock } from "@/examples/market-intelligence/model/index.ts";
import { SimulatedMarketSource } from "@/examples/market-intelligence/model/simulated/index.ts";
import { MAX_BODY_BYTES, PUBLIC_PATHS } from "@/examples/market-intelligence/origin.ts";

const speed = Number(process.env.BENCH_SPEED ?? 60);
const pollMs = Number(process.env.BENCH_POLL_MS ?? 20);
/** Market time: starts at the real now and runs `speed` times faster (as MARKET_CLOCK_SPEED does). */
const clock = acceleratedClock(speed);
const stamp = () => performance.timeOrigin + performance.now();

const source = new SimulatedMarketSource({ seed: 21, now: clock, autoPoll: true, pollMs, backfillDays: 10 });
// The streams read no history; an empty store leaves the history examples out of the document.
const history = await openTestPgliteStore();
const app = await createMarketApp({ source, history, background: true });
const produced = new Map<string, number>();
/** How long the producer's synchronous hand-out to every subscriber (frame and socket write) took, per round. */
const fanouts: number[] = [];
let round: number | null = null;
const produce = (id: string) => {
  const at = stamp();
  produced.set(id, at);
  // A microtask runs once the delivery loop (or the bus's publish) has handed this round to everyone.
  if (round === null) {
    round = at;
    queueMicrotask(() => {
      fanouts.push(stamp() - round!);
      round = null;
    });
  }
};
source.onLiquidation((event) => produce(event.id));
app.deps.alerts.subscribe((alert) => produce(alert.id));

// The market raises few alerts in a short run (a cascade, a whale transfer now and then), so the bench
// adds BENCH_ALERTS_PER_SECOND (default 4) of its own on the origin's bus, the path the producer and
// the verdict engine publish on: a wall alert for the market's largest confirmed wall, id `bench-…`.
const alertsPerSecond = Number(process.env.BENCH_ALERTS_PER_SECOND ?? 4);
let benchAlerts = 0;
if (alertsPerSecond > 0)
  setInterval(async () => {
    const [wall] = await source.orderBookWalls();
    if (!wall) return;
    const n = ++benchAlerts;
    app.deps.alerts.publish({
      id: `bench-${n}`,
      type: "wall_appeared",
      severity: "info",
      title: `(bench) ${wall.side} wall of $${Math.round(wall.valueUsd / 1e6)}M on ${wall.venue} at $${Math.round(wall.price)}`,
      time: new Date(source.now()).toISOString(),
      data: { venue: wall.venue, side: wall.side, price: wall.price, value_usd: Math.round(wall.valueUsd), bench: true },
    });
  }, 1_000 / alertsPerSecond).unref();

const server = http.createServer(
  originRequestListener({
    name: "market-intelligence",
    env: {
      port: 0,
      host: "127.0.0.1",
      dataDir: ".data",
      secrets: [{ gatewaySecret: process.env.ORIGIN_GATEWAY_SECRET, hmacSecret: process.env.ORIGIN_HMAC_SECRET! }],
    },
    maxBodyBytes: MAX_BODY_BYTES,
    publicPaths: PUBLIC_PATHS,
    handle: app.origin.handle,
    keepAliveMs: KEEPALIVE_SECONDS * 1_000,
    log: () => undefined,
  }),
);
server.maxConnections = 10_000;
server.listen(0, "127.0.0.1", () => process.send!({ type: "listening", port: (server.address() as AddressInfo).port, speed, pollMs, alertsPerSecond }));

process.on("message", (message: { type: string }) => {
  if (message.type === "measure") {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    const memory = process.memoryUsage();
    process.send!({
      type: "measure",
      heapUsed: memory.heapUsed,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      rss: memory.rss,
      // One producer each: the source's delivery loop and the alert bus (less the stamping listener).
      liquidationListeners: source.liquidationListeners,
      alertSubscribers: app.deps.alerts.subscriberCount,
    });
  } else if (message.type === "produced") {
    process.send!({ type: "produced", produced: Object.fromEntries(produced), fanouts });
  } else if (message.type === "stop") {
    server.closeAllConnections();
    server.close();
    void app
      .close()
      .then(() => history.close())
      .then(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
