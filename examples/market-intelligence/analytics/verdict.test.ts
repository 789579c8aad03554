// The verdict engine with an injected clock on a fixed market: the state rules, the 3-compute
// hysteresis (a reading that flickers for 2 computes never flips the enums; 3 do) and `changed`
// following it, risk UNKNOWN (never LOW) on thin inputs, the evidence ranked and cited, and
// /v1/verdict's two views with the summary's weak ETag and 304.
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { createMarketApp } from "../app.ts";
import type { EndpointRequest } from "../endpoint.ts";
import type { Alert } from "../endpoints/alert-bus.ts";
import type { HistoryStore } from "../history/store.ts";
import { verdictEndpoint } from "../endpoints/verdict.ts";
import { classifyState, type VerdictState } from "./verdict/classify.ts";
import { VerdictEngine, type VerdictTransition } from "./verdict/engine.ts";
import type { MarketFeatures } from "./verdict/evidence.ts";
import { Debounced } from "./verdict/hysteresis.ts";
import { matchesIfNoneMatch, transitionAlert, verdictSection } from "./verdict/view.ts";
import { steadyMarket, TestMarketSource } from "./test-source.ts";

const START = Date.UTC(2026, 10, 26, 12, 0);
const MINUTE = 60_000;
const CALM_FUNDING = 0.0001;
const CROWDED_FUNDING = 0.0006;

/** A market, an engine on an injected clock, and a `compute` that advances the clock a minute and ticks. */
function setup() {
  let now = START;
  const data = steadyMarket(now);
  const source = new TestMarketSource(data);
  const engine = new VerdictEngine({ source, clock: () => now });
  const compute = async (funding = CALM_FUNDING) => {
    now += MINUTE;
    source.update({ now, funding: { ...data.funding!, rate: funding, time: now } });
    return engine.tick();
  };
  return { source, engine, compute, data, time: () => now };
}

function features(overrides: Partial<MarketFeatures>): MarketFeatures {
  return {
    price: 85_000,
    return1hPct: 0.1,
    return24hPct: 0.5,
    atrPct: 0.4,
    trendScore: 0.2,
    trendDirection: "sideways",
    fundingRate: 0.0001,
    openInterestBtc: 80_000,
    oiChangePct: 0.2,
    oiWindowMinutes: 60,
    longLiquidationsUsd: 0,
    shortLiquidationsUsd: 0,
    basisAnnualizedPct: 7,
    coinbasePremiumBps: 0,
    wallImbalance: 0,
    exchangeNetflowBtc: 0,
    whaleNetflowBtc: 0,
    mvrv: 1.9,
    fearGreed: 50,
    manipulationRisk: "LOW",
    manipulationScore: 0,
    highAnomalies: 0,
    ...overrides,
  };
}

describe("the state rules", () => {
  it.each<[VerdictState, Partial<MarketFeatures>]>([
    ["QUIET", {}],
    ["CAPITULATION", { return24hPct: -9, longLiquidationsUsd: 30_000_000, oiChangePct: -6 }],
    ["CAPITULATION", { return24hPct: -7.5, fearGreed: 12 }],
    ["DELEVERAGING", { return24hPct: -5, oiChangePct: -4, longLiquidationsUsd: 8_000_000 }],
    ["DELEVERAGING", { return24hPct: 1, oiChangePct: -3.5, return1hPct: -2 }],
    ["LEVERAGED_RALLY", { return24hPct: 4, fundingRate: 0.0004, oiChangePct: 2 }],
    ["LEVERAGED_CHOP", { return24hPct: 1, fundingRate: 0.0005 }],
    ["LEVERAGED_CHOP", { return24hPct: -2, oiChangePct: 2.5 }],
    ["SPOT_ACCUMULATION", { exchangeNetflowBtc: -3_000 }],
    ["SPOT_ACCUMULATION", { whaleNetflowBtc: -2_500, trendScore: 0.6 }],
    ["SPOT_ACCUMULATION", { coinbasePremiumBps: 8 }],
  ])("reads %s", (state, overrides) => {
    expect(classifyState(features(overrides))).toBe(state);
  });

  it("lets a missing figure fail the rule that needs it", () => {
    // A 9 % drop with longs flushed would be capitulation; without the liquidations and sentiment it is not.
    expect(classifyState(features({ return24hPct: -9, longLiquidationsUsd: null, fearGreed: null }))).toBe("QUIET");
    // Outflows with leverage rising are not spot accumulation.
    expect(classifyState(features({ exchangeNetflowBtc: -3_000, oiChangePct: 1.5 }))).toBe("QUIET");
    expect(classifyState(features({ exchangeNetflowBtc: -3_000, fundingRate: null }))).toBe("QUIET");
  });
});

describe("Debounced", () => {
  it("adopts the first reading, flips after 3 consecutive new readings, and restarts the count on any interruption", () => {
    const value = new Debounced<string>(3);
    expect(value.feed("A")).toBeNull();
    expect(value.value).toBe("A");
    expect([value.feed("B"), value.feed("B"), value.feed("A")]).toEqual([null, null, null]);
    expect(value.candidate).toBeNull();
    expect([value.feed("B"), value.feed("C"), value.feed("B"), value.feed("B")]).toEqual([null, null, null, null]);
    expect(value.value).toBe("A");
    expect(value.candidate).toEqual({ reading: "B", computes: 2 });
    expect(value.feed("B")).toEqual({ from: "A", after: 3 });
    expect(value.value).toBe("B");
    expect(() => new Debounced(0)).toThrow(RangeError);
  });

  it("publishes a value only after it was read 3 times in a row, and flips exactly then (any reading sequence)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("A", "B", "C"), { minLength: 1, maxLength: 60 }), (readings) => {
        const value = new Debounced<string>(3);
        let published = readings[0];
        readings.forEach((reading, index) => {
          const flip = value.feed(reading);
          const lastThree = readings.slice(Math.max(0, index - 2), index + 1);
          const persisted = index >= 2 && lastThree.every((r) => r === reading);
          if (index > 0 && reading !== published && persisted) {
            expect(flip).toEqual({ from: published, after: 3 });
            published = reading;
          } else expect(flip).toBeNull();
          expect(value.value).toBe(published);
        });
      }),
    );
  });
});

describe("VerdictEngine", () => {
  it("publishes the first compute's reading at once, with no transition yet", async () => {
    const { engine, compute, time } = setup();
    expect(engine.current()).toBeNull();
    const verdict = await compute();
    expect(verdict).toMatchObject({ state: "QUIET", reading: { state: "QUIET" }, changed: null, computes: 1, computed_at: new Date(time()).toISOString() });
    expect(engine.current()).toBe(verdict);
    expect(verdict.risk).not.toBe("UNKNOWN");
  });

  it("never flips on a reading that flickers for 2 computes; flips on the 3rd, and `changed` follows only then", async () => {
    const { engine, compute, time } = setup();
    const transitions: VerdictTransition[] = [];
    engine.onTransition((transition) => transitions.push(transition));
    await compute();

    for (let round = 0; round < 3; round++) {
      const first = await compute(CROWDED_FUNDING);
      expect(first.reading.state).toBe("LEVERAGED_CHOP");
      const second = await compute(CROWDED_FUNDING);
      expect(second.state).toBe("QUIET");
      expect(second.pending).toContainEqual({ field: "state", reading: "LEVERAGED_CHOP", computes: 2, needed: 3 });
      const back = await compute();
      expect(back.state).toBe("QUIET");
      expect(back.pending.find((p) => p.field === "state")).toBeUndefined();
      expect(back.changed).toBeNull();
    }
    expect(transitions).toEqual([]);

    await compute(CROWDED_FUNDING);
    await compute(CROWDED_FUNDING);
    const flipped = await compute(CROWDED_FUNDING);
    expect(flipped.state).toBe("LEVERAGED_CHOP");
    expect(flipped.changed).toMatchObject({
      from: { state: "QUIET" },
      to: { state: "LEVERAGED_CHOP" },
      after_computes: 3,
      at: new Date(time()).toISOString(),
      held_computes: 12,
      compute: 13,
    });
    expect(flipped.changed!.fields).toContain("state");
    expect(transitions).toEqual([flipped.changed]);
    const alert = transitionAlert(flipped.changed!, flipped);
    expect(alert).toMatchObject({ id: "verdict-13", type: "verdict", severity: "warning", time: flipped.changed!.at, data: { state: "LEVERAGED_CHOP" } });
    expect(alert.title).toContain("state QUIET → LEVERAGED_CHOP");

    // The calm reading must persist 3 computes too before the state returns; `changed` holds meanwhile.
    const held = await compute();
    const heldAgain = await compute();
    expect([held.state, heldAgain.state]).toEqual(["LEVERAGED_CHOP", "LEVERAGED_CHOP"]);
    expect(heldAgain.changed).toEqual(flipped.changed);
    const returned = await compute();
    expect(returned.state).toBe("QUIET");
    expect(returned.changed).toMatchObject({ from: { state: "LEVERAGED_CHOP" }, to: { state: "QUIET" }, after_computes: 3, held_computes: 3, compute: 16 });
    expect(transitions).toHaveLength(2);
  });

  it("ranks the evidence by |contribution|, each item citing its endpoint, and writes a headline", async () => {
    const { compute } = setup();
    const verdict = await compute(CROWDED_FUNDING);
    const magnitudes = verdict.evidence.map((item) => Math.abs(item.contribution));
    expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a));
    expect(verdict.evidence.every((item) => item.endpoint.startsWith("/v1/"))).toBe(true);
    const funding = verdict.evidence.find((item) => item.id === "funding")!;
    expect(funding).toMatchObject({ endpoint: "/v1/derivatives/overview", available: true, signal: -1 });
    expect(verdict.bias_score).toBeCloseTo(
      verdict.evidence.reduce((sum, item) => sum + item.contribution, 0),
      2,
    );
    // No open-interest sample 10 minutes old yet: that item is unavailable and completeness is below 1.
    expect(verdict.evidence.find((item) => item.id === "open_interest")).toMatchObject({ available: false, contribution: 0 });
    expect(verdict.data_completeness).toBeLessThan(1);
    // The first compute's reading is published at once: crowded funding without direction reads as chop.
    expect(verdict.headline).toMatch(
      /^Leveraged chop: open interest n\/a and funding at 0\.060 % per 8 h .*; bias (bullish|neutral|bearish), risk \w+\. Strongest evidence: /,
    );
  });

  it("measures the open-interest change against a sample 10–60 minutes old", async () => {
    const { compute, source, data } = setup();
    for (let minute = 0; minute < 10; minute++) await compute();
    source.update({ openInterest: { ...data.openInterest!, size: 80_000 * 1.025 } });
    const verdict = await compute();
    const oi = verdict.evidence.find((item) => item.id === "open_interest")!;
    expect(oi.available).toBe(true);
    expect(oi.value).toMatchObject({ change_pct: 2.5, window_minutes: 10 });
    expect(verdict.reading.state).toBe("LEVERAGED_CHOP");
  });

  it("answers risk UNKNOWN, never LOW, once too few inputs remain, after the same 3 computes", async () => {
    const { compute, source } = setup();
    const calm = await compute();
    expect(calm.risk).not.toBe("UNKNOWN");
    source.remove("walls", "books", "cmeBasis", "exchangeReserves", "whaleTransfers", "valuation", "fearGreed", "openInterest");
    const thin = await compute();
    expect(thin.reading.risk).toBe("UNKNOWN");
    expect(thin.data_completeness).toBeLessThan(0.5);
    expect(thin.risk).toBe(calm.risk);
    await compute();
    expect((await compute()).risk).toBe("UNKNOWN");

    // A source this thin from the start publishes UNKNOWN at once.
    const bare = new TestMarketSource({ now: START, funding: steadyMarket(START).funding });
    const verdict = await new VerdictEngine({ source: bare }).tick();
    expect(verdict.risk).toBe("UNKNOWN");
    expect(verdict.evidence.filter((item) => item.available).map((item) => item.id)).toEqual(["funding", "liquidations"]);
  });

  it("keeps computes in order when ticks overlap, and stops announcing to an unsubscribed listener", async () => {
    const { engine, source, time, data } = setup();
    const heard: string[] = [];
    const stop = engine.onTransition((transition) => heard.push(transition.to.state));
    source.update({ now: time() });
    const results = await Promise.all([engine.tick(START + 1), engine.tick(START + 2), engine.tick(START + 3)]);
    expect(results.map((verdict) => verdict.computes)).toEqual([1, 2, 3]);
    stop();
    source.update({ funding: { ...data.funding!, rate: CROWDED_FUNDING } });
    for (let i = 4; i <= 6; i++) await engine.tick(START + i);
    expect(engine.current()!.state).toBe("LEVERAGED_CHOP");
    expect(heard).toEqual([]);
  });
});

describe("VerdictEngine.start", () => {
  it("ticks once per interval until stopped, reporting failed computes to onError", async () => {
    vi.useFakeTimers();
    try {
      const { engine, source, data } = setup();
      const errors: unknown[] = [];
      const heard: string[] = [];
      engine.onTransition(() => {
        throw new Error("listener broke");
      });
      engine.onTransition((transition) => heard.push(transition.to.state));
      const stop = engine.start(60_000, (error) => errors.push(error));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(engine.current()).toMatchObject({ computes: 1, state: "QUIET" });
      source.update({ funding: { ...data.funding!, rate: CROWDED_FUNDING } });
      await vi.advanceTimersByTimeAsync(3 * 60_000);
      // The flip is published and heard by the other listener; the throwing one is reported, not fatal.
      expect(engine.current()).toMatchObject({ computes: 4, state: "LEVERAGED_CHOP" });
      expect(heard).toEqual(["LEVERAGED_CHOP"]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(AggregateError);
      stop();
      await vi.advanceTimersByTimeAsync(3 * 60_000);
      expect(engine.current()!.computes).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("GET /v1/verdict", () => {
  const get = async (engine: VerdictEngine, source: TestMarketSource, query: Record<string, string>, headers: EndpointRequest["headers"] = {}) =>
    verdictEndpoint.handle({ source, verdict: engine }, verdictEndpoint.params.parse(query), { headers, probe: false });

  it("validates view and defaults to the full view with evidence and headline", async () => {
    expect(verdictEndpoint.path).toBe("/v1/verdict");
    expect(verdictEndpoint.price).toBe(15);
    expect(verdictEndpoint.params.safeParse({ view: "brief" }).success).toBe(false);
    expect(verdictEndpoint.params.safeParse({ detail: "full" }).success).toBe(false);
    const { source, engine, compute } = setup();
    await compute();
    const answer = await get(engine, source, {}, { "if-none-match": "*" });
    expect(answer.status).toBe(200);
    expect(answer.headers?.etag).toBeUndefined();
    const body = answer.body as Record<string, unknown>;
    expect(body).toMatchObject({ view: "full", state: "QUIET", meta: { source: "simulated" } });
    expect(body.evidence).toBeInstanceOf(Array);
    expect(typeof body.headline).toBe("string");
    expect(verdictEndpoint.response.safeParse(body).success).toBe(true);
  });

  it("computes on first request when the scheduler has not run yet", async () => {
    const { source, engine } = setup();
    const answer = await get(engine, source, { view: "summary" });
    expect(answer.status).toBe(200);
    expect(engine.current()!.computes).toBe(1);
  });

  it("answers the summary with a weak ETag that holds between transitions, and 304 with no body on If-None-Match", async () => {
    const { source, engine, compute, data } = setup();
    await compute();
    const first = await get(engine, source, { view: "summary" });
    const etag = first.headers!.etag;
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    expect(first.headers!["access-control-expose-headers"]).toBe("ETag");
    expect(Object.keys(first.body as object).sort()).toEqual(["bias", "bias_score", "changed", "confidence", "conviction", "meta", "risk", "state", "view"]);
    expect(verdictEndpoint.response.safeParse(first.body).success).toBe(true);

    // Scalars move (sentiment shifts), the enums do not: same ETag, and revalidation answers 304.
    source.update({ fearGreed: [{ time: data.now, value: 35, classification: "Fear" }] });
    const moved = await compute();
    expect(moved.bias_score).not.toBe((first.body as { bias_score: number }).bias_score);
    const again = await get(engine, source, { view: "summary" });
    expect(again.headers!.etag).toBe(etag);
    const notModified = await get(engine, source, { view: "summary" }, { "if-none-match": etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBeNull();
    expect(notModified.headers!.etag).toBe(etag);
    for (const header of [etag.slice(2), `W/"other", ${etag}`, "*"]) {
      expect((await get(engine, source, { view: "summary" }, { "if-none-match": header })).status, header).toBe(304);
    }
    expect((await get(engine, source, { view: "summary" }, { "if-none-match": 'W/"other"' })).status).toBe(200);

    // Two crowded computes: still the same verdict, still 304.
    await compute(CROWDED_FUNDING);
    await compute(CROWDED_FUNDING);
    expect((await get(engine, source, { view: "summary" }, { "if-none-match": etag })).status).toBe(304);
    // The third flips the state: a new ETag, and the old one gets the new summary.
    await compute(CROWDED_FUNDING);
    const changed = await get(engine, source, { view: "summary" }, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers!.etag).not.toBe(etag);
    expect(changed.body).toMatchObject({ state: "LEVERAGED_CHOP", changed: { to: { state: "LEVERAGED_CHOP" } } });
  });

  it("parses If-None-Match lists by weak comparison", () => {
    expect(matchesIfNoneMatch(undefined, 'W/"a"')).toBe(false);
    expect(matchesIfNoneMatch('"a"', 'W/"a"')).toBe(true);
    expect(matchesIfNoneMatch(['W/"b"', 'W/"a"'], 'W/"a"')).toBe(true);
    expect(matchesIfNoneMatch('W/"ab"', 'W/"a"')).toBe(false);
    expect(matchesIfNoneMatch("a", 'W/"a"')).toBe(false);
  });

  it("offers a verdict section for /v1/market/intelligence", async () => {
    const { engine } = setup();
    const summary = await verdictSection({ verdict: engine }, { detail: "summary" });
    expect(Object.keys(summary)).toEqual(["state", "bias", "risk", "bias_score", "confidence", "conviction", "changed"]);
    const full = await verdictSection({ verdict: engine }, { detail: "full" });
    expect(full).toHaveProperty("evidence");
    expect(engine.current()!.computes).toBe(1);
  });
});

describe("the verdict in the app", () => {
  it("publishes each transition on the alerts bus, shaped by transitionAlert", async () => {
    let now = START;
    const data = steadyMarket(now);
    const source = new TestMarketSource(data);
    // No endpoints: nothing reads the history here.
    const app = await createMarketApp({ source, history: {} as HistoryStore, endpoints: [], background: false });
    const alerts: Alert[] = [];
    app.deps.alerts.subscribe((alert) => alerts.push(alert));
    const compute = (funding: number) => {
      now += MINUTE;
      source.update({ now, funding: { ...data.funding!, rate: funding, time: now } });
      return app.verdict.tick();
    };
    await compute(CALM_FUNDING);
    for (let i = 0; i < 2; i++) await compute(CROWDED_FUNDING);
    expect(alerts).toEqual([]);
    const flipped = await compute(CROWDED_FUNDING);
    expect(flipped.state).toBe("LEVERAGED_CHOP");
    expect(alerts).toEqual([transitionAlert(flipped.changed!, flipped)]);
    await app.close();
  });
});
