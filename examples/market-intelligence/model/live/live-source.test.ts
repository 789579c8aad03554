// The whole live MarketSource against every fake at once: each method's answer, walls found,
// confirmed and pulled across polls, the heatmap estimate, figures no key-less upstream offers,
// throttled upstreams as `available: false` (Availability methods) or `UpstreamUnavailableError`
// mapped to a 503 naming the upstream (the others), the rule-based calendar, and the config.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VENUES } from "../types.ts";
import { ruleBasedEvents } from "./calendar.ts";
import { startLiveFakes, type LiveFakes } from "./fakes/index.ts";
import { FAKE_OPEN_INTEREST_BTC } from "./fakes/derivatives.ts";
import { FAKE_HASHRATE_HS, FAKE_TIP_HEIGHT } from "./fakes/network-sentiment.ts";
import {
  createLiveMarketSource,
  isUpstreamUnavailableError,
  liveSourceConfig,
  upstreamUnavailableAnswer,
  UpstreamUnavailableError,
  type LiveMarketSource,
} from "./index.ts";

const START = Date.UTC(2026, 10, 26, 13, 17, 25);
let clock = START;
const now = () => clock;
let fakes: LiveFakes;
let source: LiveMarketSource;

beforeAll(async () => {
  fakes = await startLiveFakes({ now });
});
afterAll(() => fakes.close());
beforeEach(async () => {
  clock = START;
  fakes.market.walls = [];
  fakes.market.bookTime = null;
  source = createLiveMarketSource({ ...fakes.env, MARKET_LIVE_WALL_POLL_MS: "0" }, { now, reconnectBaseMs: 20 });
  await fakes.futures.waitForConnections(fakes.futures.connections > 0 ? fakes.futures.connections : 1);
});
afterEach(() => source.close());

describe("LiveMarketSource against all fakes", () => {
  it("answers the market figures of every venue in the model's shapes", async () => {
    expect(source.kind).toBe("live");
    expect(source.now()).toBe(START);
    expect(source.regime()).toBeNull();
    for (const venue of VENUES) {
      const [candles, ticker, book] = await Promise.all([source.candles(venue, "1h", { limit: 24 }), source.ticker(venue), source.orderBook(venue, 20)]);
      expect(candles).toHaveLength(24);
      expect(candles[0].time).toBeLessThan(candles[23].time);
      expect(Math.abs(candles[23].close - ticker.price)).toBeLessThan(1);
      expect(book).toMatchObject({ venue });
      expect(book.bids).toHaveLength(20);
    }
  });

  it("a burst of calls costs one upstream request per resource", async () => {
    const before = fakes.binance.count("/api/v3/ticker/24hr");
    await Promise.all(Array.from({ length: 25 }, () => source.ticker("binance")));
    await source.ticker("binance");
    expect(fakes.binance.count("/api/v3/ticker/24hr") - before).toBe(1);
  });

  it("funding, open interest and the liquidation heatmap estimate", async () => {
    const funding = await source.funding();
    const interest = await source.openInterest();
    expect(interest.size).toBe(FAKE_OPEN_INTEREST_BTC);
    const heatmap = await source.liquidationHeatmap();
    expect(heatmap.symbol).toBe("BTCUSDT");
    expect(heatmap.referencePrice).toBe(funding.markPrice);
    const longs = heatmap.buckets.reduce((sum, bucket) => sum + bucket.longLiquidationUsd, 0);
    const shorts = heatmap.buckets.reduce((sum, bucket) => sum + bucket.shortLiquidationUsd, 0);
    // Long liquidations sit below the price, short ones above; neither exceeds the open interest.
    for (const bucket of heatmap.buckets) {
      if (bucket.longLiquidationUsd > 0) expect(bucket.priceHigh).toBeLessThan(heatmap.referencePrice * 1.01);
      if (bucket.shortLiquidationUsd > 0) expect(bucket.priceLow).toBeGreaterThan(heatmap.referencePrice * 0.99);
    }
    expect(longs).toBeGreaterThan(0);
    expect(shorts).toBeGreaterThan(0);
    expect(longs).toBeLessThanOrEqual(interest.valueUsd * 1.000001);
    expect(heatmap.buckets[1].priceLow - heatmap.buckets[0].priceLow).toBe(heatmap.bucketSizeUsd);
  });

  it("liquidations come from the stream: since it connected, BUY = a short liquidated", async () => {
    const events: Array<{ side: string }> = [];
    const delivered = new Promise<void>((resolve) => {
      const unsubscribe = source.onLiquidation((event) => {
        events.push(event);
        if (events.length === 2) {
          unsubscribe();
          resolve();
        }
      });
    });
    await fakes.futures.waitForConnections(1);
    // Make sure this source's socket is among the connected ones before emitting.
    while (source.upstreamStatus()["binance-futures-stream"].available === false) await new Promise((resolve) => setTimeout(resolve, 10));
    fakes.futures.emitForceOrder({ side: "BUY", quantity: 3, price: 60_500, time: START - 60_000 });
    fakes.futures.emitForceOrder({ side: "SELL", quantity: 1, price: 59_500, time: START - 30_000 });
    await delivered;
    expect(events.map((event) => event.side)).toEqual(["BUY", "SELL"]);
    const recent = await source.liquidations(START - 3_600_000);
    expect(recent.map((event) => [event.side, event.size, event.valueUsd])).toEqual([
      ["BUY", 3, 181_500],
      ["SELL", 1, 59_500],
    ]);
    expect(await source.liquidations(START - 45_000, START)).toHaveLength(1);
  });

  it("options, mempool, fear & greed and stablecoins as Availability", async () => {
    const options = await source.options();
    expect(options.available && options.data.expiries.length).toBeGreaterThan(3);
    const mempool = await source.mempool();
    expect(mempool).toMatchObject({ available: true, data: { blockHeight: FAKE_TIP_HEIGHT, economyFee: 3, minimumFee: 1, vsize: 38_456_789 } });
    const fearGreed = await source.fearGreed(30);
    expect(fearGreed.available).toBe(true);
    if (fearGreed.available) {
      expect(fearGreed.data).toHaveLength(30);
      expect(fearGreed.data[0].time).toBeLessThan(fearGreed.data[29].time);
      expect(fearGreed.data[29].time).toBe(Date.UTC(2026, 10, 26));
      for (const point of fearGreed.data) expect(point.value).toBeGreaterThanOrEqual(0);
    }
    const stablecoins = await source.stablecoins();
    expect(stablecoins.available && stablecoins.data.map((coin) => coin.symbol)).toEqual(["USDT", "USDC", "DAI"]);
    if (stablecoins.available) expect(stablecoins.data[1].change7dPct).toBeCloseTo((2 / 58) * 100, 6);
  });

  it("the ecosystem's network figures from mempool.space, in the endpoint's units, and its throttle as available: false", async () => {
    expect(await source.networkEcosystem()).toEqual({
      available: true,
      data: {
        time: START,
        hashrateEhs: FAKE_HASHRATE_HS / 1e18,
        difficulty: 1.02e14,
        blocksToAdjustment: 780,
        nextAdjustmentPct: 2.84,
        lightningCapacityBtc: 5200,
        lightningNodes: 13_500,
        lightningChannels: 52_000,
      },
    });
    const throttled = createLiveMarketSource({ ...fakes.env, MARKET_LIVE_WALL_POLL_MS: "0" }, { now, connectStream: false });
    fakes.mempool.failNext({ status: 429, headers: { "Retry-After": "120" }, body: "Too Many Requests" }, 3);
    const answer = await throttled.networkEcosystem();
    expect(answer).toEqual({
      available: false,
      reason: expect.stringMatching(/^mempool\.space unavailable: rate limited: HTTP 429; retrying after 2026-11-26T13:19:25\.000Z$/),
    });
    await throttled.close();
  });

  it("figures with no key-less upstream say so, and addresses resolve empty", async () => {
    for (const answer of [
      await source.cmeBasis(),
      await source.exchangeReserves(),
      await source.whaleTransfers(0),
      await source.valuation(),
      await source.macro(30),
    ]) {
      expect(answer).toEqual({ available: false, reason: "not offered by the live source" });
    }
    expect(await source.entity("bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh")).toBeNull();
    expect(await source.balanceHistory("bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh", 30)).toEqual({ tracked: false, points: [] });
    const withCorpus = createLiveMarketSource(
      { ...fakes.env, MARKET_LIVE_WALL_POLL_MS: "0" },
      { now, connectStream: false, corpus: { entity: (address) => (address === "x" ? { address, entity: "Binance", category: "exchange" } : null) } },
    );
    expect(await withCorpus.entity("x")).toEqual({ address: "x", entity: "Binance", category: "exchange" });
    await withCorpus.close();
  });

  it("walls: a large resting bin becomes a candidate, is confirmed after resting 5 minutes over 3 polls, and ends pulled", async () => {
    // The book stays at the price of START while the clock runs, so the planted wall rests at one price.
    fakes.market.bookTime = START;
    fakes.market.walls = [{ venue: "kraken", side: "bid", offset: 0.001, size: 300 }];
    expect(await source.orderBookWalls({ venue: "kraken", includeCandidates: true })).toHaveLength(1);
    expect(await source.orderBookWalls({ venue: "kraken" })).toHaveLength(0);
    clock += 150_000;
    await source.pollWalls();
    expect(await source.orderBookWalls({ venue: "kraken" })).toHaveLength(0);
    clock += 150_000;
    const [wall] = await source.orderBookWalls({ venue: "kraken" });
    expect(wall).toMatchObject({ venue: "kraken", side: "bid", confirmed: true, firstSeen: START });
    expect(wall.size).toBeGreaterThan(300);
    expect(wall.price).toBeLessThan(fakes.market.price(START, "kraken"));
    expect(wall.valueUsd).toBeCloseTo(wall.size * wall.price, 4);
    expect(await source.orderBookWalls({ venue: "binance", includeCandidates: true })).toEqual([]);
    fakes.market.walls = [];
    clock += 2_001;
    expect(await source.orderBookWalls({ venue: "kraken", includeCandidates: true })).toEqual([]);
  });

  it("a throttled venue throws UpstreamUnavailableError, which the origin answers as a 503 naming it; recovery follows Retry-After", async () => {
    fakes.coinbase.failNext({ status: 429, headers: { "Retry-After": "5" }, body: { message: "Public rate limit exceeded" } }, 2);
    const error = (await source.ticker("coinbase").catch((caught: unknown) => caught)) as UpstreamUnavailableError;
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(isUpstreamUnavailableError(error)).toBe(true);
    expect(isUpstreamUnavailableError(new Error("other"))).toBe(false);
    expect(error.upstream).toBe("coinbase");
    const answer = upstreamUnavailableAnswer(error, clock);
    expect(answer.status).toBe(503);
    expect(answer.headers).toEqual({ "Retry-After": "5" });
    expect(answer.body).toEqual({
      error: {
        code: "upstream_unavailable",
        message: expect.stringContaining("coinbase"),
        upstream: "coinbase",
        reason: expect.stringContaining("rate limited: HTTP 429 (Public rate limit exceeded)"),
      },
    });
    expect(source.upstreamStatus().coinbase.available).toBe(false);
    expect(source.upstreamStatus().binance.available).toBe(true);
    // Other venues are unaffected; the throttled one is back once Retry-After has passed.
    await expect(source.ticker("kraken")).resolves.toMatchObject({ venue: "kraken" });
    // The ticker reads /ticker and /stats at once: both met the scripted 429s.
    clock += 5_000;
    await expect(source.ticker("coinbase")).resolves.toMatchObject({ venue: "coinbase" });
  });

  it("a throttled ecosystem upstream gives available: false with the reason, then recovers", async () => {
    fakes.mempool.failNext({ status: 429, headers: { "Retry-After": "60" }, body: "Too Many Requests" }, 3);
    const throttled = await source.mempool();
    expect(throttled.available).toBe(false);
    if (!throttled.available) expect(throttled.reason).toMatch(/^mempool\.space unavailable: rate limited: HTTP 429/);
    // Its three reads went out together and all met the scripted 429s; after Retry-After it is back.
    clock += 60_000;
    expect(await source.mempool()).toMatchObject({ available: true, data: { blockHeight: FAKE_TIP_HEIGHT } });
    fakes.fearGreed.failNext({ body: { name: "Fear and Greed Index", data: [], metadata: { error: "Service unavailable" } } });
    expect(await source.fearGreed(7)).toEqual({ available: false, reason: "alternative.me unavailable: error: Service unavailable" });
  });

  it("the calendar lists Deribit's last-Friday expiries by rule", async () => {
    const events = await source.upcomingEvents(40);
    expect(events.filter((event) => event.kind === "options_expiry").map((event) => new Date(event.time).toISOString())).toEqual([
      "2026-11-27T08:00:00.000Z",
      "2026-12-25T08:00:00.000Z",
    ]);
    expect(events.find((event) => event.id === "deribit-expiry-2026-12-25")?.importance).toBe("high");
    expect(ruleBasedEvents(Date.UTC(2026, 10, 27, 9), 1)).toEqual([expect.objectContaining({ kind: "futures_expiry", time: Date.UTC(2026, 10, 27, 15) })]);
  });
});

describe("liveSourceConfig", () => {
  it("defaults to the real hosts and names a malformed variable", () => {
    const config = liveSourceConfig({});
    expect(config.urls.binance).toBe("https://api.binance.com");
    expect(config.urls["binance-futures-ws"]).toBe("wss://fstream.binance.com");
    expect(config.timeoutMs).toBe(8_000);
    expect(() => liveSourceConfig({ MARKET_LIVE_KRAKEN_URL: "kraken" })).toThrow(/MARKET_LIVE_KRAKEN_URL must be an absolute URL/);
    expect(() => liveSourceConfig({ MARKET_LIVE_BINANCE_FUTURES_WS_URL: "https://fstream.binance.com" })).toThrow(
      /MARKET_LIVE_BINANCE_FUTURES_WS_URL must be a ws: or wss: URL/,
    );
    expect(() => liveSourceConfig({ MARKET_LIVE_TIMEOUT_MS: "fast" })).toThrow(/MARKET_LIVE_TIMEOUT_MS must be an integer/);
  });
});
