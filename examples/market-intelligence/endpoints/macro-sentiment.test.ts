// /v1/macro/*, /v1/sentiment/overview, /v1/events/upcoming and /v1/ecosystem/metrics, including the
// ecosystem's `available: false` while the (simulated) upstream throttles.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pearson } from "./macro.ts";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";

let t: TestMarketApp;
beforeAll(async () => {
  t = await testMarketApp();
}, 120_000);
afterAll(async () => {
  await t?.app.close();
});

describe("/v1/macro/correlations", () => {
  it("reports bounded correlations for each series", async () => {
    const body = (await t.get("/v1/macro/correlations")).body;
    expect(body.correlations.map((c: { series: string }) => c.series)).toEqual(["DXY", "SPX", "NDX", "GOLD", "US10Y"]);
    for (const c of body.correlations) {
      expect(Math.abs(c.correlation_30d)).toBeLessThanOrEqual(1);
      expect(Math.abs(c.correlation_90d)).toBeLessThanOrEqual(1);
    }
    expect(pearson([1, 2, 3, 4], [2, 4, 6, 8])).toBeCloseTo(1, 10);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 10);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
  });

  it("stablecoin shares sum to 100 %", async () => {
    const body = (await t.get("/v1/macro/stablecoins")).body;
    expect(body.stablecoins.reduce((s: number, c: { share_pct: number }) => s + c.share_pct, 0)).toBeCloseTo(100, 0);
    expect(body.total_supply_usd).toBe(body.stablecoins.reduce((s: number, c: { supply_usd: number }) => s + c.supply_usd, 0));
  });
});

describe("/v1/sentiment/overview and /v1/events/upcoming", () => {
  it("classifies fear & greed as the public index does, and lists the next 30 days soonest first", async () => {
    const sentiment = (await t.get("/v1/sentiment/overview")).body;
    const { value, classification } = sentiment.fear_greed;
    const expected = value < 25 ? "Extreme Fear" : value < 45 ? "Fear" : value <= 55 ? "Neutral" : value <= 75 ? "Greed" : "Extreme Greed";
    expect(classification).toBe(expected);
    expect(sentiment.fear_greed.history).toHaveLength(7);
    expect(Math.abs(sentiment.composite_score)).toBeLessThanOrEqual(1);
    const events = (await t.get("/v1/events/upcoming")).body;
    const times = events.events.map((e: { time: string }) => Date.parse(e.time));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times.every((time: number) => time >= t.clock.now && time < t.clock.now + 30 * 86_400_000)).toBe(true);
    expect(events.events.map((e: { title: string }) => e.title)).toEqual(expect.arrayContaining(["FOMC rate decision", "US CPI release"]));
  });
});

describe("/v1/ecosystem/metrics", () => {
  it("answers figures, or available: false with a reason while the upstream throttles (still 200)", async () => {
    const seen = { available: 0, throttled: 0 };
    const start = t.clock.now;
    for (let i = 0; i < 48; i++, t.clock.now += 15 * 60_000) {
      const answer = await t.get("/v1/ecosystem/metrics");
      expect(answer.status).toBe(200);
      if (answer.body.available) {
        seen.available++;
        expect(answer.body.hashrate_ehs).toBeGreaterThan(0);
      } else {
        seen.throttled++;
        expect(answer.body.reason).toMatch(/rate-limited/);
        expect(answer.body.hashrate_ehs).toBeUndefined();
      }
    }
    t.clock.now = start;
    expect(seen.available).toBeGreaterThan(0);
    expect(seen.throttled).toBeGreaterThan(0);
  });
});
