// The risk endpoints on a fixed market: a calm market shows no anomaly and LOW manipulation risk; a
// venue off the pack, a volume spike and quickly pulled walls are found and scored; missing inputs
// lower data_completeness until the risk is UNKNOWN (never LOW).
import { describe, expect, it } from "vitest";
import type { EndpointRequest } from "../endpoint.ts";
import { anomaliesEndpoint, manipulationEndpoint, riskEndpoints } from "../endpoints/risk.ts";
import type { OrderBookWall, Venue } from "../model/types.ts";
import type { AnomalyReport, ManipulationReport } from "./risk.ts";
import { steadyMarket, TestMarketSource } from "./test-source.ts";

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const request: EndpointRequest = { headers: {}, probe: false };

async function anomalies(source: TestMarketSource, exchange = "binance") {
  const answer = await anomaliesEndpoint.handle({ source }, anomaliesEndpoint.params.parse({ exchange }), request);
  expect(anomaliesEndpoint.response.safeParse(answer.body).success).toBe(true);
  return answer.body as AnomalyReport;
}

async function manipulation(source: TestMarketSource, exchange = "binance") {
  const answer = await manipulationEndpoint.handle({ source }, manipulationEndpoint.params.parse({ exchange }), request);
  expect(manipulationEndpoint.response.safeParse(answer.body).success).toBe(true);
  return answer.body as ManipulationReport;
}

/** Moves one venue's newest hourly candle (and so its ticker) by `bps` and multiplies its volume. */
function shiftLastCandle(source: TestMarketSource, data: ReturnType<typeof steadyMarket>, venue: Venue, bps: number, volumeFactor = 1) {
  const series = data.candles![venue]!["1h"]!;
  const last = series.at(-1)!;
  const close = last.close * (1 + bps / 10_000);
  const moved = { ...last, close, high: Math.max(last.high, close), low: Math.min(last.low, close), volume: last.volume * volumeFactor };
  source.update({ candles: { ...data.candles, [venue]: { ...data.candles![venue], "1h": [...series.slice(0, -1), moved] } } });
}

function wall(id: string, venue: Venue, firstSeen: number, endedAt: number | undefined, valueUsd: number): OrderBookWall {
  return {
    id,
    venue,
    side: "bid",
    price: 84_000,
    size: valueUsd / 84_000,
    valueUsd,
    firstSeen,
    lastSeen: endedAt ?? NOW,
    confirmed: true,
    ...(endedAt ? { endedAt, endReason: "pulled" as const } : {}),
  };
}

describe("/v1/risk/*", () => {
  it("describes both endpoints at their spec paths and prices, with exchange as the only parameter", () => {
    expect(riskEndpoints.map((e) => [e.path, e.price])).toEqual([
      ["/v1/risk/anomalies", 3],
      ["/v1/risk/manipulation", 3],
    ]);
    for (const endpoint of riskEndpoints) {
      expect(endpoint.params.safeParse({ exchange: "ftx" }).success).toBe(false);
      expect(endpoint.params.safeParse({ window: "1" }).success).toBe(false);
    }
  });

  it("finds nothing unusual in a calm market, with every input read", async () => {
    const source = new TestMarketSource(steadyMarket(NOW));
    const report = await anomalies(source);
    expect(report.anomalies).toEqual([]);
    expect(report.data_completeness).toBe(1);
    expect(report.venues).toHaveLength(5);
    expect(report.focus.venue).toBe("binance");
    const risk = await manipulation(source);
    expect(risk.risk_level).toBe("LOW");
    expect(risk.data_completeness).toBe(1);
    expect(risk.signals.map((s) => s.name)).toEqual(["spoofing", "wash_volume", "cross_venue_divergence"]);
  });

  it("flags a venue trading 60 bps above the others on ten times its volume, strongest first", async () => {
    const data = steadyMarket(NOW);
    const source = new TestMarketSource(data);
    shiftLastCandle(source, data, "okx", 60, 10);
    const report = await anomalies(source, "okx");
    expect(report.focus.deviation_bps).toBeGreaterThan(55);
    const kinds = report.anomalies.filter((a) => a.venue === "okx").map((a) => [a.kind, a.severity]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ["price", "high"],
        ["volume", "high"],
        ["return", "high"],
      ]),
    );
    expect(report.anomalies.every((a, i) => i === 0 || Math.abs(report.anomalies[i - 1].z_score) >= Math.abs(a.z_score))).toBe(true);
    const risk = await manipulation(source, "okx");
    expect(risk.signals.find((s) => s.name === "cross_venue_divergence")!.score).toBe(1);
    expect(risk.risk_level).toBe("HIGH");
    // The other venues stay calm in their own report.
    expect((await manipulation(source, "kraken")).risk_level).toBe("LOW");
  });

  it("scores walls pulled within minutes of appearing as spoofing-like", async () => {
    const source = new TestMarketSource({
      ...steadyMarket(NOW),
      walls: [
        wall("a", "binance", NOW - 10 * 60_000, NOW - 8 * 60_000, 6_000_000), // pulled after 2 minutes
        wall("b", "binance", NOW - 20 * 60_000, NOW - 17 * 60_000, 4_000_000), // pulled after 3 minutes
        wall("c", "binance", NOW - 40 * 60_000, undefined, 5_000_000), // still resting
        wall("d", "coinbase", NOW - 10 * 60_000, NOW - 9 * 60_000, 9_000_000), // another venue's
      ],
    });
    const risk = await manipulation(source);
    const spoofing = risk.signals.find((s) => s.name === "spoofing")!;
    expect(spoofing.score).toBeCloseTo(10 / 15, 3);
    expect(spoofing.details).toMatchObject({ walls_last_hour: 3, pulled_quickly: 2 });
    expect(risk.risk_level).toBe("ELEVATED");
  });

  it("reads wash-like volume when a venue's volume share far exceeds its share of depth", async () => {
    const data = steadyMarket(NOW);
    // Kraken's book is a tenth as deep as the others': its fifth of the volume rests on a fortieth of the depth.
    const thin = {
      ...data.books!.kraken!,
      bids: data.books!.kraken!.bids.map((l) => ({ ...l, size: 0.2 })),
      asks: data.books!.kraken!.asks.map((l) => ({ ...l, size: 0.2 })),
    };
    const source = new TestMarketSource({ ...data, books: { ...data.books, kraken: thin } });
    const risk = await manipulation(source, "kraken");
    const wash = risk.signals.find((s) => s.name === "wash_volume")!;
    expect(wash.details.volume_to_depth_ratio).toBeGreaterThan(3);
    expect(wash.score).toBe(1);
    expect(risk.risk_level).toBe("HIGH");
  });

  it("lowers data_completeness for each input it cannot read, and answers UNKNOWN, never LOW, when too few remain", async () => {
    const source = new TestMarketSource(steadyMarket(NOW));
    source.remove("walls");
    const partial = await manipulation(source);
    expect(partial.data_completeness).toBeCloseTo(5 / 6, 3);
    expect(partial.inputs.find((i) => i.name === "order_book_walls")).toMatchObject({ available: false, reason: expect.stringMatching(/walls/) });
    expect(partial.risk_level).toBe("LOW");

    source.remove("books");
    const thin = await manipulation(source);
    expect(thin.data_completeness).toBeLessThan(0.6);
    expect(thin.risk_level).toBe("UNKNOWN");
    expect(thin.signals.find((s) => s.name === "wash_volume")!.score).toBeNull();

    source.remove("candles");
    const none = await anomalies(source);
    expect(none.data_completeness).toBe(0);
    expect(none.venues.every((v) => !v.available && v.price === null)).toBe(true);
    expect((await manipulation(source)).risk_level).toBe("UNKNOWN");
  });
});
