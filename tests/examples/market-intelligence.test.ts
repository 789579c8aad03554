// The market-intelligence example API end to end, as `npm start` runs it: the launcher starts the
// real origin process (the simulated market) with the tenant's secrets and seeds the `market` tenant
// from the origin's OpenAPI document; paid calls go through a real gateway, paid with the dev node.
// The answers are proved right in examples/market-intelligence; this file proves the wiring: every
// JSON endpoint paid at its price in its documented shape, a stream through a time_pass session up
// to the gateway's payment_required frame, a 400 naming a bad parameter, the 403 of an unsigned call.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { request } from "undici";
import { endpoints } from "@/examples/market-intelligence/endpoints/index.ts";
import { launchHostedExamples } from "@/lib/hosted-examples/launch-hosted-examples.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { call, payChallenge, testClock, useGatewayTest } from "@/tests/helpers/gateway.ts";

const clock = testClock();
const t = useGatewayTest({ resetEachTest: false, clock, gatewayOptions: { limits: { streamTickMs: 50 } } });
let launched: Awaited<ReturnType<typeof launchHostedExamples>>;
let base: string;

beforeAll(async () => {
  // The wiring needs no year of history: two weeks (the documented MARKET_HISTORY_DAYS, handed to the
  // origin like every MARKET_* variable) cover every history example and start the origin in seconds.
  vi.stubEnv("MARKET_HISTORY_DAYS", "14");
  // The liquidation stream test waits for the market's next liquidations (a few a market minute):
  // on a market clock at 20× real time (MARKET_CLOCK_SPEED) they come within seconds, not a minute.
  vi.stubEnv("MARKET_CLOCK_SPEED", "20");
  launched = await launchHostedExamples({
    prisma: t.ctx.db.prisma,
    store: t.ctx.store,
    config: { ...t.ctx.config, hostedExamples: ["market"] },
    devNode: t.devNode,
    log: createLogger("error"),
    root: process.cwd(),
  });
  expect(launched.running.map((r) => r.slug)).toEqual(["market"]);
  base = `${t.urls[0]}/gw/market`;
}, 180_000);

afterAll(async () => {
  await launched?.stop();
  vi.unstubAllEnvs();
});

function examplePath(path: string, example: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(example).filter(([name]) => !path.includes(`{${name}}`)));
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(example[name]));
  return query.size ? `${filled}?${query}` : filled;
}

async function paidGet(pathAndQuery: string) {
  const challenge = await call(`${base}${pathAndQuery}`);
  const { authorization } = await payChallenge(t.devNode, challenge);
  return { challenge, authorization, answer: await call(`${base}${pathAndQuery}`, { authorization }) };
}

/** A real SSE client through the gateway: events, whether it ended. */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await request(url, { headers, signal: controller.signal });
  const stream = { status: res.statusCode, headers: res.headers, events: [] as EventSourceMessage[], ended: false, abort: () => controller.abort() };
  const parser = createParser({ onEvent: (e) => stream.events.push(e) });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    } catch {
      // aborted by the test
    }
    stream.ended = true;
  })();
  return stream;
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the market tenant as npm start seeds it", () => {
  it("lists every endpoint of the origin's document at the spec's price and model; the streams are time_pass", async () => {
    const tenant = await t.ctx.db.prisma.tenant.findUniqueOrThrow({ where: { slug: "market" }, include: { endpoints: true } });
    expect(tenant.directoryListed).toBe(true);
    expect(tenant.description).toMatch(/SIMULATED/);
    const byPath = Object.fromEntries(tenant.endpoints.map((e) => [`${e.method} ${e.path}`, e]));
    for (const endpoint of endpoints) {
      expect(byPath[`GET ${endpoint.path}`], endpoint.path).toMatchObject({
        pricingModel: endpoint.model,
        priceSats: endpoint.price,
        streaming: endpoint.kind === "stream",
      });
    }
    expect(byPath["GET /v1/derivatives/liquidations/stream"]).toMatchObject({ pricingModel: "time_pass", priceSats: 100, durationMinutes: 60 });
    expect(byPath["GET /v1/alerts/stream"]).toMatchObject({ pricingModel: "time_pass", priceSats: 800, durationMinutes: 1440 });
  });
});

describe("paid calls through the gateway", () => {
  it("every JSON endpoint answers its example, paid at its price, in its documented shape from the simulated source", async () => {
    for (const endpoint of endpoints) {
      if (endpoint.kind !== "json") continue;
      const { challenge, answer } = await paidGet(examplePath(endpoint.path, endpoint.example));
      expect(challenge.status, endpoint.path).toBe(402);
      expect(challenge.json.amountSats, endpoint.path).toBe(endpoint.price);
      expect(answer.status, `${endpoint.path}: ${answer.text}`).toBe(200);
      expect(answer.headers["x-hub-payment"], endpoint.path).toBe("charged");
      const parsed = endpoint.response.safeParse(answer.json);
      expect(parsed.success, `${endpoint.path}: ${JSON.stringify(parsed.error?.issues.slice(0, 3))}`).toBe(true);
      expect(answer.json.meta.source, endpoint.path).toBe("simulated");
    }
  }, 120_000);

  it("a bad parameter is a 400 naming it; the origin refuses a call that is not the gateway's", async () => {
    const { answer } = await paidGet("/v1/derivatives/liquidations?window_hours=100");
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: "invalid_parameter", field: "window_hours" });
    const direct = await call(`${launched.running[0].originUrl}/v1/market/snapshot`);
    expect(direct.status).toBe(403);
    const openapi = await call(`${launched.running[0].originUrl}/v1/openapi.json`);
    expect(openapi.json).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
  });

  it("the alerts stream says hello naming the source after its 800-sat pass", async () => {
    const challenge = await call(`${base}/v1/alerts/stream`);
    expect(challenge.json.amountSats).toBe(800);
    const { authorization } = await payChallenge(t.devNode, challenge);
    const stream = await openStream(`${base}/v1/alerts/stream`, { authorization });
    expect(stream.status).toBe(200);
    await waitFor(() => stream.events.length >= 1, "the hello frame", 10_000);
    expect(stream.events[0].event).toBe("hello");
    expect(JSON.parse(stream.events[0].data)).toMatchObject({ stream: "simulated", endpoint: "/v1/alerts/stream" });
    stream.abort();
  });

  it("the liquidation stream through a time_pass: hello naming the source, liquidations, then payment_required when the pass ends", async () => {
    const challenge = await call(`${base}/v1/derivatives/liquidations/stream`);
    expect(challenge.json.amountSats).toBe(100);
    const { authorization } = await payChallenge(t.devNode, challenge);
    const stream = await openStream(`${base}/v1/derivatives/liquidations/stream`, { authorization });
    expect(stream.status).toBe(200);
    expect(stream.headers["x-session-token"]).toMatch(/^hst_/);
    await waitFor(() => stream.events.length >= 2, "a liquidation event");
    expect(stream.events[0].event).toBe("hello");
    expect(JSON.parse(stream.events[0].data)).toMatchObject({ stream: "simulated", events: ["liquidation"] });
    const liquidation = JSON.parse(stream.events[1].data);
    expect(stream.events[1].event).toBe("liquidation");
    expect(liquidation).toMatchObject({ symbol: "BTCUSDT", side: expect.stringMatching(/^(BUY|SELL)$/) });
    // The streamed liquidation is one the JSON endpoint lists.
    const listed = await paidGet("/v1/derivatives/liquidations?window_hours=0.5");
    expect(listed.answer.json.events.map((e: { id: string }) => e.id)).toContain(liquidation.id);
    try {
      clock.advance(61 * 60_000);
      await waitFor(() => stream.ended, "the pass to end the stream", 10_000);
      expect(stream.events.at(-1)).toMatchObject({ event: "payment_required" });
      expect(JSON.parse(stream.events.at(-1)!.data)).toEqual({ reason: "time_pass_expired" });
    } finally {
      clock.reset();
    }
  }, 120_000);
});
