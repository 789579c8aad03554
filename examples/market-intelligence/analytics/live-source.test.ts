// The analytics on the live source, against every upstream's local fake: the technical and risk
// endpoints answer from real adapter output, and the verdict counts the figures no key-less upstream
// offers (CME basis, reserves, whales, valuation) as unavailable, lowering its completeness.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EndpointRequest } from "../endpoint.ts";
import { anomaliesEndpoint, manipulationEndpoint } from "../endpoints/risk.ts";
import { indicatorsEndpoint, trendEndpoint } from "../endpoints/technical.ts";
import { startLiveFakes, type LiveFakes } from "../model/live/fakes/index.ts";
import { createLiveMarketSource, type LiveMarketSource } from "../model/live/index.ts";
import type { AnomalyReport, ManipulationReport } from "./risk.ts";
import { VerdictEngine } from "./verdict/engine.ts";

const START = Date.UTC(2026, 10, 26, 13, 17, 25);
const request: EndpointRequest = { headers: {}, probe: false };
let fakes: LiveFakes;
let source: LiveMarketSource;

beforeAll(async () => {
  fakes = await startLiveFakes({ now: () => START });
  source = createLiveMarketSource({ ...fakes.env, MARKET_LIVE_WALL_POLL_MS: "0" }, { now: () => START, reconnectBaseMs: 20 });
  await fakes.futures.waitForConnections(1);
});
afterAll(async () => {
  await source.close();
  await fakes.close();
});

describe("analytics on the live source", () => {
  it("computes the technical readings from the venues' adapters", async () => {
    const indicators = await indicatorsEndpoint.handle({ source }, indicatorsEndpoint.params.parse({ exchange: "kraken" }), request);
    expect(indicators.status).toBe(200);
    expect(indicatorsEndpoint.response.safeParse(indicators.body).success).toBe(true);
    const body = indicators.body as { candles: number; indicators: { close: number; rsi14: number | null }; meta: { source: string } };
    expect(body.meta.source).toBe("live");
    expect(body.indicators.rsi14).not.toBeNull();
    expect(Math.abs(body.indicators.close - (await source.ticker("kraken")).price)).toBeLessThan(1);
    const trend = await trendEndpoint.handle({ source }, trendEndpoint.params.parse({}), request);
    expect(trend.status).toBe(200);
    expect(trendEndpoint.response.safeParse(trend.body).success).toBe(true);
  });

  it("reads every venue for the risk reports", async () => {
    const anomalies = (await anomaliesEndpoint.handle({ source }, anomaliesEndpoint.params.parse({ exchange: "okx" }), request)).body as AnomalyReport;
    expect(anomalies.venues.every((venue) => venue.available)).toBe(true);
    expect(anomalies.data_completeness).toBe(1);
    const manipulation = (await manipulationEndpoint.handle({ source }, manipulationEndpoint.params.parse({}), request)).body as ManipulationReport;
    expect(manipulation.data_completeness).toBe(1);
    expect(manipulation.risk_level).not.toBe("UNKNOWN");
  });

  it("counts the figures the live source does not offer as unavailable evidence, lowering completeness", async () => {
    const verdict = await new VerdictEngine({ source }).tick();
    const unavailable = verdict.evidence.filter((item) => !item.available).map((item) => item.id);
    expect(unavailable).toEqual(expect.arrayContaining(["basis", "exchange_netflows", "whales", "mvrv"]));
    expect(verdict.evidence.find((item) => item.id === "basis")!.summary).toMatch(/not offered by the live source/);
    expect(verdict.data_completeness).toBeCloseTo((verdict.evidence.length - unavailable.length) / verdict.evidence.length, 3);
    // Enough remains (spot, funding, liquidations, sentiment, manipulation) for a risk reading.
    expect(verdict.data_completeness).toBeGreaterThanOrEqual(0.5);
    expect(verdict.risk).not.toBe("UNKNOWN");
  });
});
