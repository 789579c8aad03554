// The origin in front of the live source: a throttled upstream is a 503 that names it, with the
// upstream's Retry-After, never a 500; the other venues keep answering.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MarketEndpoint } from "../../endpoint.ts";
import type { CoreDeps } from "../../endpoints/common.ts";
import { marketEndpoints } from "../../endpoints/market.ts";
import { createMarketOrigin } from "../../origin.ts";
import { startLiveFakes, type LiveFakes } from "./fakes/index.ts";
import { createLiveMarketSource, type LiveMarketSource } from "./index.ts";

const NOW = Date.UTC(2026, 10, 26, 14, 0, 0);
let fakes: LiveFakes;
let source: LiveMarketSource;

beforeAll(async () => {
  fakes = await startLiveFakes({ now: () => NOW });
  source = createLiveMarketSource({ ...fakes.env, MARKET_LIVE_WALL_POLL_MS: "0" }, { now: () => NOW, reconnectBaseMs: 20 });
});
afterAll(async () => {
  await source.close();
  await fakes.close();
});

const get = (origin: ReturnType<typeof createMarketOrigin<CoreDeps>>, exchange: string) =>
  origin.handle({ method: "GET", path: "/v1/market/snapshot", query: new URLSearchParams({ exchange }), body: undefined, headers: {}, probe: false });

describe("the origin on the live source", () => {
  it("answers a throttled venue with a 503 naming it and its Retry-After", async () => {
    const origin = createMarketOrigin<CoreDeps>({
      // The snapshot reads only the source.
      deps: { source } as unknown as CoreDeps,
      endpoints: marketEndpoints as MarketEndpoint<CoreDeps>[],
      openapi: () => ({}),
    });
    fakes.kraken.failNext({ status: 200, body: { error: ["EAPI:Rate limit exceeded"], result: {} } }, 4);
    const throttled = await get(origin, "kraken");
    expect([throttled.status, "body" in throttled && throttled.body]).toEqual([
      503,
      { error: expect.objectContaining({ code: "upstream_unavailable", upstream: "kraken" }) },
    ]);
    expect("headers" in throttled && throttled.headers?.["Retry-After"]).toMatch(/^\d+$/);
    const other = await get(origin, "bitstamp");
    expect(other.status).toBe(200);
  });
});
