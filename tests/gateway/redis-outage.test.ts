// Issue 24 item 6: a gateway keeps serving paid calls and free endpoints while Redis is down, with
// rate limits held per process and the change of mode logged once each way, never per request; its
// health check stays 200 (the balancer keeps it) while reporting the store as unavailable. The
// Redis here is a private redis-server this file starts and kills, never the machine's.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Logger } from "@/lib/logging/logger.ts";
import { DegradingStore, RedisStore } from "@/lib/store/index.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { freePort } from "@/tests/helpers/free-port.ts";
import { call, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { statusRoute } from "@/tests/helpers/origin.ts";

const redisMissing = spawnSync("redis-server", ["--version"]).error !== undefined;
const runsHere = !redisMissing || Boolean(process.env.CI);

type Line = { level: string; message: string };
function capturingLogger(lines: Line[]): Logger {
  const logger: Logger = {
    debug: (message) => void lines.push({ level: "debug", message }),
    info: (message) => void lines.push({ level: "info", message }),
    warn: (message) => void lines.push({ level: "warn", message }),
    error: (message) => void lines.push({ level: "error", message }),
    child: () => logger,
  };
  return logger;
}

let port = 0;
let redis: ChildProcess | null = null;
const lines: Line[] = [];
let store: DegradingStore;

async function startRedis(): Promise<void> {
  redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  for (
    let i = 0;
    i < 100 &&
    spawnSync("redis-cli", ["-p", String(port), "ping"])
      .stdout?.toString()
      .trim() !== "PONG";
    i++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function killRedis(): Promise<void> {
  if (!redis) return;
  const exited = once(redis, "exit");
  redis.kill("SIGKILL");
  await exited;
  redis = null;
}

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not happen`);
}

beforeAll(async () => {
  if (!runsHere) return;
  port = await freePort();
  await startRedis();
  store = new DegradingStore(new RedisStore(`redis://127.0.0.1:${port}`, "outage:"), capturingLogger(lines));
  await until("the store connecting", () => store.ping());
});

afterAll(async () => {
  await store?.close();
  await killRedis();
});

const t = useGatewayTest({
  routes: (origin) => {
    origin.route("/v1/paid", statusRoute("/v1/paid"));
    origin.route("/v1/free", statusRoute("/v1/free"));
  },
  // Real rate limits (not the test default of none): they must keep working, per process.
  gatewayOptions: () => ({ store, rateLimits: {} }),
});

let base: string;
beforeEach(async () => {
  const tenant = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url });
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenant.tenantId, t.devNode.nodePubkey);
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 2 });
  await endpointFactory(t.ctx.db.prisma, tenant.tenantId, { path: "/v1/free" });
  base = `${t.urls[0]}/gw/${tenant.slug}`;
});

async function paidCall(): Promise<number> {
  const challenge = await call(`${base}/v1/paid`);
  expect(challenge.status).toBe(402);
  const { authorization } = await payChallenge(t.devNode, challenge);
  return (await call(`${base}/v1/paid`, { authorization })).status;
}

describe.runIf(runsHere)("a gateway while Redis is down", () => {
  it("serves paid and free calls, stays in the balancer, and logs the outage and the recovery once each", async () => {
    expect(await paidCall()).toBe(200);
    expect((await call(`${t.urls[0]}/healthz`)).json).toEqual({ status: "ok", database: "ok", store: "ok" });

    await killRedis();
    const during = [];
    for (let i = 0; i < 5; i++) during.push(await paidCall(), (await call(`${base}/v1/free`)).status);
    expect(during).toEqual(Array(10).fill(200));
    expect(store.degraded).toBe(true);
    // A health check a second later sees the store gone; the gateway stays in with 200.
    await until("the health check seeing the outage", async () => (await call(`${t.urls[0]}/healthz`)).json.store === "unavailable");
    const health = await call(`${t.urls[0]}/healthz`);
    expect([health.status, health.json]).toEqual([200, { status: "degraded", database: "ok", store: "unavailable" }]);
    expect(lines.filter((line) => line.message.startsWith("store unavailable"))).toHaveLength(1);

    await startRedis();
    await until("the store reconnecting", () => store.ping());
    for (let i = 0; i < 3; i++) expect(await paidCall()).toBe(200);
    expect(store.degraded).toBe(false);
    expect(lines.filter((line) => line.message.startsWith("store recovered"))).toHaveLength(1);
    expect(lines.filter((line) => line.message.startsWith("store unavailable"))).toHaveLength(1);
  }, 120_000);
});
