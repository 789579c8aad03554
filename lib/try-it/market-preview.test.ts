// The API page's previews: which endpoints feed them (by shape, not by slug), candles and the live
// price as the chart draws them, its text alternative, and the verdict card's fields.
import { describe, expect, it } from "vitest";
import {
  barSeconds,
  describeChart,
  describeTransition,
  findPreviewPaths,
  formingCandle,
  parseCandles,
  parseLivePrice,
  parseVerdict,
} from "./market-preview.ts";

const q = (...names: string[]) => names.map((name) => ({ name, in: "query" }));
const H = 3600;
const t0 = Date.UTC(2026, 10, 26, 0) / 1000;
const bars = [0, 1, 2].map((i) => ({ time: t0 + i * H, open: 100 + i, high: 103 + i, low: 99 + i, close: 101 + i }));

describe("findPreviewPaths", () => {
  it("finds the candles, snapshot and verdict endpoints by method, path and documented parameters", () => {
    const paths = findPreviewPaths([
      { method: "GET", path: "/v1/market/snapshot", parameters: q("exchange") },
      { method: "POST", path: "/v1/x/candles", parameters: q("timeframe", "limit") },
      { method: "GET", path: "/v1/history/candles", parameters: q("timeframe", "start", "limit") },
      { method: "GET", path: "/v1/verdict", parameters: q("view") },
    ]);
    expect(paths).toEqual({ candles: "/v1/history/candles", snapshot: "/v1/market/snapshot", verdict: "/v1/verdict" });
  });

  it("finds nothing in an API without them (a snapshot alone draws no chart)", () => {
    expect(
      findPreviewPaths([
        { method: "GET", path: "/v1/market/snapshot", parameters: [] },
        { method: "GET", path: "/v1/{id}/candles", parameters: q("timeframe", "limit") },
        { method: "GET", path: "/v1/candles", parameters: q("timeframe") },
        { method: "GET", path: "/v1/verdict", parameters: [{ name: "view", in: "header" }] },
      ]),
    ).toEqual({ candles: null, snapshot: null, verdict: null });
  });
});

describe("parseCandles", () => {
  it("orders newest-first candles oldest first, in UTC seconds, one per time, dropping broken bars", () => {
    const body = {
      candles: [
        { time: "2026-11-26T02:00:00.000Z", open: 102, high: 105, low: 101, close: 103 },
        { time: "2026-11-26T01:00:00.000Z", open: 101, high: 104, low: 100, close: 102 },
        { time: "2026-11-26T01:00:00.000Z", open: 101, high: 104, low: 100, close: 102.5 },
        { time: "2026-11-26T00:00:00.000Z", open: 100, high: 99, low: 98, close: 100 },
        { time: "not a time", open: 1, high: 1, low: 1, close: 1 },
        { time: "2026-11-25T23:00:00.000Z", open: 100, high: 101, low: 99 },
      ],
    };
    expect(parseCandles(body)).toEqual([
      { time: t0 + H, open: 101, high: 104, low: 100, close: 102.5 },
      { time: t0 + 2 * H, open: 102, high: 105, low: 101, close: 103 },
    ]);
    expect(parseCandles({ error: "x" })).toEqual([]);
    expect(parseCandles(null)).toEqual([]);
  });
});

describe("the forming bar", () => {
  it("opens at the last close and spans every live price of the next interval", () => {
    expect(barSeconds(bars)).toBe(H);
    const first = formingCandle(bars, { price: 110, time: t0 + 3 * H + 60 });
    expect(first).toEqual({ time: t0 + 3 * H, open: 103, high: 110, low: 103, close: 110 });
    const second = formingCandle(bars, { price: 95, time: t0 + 3 * H + 120 }, first);
    expect(second).toEqual({ time: t0 + 3 * H, open: 103, high: 110, low: 95, close: 95 });
  });

  it("is absent without a live price, under two candles, or when the price is outside the next interval", () => {
    expect(formingCandle(bars, null)).toBeNull();
    expect(formingCandle(bars.slice(0, 1), { price: 1, time: t0 + H })).toBeNull();
    expect(formingCandle(bars, { price: 1, time: t0 + 2 * H + 10 })).toBeNull();
    expect(formingCandle(bars, { price: 1, time: t0 + 4 * H })).toBeNull();
  });

  it("reads the live price from a snapshot's in-progress candle, else its price", () => {
    expect(parseLivePrice({ price: 5, last_candle: { time: "2026-11-26T03:01:00.000Z", close: 6 } }, 0)).toEqual({ price: 6, time: t0 + 3 * H + 60 });
    expect(parseLivePrice({ price: 5 }, (t0 + 7) * 1000)).toEqual({ price: 5, time: t0 + 7 });
    expect(parseLivePrice({ price: -1 }, 0)).toBeNull();
    expect(parseLivePrice("x", 0)).toBeNull();
  });
});

describe("describeChart", () => {
  const usd = (n: number) => `$${n.toFixed(2)}`;
  it("says the last close, the change over the shown bars and the range", () => {
    expect(describeChart({ candles: bars, forming: null, exchange: "binance" }, usd)).toBe(
      "Last close on binance $103.00, up $3.00 (+3.00 %) over 3 bars (about 2 h); range $99.00 to $105.00.",
    );
    const forming = { time: t0 + 3 * H, open: 103, high: 103, low: 90, close: 90 };
    expect(describeChart({ candles: bars, forming, exchange: null }, usd)).toBe(
      "Last price $90.00, down $10.00 (−10.00 %) over 4 bars (about 3 h); range $90.00 to $105.00.",
    );
    expect(describeChart({ candles: [], forming: null, exchange: null }, usd)).toBeNull();
  });
});

describe("parseVerdict", () => {
  const full = {
    view: "full",
    state: "LEVERAGED_RALLY",
    bias: "bullish",
    risk: "ELEVATED",
    bias_score: 0.42,
    confidence: 0.8,
    conviction: 0.67,
    headline: "Leverage leads the rally.",
    evidence: [
      { summary: "Funding high", endpoint: "/v1/derivatives/overview", contribution: 0.2, available: true },
      { summary: "Missing", endpoint: "/v1/ecosystem/metrics", contribution: 0, available: false },
      { summary: "OI up", endpoint: "/v1/derivatives/positioning", contribution: -0.1, available: true },
      { summary: "Whales", endpoint: "/v1/onchain/metrics", contribution: 0.05, available: true },
      { summary: "Fear", endpoint: "/v1/sentiment/overview", contribution: 0.01, available: true },
    ],
    changed: {
      fields: ["state", "bias"],
      from: { state: "QUIET", bias: "neutral", risk: "ELEVATED" },
      to: { state: "LEVERAGED_RALLY", bias: "bullish", risk: "ELEVATED" },
      at: "2026-11-26T12:00:00.000Z",
    },
    computed_at: "2026-11-26T12:03:00.000Z",
    meta: { source: "simulated" },
  };

  it("keeps the enums, scalars, headline, the strongest available evidence and the last transition", () => {
    const card = parseVerdict(full, 3)!;
    expect(card).toMatchObject({
      state: "LEVERAGED_RALLY",
      bias: "bullish",
      risk: "ELEVATED",
      biasScore: 0.42,
      confidence: 0.8,
      conviction: 0.67,
      source: "simulated",
    });
    expect(card.evidence.map((e) => e.summary)).toEqual(["Funding high", "OI up", "Whales"]);
    expect(describeTransition(card.changed!)).toBe("state QUIET → LEVERAGED_RALLY, bias neutral → bullish");
  });

  it("reads a summary (no evidence, no transition yet) and refuses what is not a verdict", () => {
    const card = parseVerdict({ view: "summary", state: "QUIET", bias: "neutral", risk: "UNKNOWN", changed: null })!;
    expect(card).toMatchObject({ evidence: [], changed: null, headline: null, biasScore: null });
    expect(parseVerdict({ state: "QUIET" })).toBeNull();
    expect(parseVerdict(null)).toBeNull();
  });
});
