// /v1/market/intelligence: sources, detail and include_meta (spec 2 §4.2 rule 2), sections equal to
// the endpoints they come from, and alerts published on the bus reaching the alerts stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testMarketApp, type TestMarketApp } from "../test-app.ts";
import { INTELLIGENCE_SECTIONS } from "./intelligence.ts";

let t: TestMarketApp;
beforeAll(async () => {
  t = await testMarketApp();
}, 120_000);
afterAll(async () => {
  await t?.app.close();
});

describe("/v1/market/intelligence", () => {
  it("full by default: every section with its meta, each equal to its endpoint's answer", async () => {
    const body = (await t.get("/v1/market/intelligence")).body;
    expect(body.detail).toBe("full");
    expect(Object.keys(body.sections)).toEqual(INTELLIGENCE_SECTIONS.map((s) => s.name));
    expect(body.unavailable).toEqual([]);
    expect(body.sections.onchain.whale_transactions).toBeDefined();
    expect(body.sections.onchain.meta).toMatchObject({ endpoint: "/v1/onchain/metrics", price_sats: 3 });
    const { meta: _meta, ...snapshot } = (await t.get("/v1/market/snapshot", { exchange: "kraken" })).body;
    const { meta: sectionMeta, ...section } = (await t.get("/v1/market/intelligence", { sources: "market", exchange: "kraken" })).body.sections.market;
    expect(section).toEqual(snapshot);
    expect(sectionMeta.endpoint).toBe("/v1/market/snapshot");
  });

  it("summary leaves out whale transactions and meta unless include_meta=true; full with include_meta=false drops meta", async () => {
    const summary = (await t.get("/v1/market/intelligence", { detail: "summary" })).body;
    expect(summary.sections.onchain.whale_transactions).toBeUndefined();
    expect(summary.sections.onchain.whale_transfer_count).toBeGreaterThanOrEqual(0);
    expect(summary.sections.market.meta).toBeUndefined();
    // The answer's own meta always says the source.
    expect(summary.meta.source).toBe("simulated");
    expect(summary.meta.sections).toBeUndefined();
    const summaryWithMeta = (await t.get("/v1/market/intelligence", { detail: "summary", include_meta: "true" })).body;
    expect(summaryWithMeta.sections.market.meta.endpoint).toBe("/v1/market/snapshot");
    expect(summaryWithMeta.sections.onchain.whale_transactions).toBeUndefined();
    const fullWithout = (await t.get("/v1/market/intelligence", { include_meta: "false" })).body;
    expect(fullWithout.sections.market.meta).toBeUndefined();
    expect(fullWithout.sections.onchain.whale_transactions).toBeDefined();
  });

  it("sources picks sections in registry order; unknown ones, a bad detail or include_meta are 400s naming them", async () => {
    const body = (await t.get("/v1/market/intelligence", { sources: "sentiment, market" })).body;
    expect(Object.keys(body.sections)).toEqual(["market", "sentiment"]);
    for (const [query, field] of [
      [{ sources: "market,astrology" }, "sources"],
      [{ detail: "brief" }, "detail"],
      [{ include_meta: "perhaps" }, "include_meta"],
      [{ exchange: "mtgox" }, "exchange"],
    ] as const) {
      const answer = await t.get("/v1/market/intelligence", query);
      expect([answer.status, answer.body.error.field], JSON.stringify(query)).toEqual([400, field]);
    }
    expect((await t.get("/v1/market/intelligence", { sources: "market,astrology" })).body.error.message).toMatch(/astrology/);
  });
});

describe("/v1/alerts/stream", () => {
  it("says hello, then sends every alert published on the bus (the verdict engine's too) under its type", async () => {
    const stream = await t.open("/v1/alerts/stream");
    expect(stream.frames[0]).toMatchObject({ event: "hello", data: { stream: "simulated", endpoint: "/v1/alerts/stream" } });
    expect(stream.frames[0].data.events).toEqual(["liquidation_cascade", "funding_extreme", "whale_transfer", "wall_appeared", "verdict"]);
    const alert = {
      id: "verdict-1",
      type: "verdict" as const,
      severity: "warning" as const,
      title: "Verdict: QUIET → DELEVERAGING",
      time: new Date(t.clock.now).toISOString(),
      data: { from: "QUIET", to: "DELEVERAGING" },
    };
    t.app.deps.alerts.publish(alert);
    expect(stream.frames[1]).toEqual({ event: "verdict", data: alert, id: "verdict-1" });
    stream.close();
    t.app.deps.alerts.publish({ ...alert, id: "verdict-2" });
    expect(stream.frames).toHaveLength(2);
    expect(t.app.deps.alerts.subscriberCount).toBe(0);
  });

  it("the producer publishes market alerts: cascades, funding extremes, whale transfers, new walls", async () => {
    const seen = new Set<string>();
    const unsubscribe = t.app.deps.alerts.subscribe((a) => seen.add(a.type));
    const start = t.clock.now;
    // Two simulated days, checked every minute: liquidations through poll, the rest through check().
    for (let i = 0; i < 2 * 24 * 60 && seen.size < 3; i++) {
      t.clock.now += 60_000;
      t.source.poll();
      await t.app.producer.check();
    }
    t.clock.now = start;
    unsubscribe();
    expect(seen.size).toBeGreaterThanOrEqual(2);
    for (const type of seen) expect(["liquidation_cascade", "funding_extreme", "whale_transfer", "wall_appeared"]).toContain(type);
  });
});
