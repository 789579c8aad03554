// /v1/market/*: the snapshot's price is the venue's newest 1m close; venues and walls as documented.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VENUES } from "../model/types.ts";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";

let t: TestMarketApp;
beforeAll(async () => {
  t = await testMarketApp();
}, 120_000);
afterAll(async () => {
  await t?.app.close();
});

describe("/v1/market/snapshot", () => {
  it("quotes the close of the venue's last candle, for every venue; binance by default", async () => {
    for (const exchange of VENUES) {
      const { body } = await t.get("/v1/market/snapshot", { exchange });
      const [last] = await t.source.candles(exchange, "1m", { limit: 1 });
      expect(body.exchange).toBe(exchange);
      expect(body.price).toBe(last.close);
      expect(body.last_candle.close).toBe(body.price);
      expect(body.bid).toBeLessThanOrEqual(body.price);
      expect(body.ask).toBeGreaterThanOrEqual(body.price);
      expect(body.low_24h).toBeLessThanOrEqual(body.price);
      expect(body.high_24h).toBeGreaterThanOrEqual(body.price);
    }
    expect((await t.get("/v1/market/snapshot")).body.exchange).toBe("binance");
  });

  it("a venue that is not one of the five is a 400 naming exchange", async () => {
    const answer = await t.get("/v1/market/snapshot", { exchange: "ftx" });
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe("exchange");
    expect(answer.body.error.message).toMatch(/binance/);
  });

  it("moves with the clock, a minute at a time", async () => {
    const before = (await t.get("/v1/market/snapshot")).body;
    t.clock.now += 60_000;
    const after = (await t.get("/v1/market/snapshot")).body;
    t.clock.now -= 60_000;
    expect(after.last_candle.time).not.toBe(before.last_candle.time);
    expect(after.last_candle.open).toBe((await t.source.candles("binance", "1m", { limit: 1 }))[0].close);
  });
});

describe("/v1/market/multi_exchange", () => {
  it("lists the five venues with premiums around their mean and the best bid and ask", async () => {
    const { body } = await t.get("/v1/market/multi_exchange");
    expect(body.venues.map((v: { exchange: string }) => v.exchange)).toEqual([...VENUES]);
    expect(Math.abs(body.venues.reduce((s: number, v: { premium_bps: number }) => s + v.premium_bps, 0))).toBeLessThan(0.1);
    expect(body.best_bid.price).toBe(Math.max(...body.venues.map((v: { bid: number }) => v.bid)));
    expect(body.best_ask.price).toBe(Math.min(...body.venues.map((v: { ask: number }) => v.ask)));
  });
});

describe("/v1/market/order-book-walls", () => {
  it("returns confirmed walls; include_candidates adds the unconfirmed ones; a bad boolean is a 400", async () => {
    const confirmed = (await t.get("/v1/market/order-book-walls")).body;
    expect(confirmed.walls.every((w: { status: string }) => w.status === "confirmed")).toBe(true);
    expect(confirmed.candidate_count).toBe(0);
    // Across a few hours some minute has a candidate (a wall younger than 5 minutes).
    let withCandidates: any;
    const start = t.clock.now;
    for (let i = 0; i < 240 && !withCandidates; i++, t.clock.now += 60_000) {
      const body = (await t.get("/v1/market/order-book-walls", { include_candidates: "true" })).body;
      if (body.candidate_count > 0) withCandidates = body;
    }
    t.clock.now = start;
    expect(withCandidates).toBeDefined();
    const candidates = withCandidates.walls.filter((w: { status: string }) => w.status === "candidate");
    expect(candidates.every((w: { age_minutes: number }) => w.age_minutes < 5)).toBe(true);
    expect(withCandidates.walls.every((w: { value_usd: number }) => w.value_usd >= 2_000_000)).toBe(true);
    const bad = await t.get("/v1/market/order-book-walls", { include_candidates: "maybe" });
    expect([bad.status, bad.body.error.field]).toEqual([400, "include_candidates"]);
  });
});
