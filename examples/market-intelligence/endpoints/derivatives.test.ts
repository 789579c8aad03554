// /v1/derivatives/*: window_hours bounds and default, liquidation sums and sides, the stream's
// hello frame, its min_size_usd filter, and a streamed liquidation listed by the JSON endpoint;
// positioning's derived snapshot of the current 5-minute slot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liquidationEventSchema, streamHelloSchema } from "./derivatives.ts";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";

let t: TestMarketApp;
beforeAll(async () => {
  t = await testMarketApp();
}, 120_000);
afterAll(async () => {
  await t?.app.close();
});

describe("/v1/derivatives/liquidations", () => {
  it("window_hours runs 0.1 to 72, default 4; outside or not a number is a 400 naming it", async () => {
    const standard = (await t.get("/v1/derivatives/liquidations")).body;
    expect(standard.window_hours).toBe(4);
    expect(Date.parse(standard.until) - Date.parse(standard.since)).toBe(4 * 3_600_000);
    for (const window_hours of ["0.1", "72", "0.5"]) expect((await t.get("/v1/derivatives/liquidations", { window_hours })).status).toBe(200);
    for (const window_hours of ["0.09", "72.5", "-1", "four", ""]) {
      const answer = await t.get("/v1/derivatives/liquidations", { window_hours });
      expect([answer.status, answer.body.error?.field], window_hours).toEqual([400, "window_hours"]);
    }
  });

  it("sums each side: SELL is a long liquidated, BUY a short; events newest first", async () => {
    const body = (await t.get("/v1/derivatives/liquidations", { window_hours: "1" })).body;
    expect(body.count).toBeGreaterThan(0);
    expect(body.truncated).toBe(false);
    const sum = (side: string) =>
      Math.round(body.events.filter((e: { side: string }) => e.side === side).reduce((s: number, e: { value_usd: number }) => s + e.value_usd, 0));
    expect(Math.abs(sum("SELL") - body.long_liquidated_usd)).toBeLessThanOrEqual(1);
    expect(Math.abs(sum("BUY") - body.short_liquidated_usd)).toBeLessThanOrEqual(1);
    const times = body.events.map((e: { timestamp: string }) => Date.parse(e.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(body.largest.value_usd).toBe(Math.max(...body.events.map((e: { value_usd: number }) => e.value_usd)));
    // A long window lists the newest 1,000 and says so; its sums still cover every event.
    const day = (await t.get("/v1/derivatives/liquidations", { window_hours: "72" })).body;
    expect(day.truncated).toBe(day.count > 1_000);
    expect(day.events.length).toBe(Math.min(day.count, 1_000));
    expect(day.long_liquidated_usd + day.short_liquidated_usd).toBeGreaterThan(body.long_liquidated_usd + body.short_liquidated_usd);
  });
});

describe("/v1/derivatives/liquidations/stream", () => {
  it("says hello naming the source, then streams liquidations of at least min_size_usd that the JSON endpoint lists", async () => {
    const all = await t.open("/v1/derivatives/liquidations/stream");
    const large = await t.open("/v1/derivatives/liquidations/stream", { min_size_usd: "20000" });
    expect(all.frames[0].event).toBe("hello");
    expect(streamHelloSchema.parse(all.frames[0].data)).toMatchObject({ stream: "simulated", events: ["liquidation"], filters: { min_size_usd: 0 } });
    expect(large.frames[0].data.filters).toEqual({ min_size_usd: 20_000 });
    const start = t.clock.now;
    for (let i = 0; i < 6 * 60 && large.frames.length < 2; i++) {
      t.clock.now += 60_000;
      t.source.poll();
    }
    all.close();
    large.close();
    const events = all.frames.slice(1);
    expect(events.length).toBeGreaterThan(0);
    for (const frame of events) {
      expect(frame.event).toBe("liquidation");
      expect(liquidationEventSchema.safeParse(frame.data).success).toBe(true);
      expect(frame.id).toBe(frame.data.id);
    }
    expect(large.frames.slice(1).every((f) => f.data.value_usd >= 20_000)).toBe(true);
    expect(large.frames.length).toBeGreaterThan(1);
    const listed = (await t.get("/v1/derivatives/liquidations", { window_hours: "72" })).body.events.map((e: { id: string }) => e.id);
    for (const frame of events.slice(-20)) expect(listed).toContain(frame.data.id);
    // Closing unsubscribes: nothing more arrives.
    const count = all.frames.length;
    t.clock.now += 30 * 60_000;
    t.source.poll();
    expect(all.frames.length).toBe(count);
    t.clock.now = start;
  });

  it("min_size_usd must be a non-negative number", async () => {
    const answer = await t.request("/v1/derivatives/liquidations/stream", { min_size_usd: "-5" });
    expect([answer.status, (answer as { body: any }).body.error.field]).toEqual([400, "min_size_usd"]);
  });
});

describe("/v1/derivatives/positioning", () => {
  it("is derived, of the current 5-minute slot, and refreshed when the slot changes", async () => {
    const first = (await t.get("/v1/derivatives/positioning")).body;
    expect(first.is_derived).toBe(true);
    expect(first.refresh_interval_seconds).toBe(300);
    expect(first.refreshed_at).toBe("2026-11-26T12:00:00.000Z");
    expect(first.next_refresh_at).toBe("2026-11-26T12:05:00.000Z");
    expect(first.long_pct + first.short_pct).toBeCloseTo(100, 1);
    t.clock.now += 5 * 60_000;
    const later = (await t.get("/v1/derivatives/positioning")).body;
    t.clock.now -= 5 * 60_000;
    expect(later.refreshed_at).toBe("2026-11-26T12:05:00.000Z");
  });
});

describe("/v1/derivatives/overview, options, cme-basis and the heatmap", () => {
  it("agree with each other and with the spot market", async () => {
    const overview = (await t.get("/v1/derivatives/overview")).body;
    const options = (await t.get("/v1/derivatives/options")).body;
    const cme = (await t.get("/v1/derivatives/cme-basis")).body;
    const heatmap = (await t.get("/v1/derivatives/liquidation-heatmap")).body;
    const spot = (await t.get("/v1/market/multi_exchange")).body;
    expect(overview.index_price).toBeCloseTo(spot.mean_price, 1);
    expect(overview.options.atm_iv).toBe(options.atm_iv);
    expect(overview.cme_annualized_basis_pct).toBe(cme.annualized_basis_pct);
    expect(cme.spot_price).toBeCloseTo(spot.mean_price, 1);
    expect(cme.futures_price - cme.spot_price).toBeCloseTo(cme.basis_usd, 1);
    expect(options.expiries.length).toBeGreaterThanOrEqual(3);
    expect(options.expiries.every((e: { days_to_expiry: number }) => e.days_to_expiry > 0)).toBe(true);
    // Longs liquidate below the price, shorts above.
    for (const b of heatmap.buckets) {
      if (b.price_low > heatmap.reference_price) expect(b.long_liquidation_usd).toBe(0);
      if (b.price_high < heatmap.reference_price) expect(b.short_liquidation_usd).toBe(0);
    }
    expect(heatmap.total_long_liquidation_usd).toBeGreaterThan(0);
    expect(heatmap.total_short_liquidation_usd).toBeGreaterThan(0);
  });
});
