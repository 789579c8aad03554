// Deribit's options book summary against its fake: ATM IV, the 25-delta risk reversal (the fake's
// smile is put-skewed, so negative), put/call ratio and max pain per expiry; plus its JSON-RPC errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { black76Delta, fetchOptionsSummary, maxPain, parseInstrument, type DeribitOption } from "./deribit.ts";
import { UpstreamUnavailableError } from "./errors.ts";
import { DERIBIT_RATE_LIMIT, fakeExpiries } from "./fakes/derivatives.ts";
import { startLiveFakes, type LiveFakes } from "./fakes/index.ts";
import { UpstreamClient } from "./upstream-client.ts";

const START = Date.UTC(2026, 10, 26, 13, 0, 0);
let clock = START;
const now = () => clock;
let fakes: LiveFakes;

beforeAll(async () => {
  fakes = await startLiveFakes({ now });
});
afterAll(() => fakes.close());

const option = (strike: number, kind: "call" | "put", openInterest: number, markIv = 0.5): DeribitOption => ({
  name: "x",
  expiry: START + 30 * 86_400_000,
  strike,
  kind,
  openInterest,
  markIv,
  underlyingPrice: 60_000,
});

describe("deribit options", () => {
  it("parses instrument names, with 08:00 UTC expiries", () => {
    expect(parseInstrument("BTC-27DEC26-60000-C")).toEqual({ expiry: Date.UTC(2026, 11, 27, 8), strike: 60_000, kind: "call" });
    expect(parseInstrument("BTC-4DEC26-58000-P")).toEqual({ expiry: Date.UTC(2026, 11, 4, 8), strike: 58_000, kind: "put" });
    expect(parseInstrument("BTC-PERPETUAL")).toBeNull();
    expect(parseInstrument("BTC-27XYZ26-60000-C")).toBeNull();
  });

  it("max pain is the strike paying holders least", () => {
    // Settling at 50k pays the 70k puts 600k; at 60k 100k + 300k; at 70k the 50k calls 200k + 10k: least.
    expect(maxPain([option(50_000, "call", 10), option(60_000, "call", 1), option(70_000, "put", 30), option(60_000, "put", 1)])).toBe(70_000);
    // Settling at 50k pays 105k, at 60k 105k, at 55k 100k.
    expect(maxPain([option(50_000, "call", 10), option(60_000, "put", 10), option(55_000, "put", 1), option(55_000, "call", 1)])).toBe(55_000);
  });

  it("Black-76 deltas: ATM call near 0.5, puts negative, deeper OTM smaller", () => {
    expect(black76Delta(option(60_000, "call", 1), START)).toBeGreaterThan(0.5);
    expect(black76Delta(option(60_000, "call", 1), START)).toBeLessThan(0.55);
    expect(black76Delta(option(50_000, "put", 1), START)).toBeGreaterThan(black76Delta(option(55_000, "put", 1), START));
    expect(black76Delta(option(70_000, "call", 1), START)).toBeLessThan(0.25);
  });

  it("summarizes the fake chain", async () => {
    const client = new UpstreamClient({ name: "deribit", baseUrl: fakes.deribit.url, timeoutMs: 3_000, now });
    const summary = await fetchOptionsSummary(client, START);
    const expiries = fakeExpiries(START);
    expect(summary.venue).toBe("deribit");
    expect(summary.expiries.map((entry) => entry.expiry)).toEqual(expiries);
    // ATM IV of the fake smile is about 50 %; the smile is put-skewed, so the risk reversal is negative.
    expect(summary.atmIv).toBeGreaterThan(0.45);
    expect(summary.atmIv).toBeLessThan(0.55);
    expect(summary.skew25d).toBeLessThan(0);
    const calls = summary.expiries.reduce((sum, entry) => sum + entry.callOpenInterest, 0);
    const puts = summary.expiries.reduce((sum, entry) => sum + entry.putOpenInterest, 0);
    expect(summary.putCallRatio).toBeCloseTo(puts / calls, 10);
    expect(summary.putCallRatio).toBeCloseTo(90 / 120, 2);
    expect(summary.openInterestBtc).toBeCloseTo(calls + puts, 6);
    const atmStrike = Math.round(fakes.market.price(START) / 1000) * 1000;
    for (const entry of summary.expiries) expect(Math.abs(entry.maxPain - atmStrike)).toBeLessThanOrEqual(5_000);
  });

  it("a too_many_requests (10028) is a throttle; an invalid-params error is a protocol error", async () => {
    const client = new UpstreamClient({ name: "deribit", baseUrl: fakes.deribit.url, timeoutMs: 3_000, now });
    fakes.deribit.failNext({ ...DERIBIT_RATE_LIMIT, status: 200 });
    const throttled = (await fetchOptionsSummary(client, START).catch((caught: unknown) => caught)) as UpstreamUnavailableError;
    expect(throttled).toBeInstanceOf(UpstreamUnavailableError);
    expect(throttled.reason).toContain("too_many_requests (code 10028)");
    clock += 60_000;
    fakes.deribit.failNext({ status: 400, body: { jsonrpc: "2.0", error: { message: "Invalid params", code: -32602 }, testnet: false } });
    const invalid = (await fetchOptionsSummary(client, clock).catch((caught: unknown) => caught)) as UpstreamUnavailableError;
    expect(invalid.reason).toContain("error -32602: Invalid params");
  });
});
