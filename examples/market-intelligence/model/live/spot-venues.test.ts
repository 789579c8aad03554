// Each spot venue's adapter against its fake: candle shapes and order (Coinbase and OKX send newest
// first), windows and limits, Coinbase's 4h aggregated from 1h, OKX's UTC days, tickers, books, and
// each venue's error envelope and rate-limit answer.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TIMEFRAME_MS, VENUES, type Candle, type Timeframe, type Venue } from "../types.ts";
import { aggregateCandles } from "./candles.ts";
import { UpstreamUnavailableError } from "./errors.ts";
import { OKX_RATE_LIMIT } from "./fakes/spot-venues.ts";
import { startLiveFakes, type LiveFakes } from "./fakes/index.ts";
import { binanceSpot, bitstamp, coinbaseExchange, kraken, okx, type SpotVenueAdapter } from "./spot-venues.ts";
import { UpstreamClient } from "./upstream-client.ts";

const START = Date.UTC(2026, 10, 26, 13, 17, 25);
let clock = START;
const now = () => clock;
let fakes: LiveFakes;
let adapters: Record<Venue, SpotVenueAdapter>;

function freshAdapters(): Record<Venue, SpotVenueAdapter> {
  const client = (name: "binance" | "coinbase" | "kraken" | "bitstamp" | "okx", url: string) =>
    new UpstreamClient({ name, baseUrl: url, timeoutMs: 3_000, now });
  return {
    binance: binanceSpot(client("binance", fakes.binance.url), now),
    coinbase: coinbaseExchange(client("coinbase", fakes.coinbase.url), now),
    kraken: kraken(client("kraken", fakes.kraken.url), now),
    bitstamp: bitstamp(client("bitstamp", fakes.bitstamp.url), now),
    okx: okx(client("okx", fakes.okx.url), now),
  };
}

beforeAll(async () => {
  fakes = await startLiveFakes({ now });
});
afterAll(() => fakes.close());
beforeEach(() => {
  clock = START;
  adapters = freshAdapters();
});

function expectOrderedAndAligned(candles: Candle[], timeframe: Timeframe) {
  for (const [index, candle] of candles.entries()) {
    expect(candle.time % TIMEFRAME_MS[timeframe]).toBe(0);
    if (index) expect(candle.time - candles[index - 1].time).toBe(TIMEFRAME_MS[timeframe]);
    expect(candle.high).toBeGreaterThanOrEqual(Math.max(candle.open, candle.close) - 1);
    expect(candle.low).toBeLessThanOrEqual(Math.min(candle.open, candle.close) + 1);
    expect(candle.volume).toBeGreaterThan(0);
  }
}

describe("spot venue adapters against their fakes", () => {
  for (const venue of VENUES) {
    for (const timeframe of ["1m", "1h", "4h", "1d"] as const) {
      it(`${venue} ${timeframe}: the newest 20 candles, oldest first, ending with the current one`, async () => {
        const candles = await adapters[venue].candles(timeframe, { limit: 20 });
        expect(candles).toHaveLength(20);
        expectOrderedAndAligned(candles, timeframe);
        const span = TIMEFRAME_MS[timeframe];
        expect(candles[candles.length - 1].time).toBe(Math.floor(START / span) * span);
        // The current candle closes at the venue's price of now (Bitstamp sends whole dollars).
        expect(Math.abs(candles[candles.length - 1].close - fakes.market.price(START, venue))).toBeLessThan(1);
      });
    }

    it(`${venue}: a closed-open window [start, end) in the past`, async () => {
      const start = Date.UTC(2026, 10, 26, 2);
      const end = Date.UTC(2026, 10, 26, 8);
      const candles = await adapters[venue].candles("1h", { start, end });
      expect(candles.map((candle) => candle.time)).toEqual([2, 3, 4, 5, 6, 7].map((hour) => Date.UTC(2026, 10, 26, hour)));
      const reference = fakes.market.candle(Date.UTC(2026, 10, 26, 4), 3_600_000, venue);
      expect(Math.abs(candles[2].open - reference.open)).toBeLessThan(1);
      expect(Math.abs(candles[2].close - reference.close)).toBeLessThan(1);
    });

    it(`${venue}: ticker and book in the model's units`, async () => {
      const ticker = await adapters[venue].ticker();
      const price = fakes.market.price(START, venue);
      expect(ticker.venue).toBe(venue);
      expect(Math.abs(ticker.price - price)).toBeLessThan(1);
      expect(ticker.bid).toBeLessThanOrEqual(ticker.ask);
      expect(ticker.volume24h).toBeGreaterThan(0);
      const open = fakes.market.price(START - 86_400_000, venue);
      expect(ticker.change24hPct).toBeCloseTo(((price - open) / open) * 100, 0);
      const book = await adapters[venue].orderBook(50);
      expect(book.bids).toHaveLength(50);
      expect(book.asks).toHaveLength(50);
      expect(book.bids[0].price).toBeLessThan(book.asks[0].price);
      expect(book.bids[0].price).toBeGreaterThan(book.bids[1].price);
      expect(book.asks[0].price).toBeLessThan(book.asks[1].price);
    });
  }

  it("coinbase: newest-first arrays become oldest-first candles, and 4h is aggregated from 1h on the UTC grid", async () => {
    const raw = (await fetch(`${fakes.coinbase.url}/products/BTC-USD/candles?granularity=3600`).then((response) => response.json())) as number[][];
    expect(raw[0][0]).toBeGreaterThan(raw[1][0]);
    const hourly = await adapters.coinbase.candles("1h", { limit: 12 });
    const fourHourly = await adapters.coinbase.candles("4h", { limit: 3 });
    expect(fourHourly.map((candle) => candle.time)).toEqual([4, 8, 12].map((hour) => Date.UTC(2026, 10, 26, hour)));
    const fromHours = aggregateCandles(hourly, 14_400_000);
    expect(fourHourly).toEqual(fromHours.slice(-3));
    const firstBucket = hourly.filter((candle) => candle.time >= Date.UTC(2026, 10, 26, 4) && candle.time < Date.UTC(2026, 10, 26, 8));
    expect(fourHourly[0]).toEqual({
      time: Date.UTC(2026, 10, 26, 4),
      open: firstBucket[0].open,
      close: firstBucket[3].close,
      high: Math.max(...firstBucket.map((candle) => candle.high)),
      low: Math.min(...firstBucket.map((candle) => candle.low)),
      volume: firstBucket.reduce((sum, candle) => sum + candle.volume, 0),
    });
    // Every request stayed within Coinbase's 300 buckets (the fake answers 400 beyond).
    const wide = await adapters.coinbase.candles("4h", { limit: 500 });
    expect(wide.length).toBe(75);
  });

  it("a cached full book serves any depth: coinbase and bitstamp send the whole book once", async () => {
    for (const venue of ["coinbase", "bitstamp"] as const) {
      const fake = fakes[venue];
      const before = fake.requests.length;
      expect((await adapters[venue].orderBook(20)).bids).toHaveLength(20);
      expect((await adapters[venue].orderBook(300)).asks).toHaveLength(300);
      expect(fake.requests.length - before).toBe(1);
    }
  });

  it("okx: daily candles are UTC days (1Dutc), not Hong Kong days", async () => {
    const days = await adapters.okx.candles("1d", { limit: 3 });
    expect(days.map((candle) => candle.time)).toEqual([24, 25, 26].map((day) => Date.UTC(2026, 10, day)));
    expect(fakes.okx.requests.at(-1)?.searchParams.get("bar")).toBe("1Dutc");
  });

  it("aggregation drops a leading bucket missing its first hour", () => {
    const hour = (h: number): Candle => ({ time: Date.UTC(2026, 0, 1, h), open: h, high: h + 1, low: h - 1, close: h + 0.5, volume: 1 });
    const out = aggregateCandles([hour(2), hour(3), hour(4), hour(5), hour(6)], 14_400_000);
    expect(out).toEqual([{ time: Date.UTC(2026, 0, 1, 4), open: 4, high: 7, low: 3, close: 6.5, volume: 3 }]);
  });

  it("each venue's error envelope reads as unavailable with the venue's own words", async () => {
    const cases: Array<[Venue, () => void, string]> = [
      ["binance", () => fakes.binance.failNext({ status: 400, body: { code: -1121, msg: "Invalid symbol." } }), "Invalid symbol. (code -1121)"],
      ["coinbase", () => fakes.coinbase.failNext({ status: 404, body: { message: "NotFound" } }), "HTTP 404: NotFound"],
      ["kraken", () => fakes.kraken.failNext({ body: { error: ["EQuery:Unknown asset pair"] } }), "EQuery:Unknown asset pair"],
      [
        "bitstamp",
        () => fakes.bitstamp.failNext({ status: 404, body: { status: "error", reason: "Invalid currency pair", code: "API0001" } }),
        "Invalid currency pair",
      ],
      [
        "okx",
        () => fakes.okx.failNext({ body: { code: "51001", msg: "Instrument ID does not exist.", data: [] } }),
        "code 51001: Instrument ID does not exist.",
      ],
    ];
    for (const [venue, script, words] of cases) {
      script();
      const error = await adapters[venue].candles("1h", { limit: 5 }).catch((caught: unknown) => caught);
      expect(error, venue).toBeInstanceOf(UpstreamUnavailableError);
      expect((error as UpstreamUnavailableError).upstream).toBe(venue);
      expect((error as UpstreamUnavailableError).reason).toContain(words);
    }
  });

  it("kraken's in-body rate limit and OKX's 429 block the venue until recovery", async () => {
    fakes.kraken.failNext({ body: { error: ["EAPI:Rate limit exceeded"] } });
    const kraken = await adapters.kraken.ticker().catch((caught: unknown) => caught);
    expect((kraken as UpstreamUnavailableError).reason).toContain("throttled: EAPI:Rate limit exceeded");
    fakes.okx.failNext({ ...OKX_RATE_LIMIT, headers: { "Retry-After": "2" } });
    const okxError = (await adapters.okx.ticker().catch((caught: unknown) => caught)) as UpstreamUnavailableError;
    expect(okxError.reason).toContain("rate limited: HTTP 429 (Rate limit reached.");
    expect(okxError.retryAt).toBe(START + 2_000);
    clock += 2_000;
    await expect(adapters.okx.ticker()).resolves.toMatchObject({ venue: "okx" });
    await expect(adapters.kraken.ticker()).resolves.toMatchObject({ venue: "kraken" });
  });

  it("a changed format reads as unavailable, never as NaN", async () => {
    fakes.bitstamp.failNext({ body: { timestamp: "1", last: "n/a", bid: "1", ask: "1", volume: "1", percent_change_24: "1" } });
    const error = (await adapters.bitstamp.ticker().catch((caught: unknown) => caught)) as UpstreamUnavailableError;
    expect(error.reason).toContain("last is not a number");
  });
});
