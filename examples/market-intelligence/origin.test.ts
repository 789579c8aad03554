// The origin over real HTTP, signed as the gateway signs: SSE frames (headers at once, the hello
// frame, keep-alive comments, data events, unsubscribe on close), the 403 of an unsigned call, and
// the OpenAPI document the hub imports (time_pass and x-streaming for the streams, every parameter
// with type, bounds, default and example).
import { randomUUID } from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalOriginPayloadV2, gatewayHeaders, signOriginPayload } from "@l402-hub/sdk/origin";
import { startOriginServer } from "../shared/origin-server.ts";
import { MAX_BODY_BYTES, OPENAPI_PATH, PUBLIC_PATHS } from "./origin.ts";
import { testMarketApp, type TestMarketApp } from "./test-app.ts";
import { endpointsFromOpenApi, openApiImportSchema } from "@/lib/endpoints/import-openapi.ts";

const HMAC = "hmac_test_secret_for_the_market_origin";
let t: TestMarketApp;
let server: http.Server;
let base: string;

beforeAll(async () => {
  t = await testMarketApp();
  server = await startOriginServer({
    name: "market-test",
    env: { port: 0, host: "127.0.0.1", dataDir: ".data", secrets: [{ hmacSecret: HMAC }] },
    maxBodyBytes: MAX_BODY_BYTES,
    publicPaths: PUBLIC_PATHS,
    handle: t.app.origin.handle,
    keepAliveMs: 100,
    log: () => undefined,
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await t?.app.close();
});

function signed(pathAndQuery: string): Record<string, string> {
  const url = new URL(pathAndQuery, "http://x");
  const timestamp = String(Date.now());
  const nonce = randomUUID();
  const payload = canonicalOriginPayloadV2({ method: "GET", path: url.pathname, query: url.search, timestamp, nonce, body: "" });
  return { [gatewayHeaders.signatureV2]: signOriginPayload(HMAC, payload), [gatewayHeaders.timestamp]: timestamp, [gatewayHeaders.nonce]: nonce };
}

async function waitFor(check: () => boolean, what: string) {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("over HTTP", () => {
  it("answers a signed call with JSON; an unsigned one is a 403", async () => {
    const ok = await fetch(`${base}/v1/market/snapshot?exchange=okx`, { headers: signed("/v1/market/snapshot?exchange=okx") });
    expect(ok.status).toBe(200);
    expect((await ok.json()).meta.source).toBe("simulated");
    expect((await fetch(`${base}/v1/market/snapshot?exchange=okx`)).status).toBe(403);
    const bad = await fetch(`${base}/v1/derivatives/liquidations?window_hours=100`, { headers: signed("/v1/derivatives/liquidations?window_hours=100") });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.field).toBe("window_hours");
  });

  it("streams SSE: headers at once, hello naming the source, keep-alive comments, events, and unsubscribes on close", async () => {
    const path = "/v1/derivatives/liquidations/stream";
    const listeners = () => (t.source as unknown as { listeners: Set<unknown> }).listeners.size;
    // The alert producer listens too.
    const before = listeners();
    const controller = new AbortController();
    const res = await fetch(`${base}${path}`, { headers: signed(path), signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events: EventSourceMessage[] = [];
    const comments: string[] = [];
    const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
    const reading = (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // aborted below
      }
    })();
    await waitFor(() => events.length >= 1, "the hello frame");
    expect(events[0].event).toBe("hello");
    expect(JSON.parse(events[0].data)).toMatchObject({ stream: "simulated", events: ["liquidation"] });
    await waitFor(() => comments.length >= 1, "a keep-alive comment");
    expect(comments[0].trim()).toBe("keep-alive");
    while (events.length < 2) {
      t.clock.now += 60_000;
      t.source.poll();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(events[1].event).toBe("liquidation");
    expect(JSON.parse(events[1].data).id).toBe(events[1].id);
    expect(listeners()).toBe(before + 1);
    controller.abort();
    await reading;
    await waitFor(() => listeners() === before, "the stream to unsubscribe");
  });
});

describe("the OpenAPI document", () => {
  it("is public, 3.1.0, and imports as the spec's endpoints: paths, prices, time_pass streams, parameters", async () => {
    const res = await fetch(`${base}${OPENAPI_PATH}`);
    expect(res.status).toBe(200);
    const document = await res.json();
    expect(document).toMatchObject({ openapi: "3.1.0", info: { version: "1.0.0" } });
    const converted = endpointsFromOpenApi(openApiImportSchema.parse(document));
    if (!converted.ok) throw new Error(JSON.stringify(converted.problems));
    const byPath = Object.fromEntries(converted.endpoints.map((e) => [e.path, e]));
    expect(byPath["/v1/derivatives/liquidations/stream"]).toMatchObject({
      method: "GET",
      pricingModel: "time_pass",
      priceSats: 100,
      durationMinutes: 60,
      streaming: true,
    });
    expect(byPath["/v1/alerts/stream"]).toMatchObject({ pricingModel: "time_pass", priceSats: 800, durationMinutes: 1440, streaming: true });
    expect(byPath["/v1/market/intelligence"]).toMatchObject({ pricingModel: "per_request", priceSats: 12, streaming: false });
    for (const endpoint of t.app.endpoints) expect(byPath[endpoint.path]?.priceSats, endpoint.path).toBe(endpoint.price);
    expect(byPath["/v1/onchain/entity/{address}/balance-history"].parameters).toEqual([
      expect.objectContaining({ name: "address", in: "path", required: true, type: "string" }),
      expect.objectContaining({ name: "days", in: "query", required: false, type: "integer" }),
    ]);
    const windowHours = document.paths["/v1/derivatives/liquidations"].get.parameters[0];
    expect(windowHours).toMatchObject({ name: "window_hours", in: "query", example: 4, schema: { type: "number", minimum: 0.1, maximum: 72, default: 4 } });
    expect(document.paths["/v1/alerts/stream"].get["x-sse-events"].verdict).toBeDefined();
    for (const endpoint of converted.endpoints.filter((e) => !e.streaming))
      expect(endpoint.exampleResponse, endpoint.path).toMatchObject({ meta: { source: "simulated" } });
  });
});

describe("docs/market-intelligence.md", () => {
  it("documents every endpoint with its price", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync("docs/market-intelligence.md", "utf8");
    for (const endpoint of t.app.endpoints) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${endpoint.path}\` |`));
      expect(row, endpoint.path).toBeDefined();
      expect(row!.split("|")[2].trim().startsWith(String(endpoint.price)), endpoint.path).toBe(true);
    }
  });
});
