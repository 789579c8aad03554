// Health probes against a real loopback origin that flips between healthy and failing, with a
// fake clock: samples, quality, endpoint.health_changed on transitions only, signed probe headers,
// bounded concurrency and no pile-up of a slow tenant.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadQuality } from "@/lib/directory/quality.ts";
import { HealthMonitor, probeRequest } from "@/lib/health/monitor.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { verifyGatewayRequest } from "@l402-hub/sdk/origin";
import { readOriginSecrets } from "@/lib/tenants/secrets.ts";
import { endpointHealthChangedDataSchema } from "@/lib/events/catalogue.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const ctx = useTestContext();
let dispatcher: Agent;

/** An origin whose answer the test flips; it records every request and how many ran at once. */
type FlipOrigin = {
  url: string;
  status: number;
  hang: boolean;
  requests: http.IncomingMessage[];
  maxConcurrent: number;
  release(): void;
  close(): Promise<void>;
};
async function startFlipOrigin(): Promise<FlipOrigin> {
  let active = 0;
  let waiting: (() => void)[] = [];
  const state: FlipOrigin = {
    url: "",
    status: 200,
    hang: false,
    requests: [],
    maxConcurrent: 0,
    release: () => {
      waiting.forEach((w) => w());
      waiting = [];
    },
    close: async () => {},
  };
  const server = http.createServer(async (req, res) => {
    state.requests.push(req);
    active++;
    state.maxConcurrent = Math.max(state.maxConcurrent, active);
    for await (const _ of req);
    if (state.hang) await new Promise<void>((resolve) => waiting.push(resolve));
    else await new Promise((r) => setTimeout(r, 5));
    active--;
    res.writeHead(state.status, { "content-type": "application/json" }).end(JSON.stringify({ status: state.status }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    state.release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

let origin: FlipOrigin;
beforeAll(async () => {
  dispatcher = new Agent({ connections: 64 });
});
afterAll(async () => {
  await dispatcher?.close();
});
beforeEach(async () => {
  origin = await startFlipOrigin();
  return () => origin.close();
});

let clock = new Date("2026-03-10T12:00:00Z");
const tick = () => (clock = new Date(clock.getTime() + 5 * 60_000));
const monitor = (options: Partial<ConstructorParameters<typeof HealthMonitor>[0]> = {}) =>
  new HealthMonitor({
    prisma: ctx().db.prisma,
    dispatcher,
    appSecret: ctx().config.appSecret,
    log: createLogger("silent"),
    now: () => clock,
    timeoutMs: 2_000,
    ...options,
  });

async function api(slug: string, endpoints: number) {
  const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret, { slug, originUrl: origin.url });
  await webhookSubscriptionFactory(ctx().db.prisma, ctx().config.appSecret, tenantId);
  for (let i = 0; i < endpoints; i++) {
    await endpointFactory(ctx().db.prisma, tenantId, {
      path: i === 0 ? "/v1/item/{id}" : `/v1/e${i}`,
      pricingModel: "per_request",
      priceSats: 5,
      exampleRequest: { query: { q: "x" }, path: { id: "42" } },
    });
  }
  return tenantId;
}

const events = () => ctx().db.prisma.outboxEvent.findMany({ where: { type: "endpoint.health_changed" }, orderBy: { createdAt: "asc" } });

describe("health monitor", () => {
  it("records samples and writes endpoint.health_changed only on transitions", async () => {
    const tenantId = await api("flip", 1);
    const m = monitor();

    expect(await m.runRound()).toMatchObject({ tenants: 1, probed: 1, unhealthy: 0, transitions: 0 });
    expect(await events()).toHaveLength(0);

    origin.status = 503;
    tick();
    expect(await m.runRound()).toMatchObject({ probed: 1, unhealthy: 1, transitions: 1 });
    tick();
    expect(await m.runRound()).toMatchObject({ unhealthy: 1, transitions: 0 });

    origin.status = 404; // a 4xx still proves the origin is up
    tick();
    expect(await m.runRound()).toMatchObject({ unhealthy: 0, transitions: 1 });

    const written = await events();
    expect(written.map((e) => endpointHealthChangedDataSchema.parse(e.data)).map((d) => [d.previousStatus, d.status, d.statusCode])).toEqual([
      ["healthy", "unhealthy", 503],
      ["unhealthy", "healthy", 404],
    ]);
    const down = endpointHealthChangedDataSchema.parse(written[0].data);
    expect(down).toMatchObject({ method: "GET", path: "/v1/item/{id}", error: "origin answered 503", checkedAt: "2026-03-10T12:05:00.000Z" });

    const samples = await ctx().db.prisma.healthSample.findMany({ where: { tenantId }, orderBy: { checkedAt: "asc" } });
    expect(samples.map((s) => s.ok)).toEqual([true, false, false, true]);
    expect(samples.map((s) => s.checkedAt.toISOString())).toEqual([
      "2026-03-10T12:00:00.000Z",
      "2026-03-10T12:05:00.000Z",
      "2026-03-10T12:10:00.000Z",
      "2026-03-10T12:15:00.000Z",
    ]);
    const quality = (await loadQuality({ prisma: ctx().db.prisma, tenantIds: [tenantId], now: clock })).get(tenantId)!;
    expect(quality).toMatchObject({ isHealthy: true, uptimePercentage: 50 });
    expect(quality.avgResponseTimeMs).not.toBeNull();
  });

  it("announces an endpoint that is unreachable from its first probe, with previousStatus null", async () => {
    const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret, { slug: "dead", originUrl: "http://127.0.0.1:9" });
    await webhookSubscriptionFactory(ctx().db.prisma, ctx().config.appSecret, tenantId);
    await endpointFactory(ctx().db.prisma, tenantId, { path: "/v1/x" });
    expect(await monitor().runRound()).toMatchObject({ probed: 1, unhealthy: 1, transitions: 1 });
    const [event] = await events();
    expect(endpointHealthChangedDataSchema.parse(event.data)).toMatchObject({ status: "unhealthy", previousStatus: null, statusCode: null, latencyMs: null });
    expect((await ctx().db.prisma.healthSample.findFirstOrThrow()).error).toMatch(/could not be reached/);
  });

  it("sends signed requests marked as probes, with the example's path values and query", async () => {
    const tenantId = await api("signed", 1);
    await monitor().runRound();
    const [req] = origin.requests;
    expect(req.url).toBe("/v1/item/42?q=x");
    expect(req.headers["x-hub-probe"]).toBe("1");
    const secrets = readOriginSecrets(ctx().config.appSecret, await ctx().db.prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } }));
    expect(await verifyGatewayRequest({ method: "GET", path: "/v1/item/42", headers: req.headers, rawBody: "", secrets: [secrets] })).toEqual({ ok: true });
  });

  it("probes only active endpoints of active tenants and never counts usage or issues invoices", async () => {
    const tenantId = await api("mixed", 2);
    await ctx().db.prisma.endpoint.updateMany({ where: { tenantId, path: "/v1/e1" }, data: { isActive: false } });
    const { tenantId: suspended } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret, { slug: "susp", originUrl: origin.url });
    await endpointFactory(ctx().db.prisma, suspended, { path: "/v1/x" });
    await ctx().db.prisma.tenant.update({ where: { id: suspended }, data: { status: "suspended" } });
    expect(await monitor().runRound()).toMatchObject({ tenants: 1, probed: 1 });
    expect(await ctx().db.prisma.usageCounter.count()).toBe(0);
    expect(await ctx().db.prisma.invoice.count()).toBe(0);
  });

  it("keeps at most `concurrency` probes in flight across tenants", async () => {
    for (let i = 0; i < 4; i++) await api(`c${i}`, 5);
    expect(await monitor({ concurrency: 3 }).runRound()).toMatchObject({ tenants: 4, probed: 20 });
    expect(origin.requests).toHaveLength(20);
    expect(origin.maxConcurrent).toBeLessThanOrEqual(3);
    expect(origin.maxConcurrent).toBeGreaterThan(1);
  });

  it("leaves a hanging tenant to finish in the background and skips it next round instead of piling up", async () => {
    await api("slow", 1);
    origin.hang = true;
    const m = monitor({ roundBudgetMs: 100, timeoutMs: 30_000 });
    expect(await m.runRound()).toMatchObject({ tenants: 1, skipped: 0 });
    expect(m.busyTenants).toBe(1);
    tick();
    expect(await m.runRound()).toMatchObject({ tenants: 1, skipped: 1, probed: 0 });
    expect(origin.requests).toHaveLength(1);
    origin.hang = false;
    origin.release();
    for (let i = 0; i < 100 && m.busyTenants > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(m.busyTenants).toBe(0);
    expect(await ctx().db.prisma.healthSample.count()).toBe(1);
  });
});

describe("probeRequest", () => {
  it("fills path parameters, adds the example query and sends a JSON body for POST", () => {
    expect(
      probeRequest({
        endpointId: "e",
        method: "POST",
        path: "/v1/{a}/{b}",
        exampleRequest: { path: { a: "x y" }, query: { n: 1, tag: ["p", "q"] }, body: { k: true } },
      }),
    ).toEqual({
      path: "/v1/x%20y/probe",
      search: "?n=1&tag=p&tag=q",
      body: Buffer.from('{"k":true}'),
      headers: { "content-type": "application/json" },
    });
    expect(probeRequest({ endpointId: "e", method: "GET", path: "/v1/x", exampleRequest: { body: { ignored: 1 } } })).toEqual({
      path: "/v1/x",
      search: "",
      body: null,
      headers: {},
    });
  });
});
