// Binance USDⓈ-M futures against its fake: funding and open interest, the forceOrder stream's side
// mapping (BUY = a short liquidated), reconnect with backoff after the fake drops the socket, and
// `between` answering only from what the stream has seen.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Liquidation } from "../types.ts";
import { fetchFunding, fetchOpenInterest, LiquidationStream, parseForceOrder } from "./binance-futures.ts";
import { FAKE_FUNDING_RATE, FAKE_OPEN_INTEREST_BTC } from "./fakes/derivatives.ts";
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

/** Resolves with the next `count` events a stream delivers. */
function nextEvents(stream: LiquidationStream, count: number): Promise<Liquidation[]> {
  return new Promise((resolve) => {
    const seen: Liquidation[] = [];
    const unsubscribe = stream.subscribe((event) => {
      seen.push(event);
      if (seen.length === count) {
        unsubscribe();
        resolve(seen);
      }
    });
  });
}

describe("binance futures REST", () => {
  it("maps premiumIndex to funding and openInterest to BTC and USD at the mark price", async () => {
    const client = new UpstreamClient({ name: "binance-futures", baseUrl: fakes.futures.url, timeoutMs: 3_000, now });
    const funding = await fetchFunding(client);
    const index = fakes.market.price(START);
    expect(funding).toMatchObject({
      venue: "binance-futures",
      symbol: "BTCUSDT",
      time: START,
      rate: FAKE_FUNDING_RATE,
      nextFundingTime: Date.UTC(2026, 10, 26, 16),
    });
    expect(funding.indexPrice).toBeCloseTo(index, 6);
    expect(funding.markPrice).toBeCloseTo(index * 1.0003, 6);
    const interest = await fetchOpenInterest(client);
    expect(interest.size).toBe(FAKE_OPEN_INTEREST_BTC);
    expect(interest.valueUsd).toBeCloseTo(FAKE_OPEN_INTEREST_BTC * funding.markPrice, 2);
    fakes.futures.failNext({ status: 400, body: { code: -1121, msg: "Invalid symbol." } });
    clock += 10_001;
    await expect(fetchOpenInterest(client)).rejects.toThrow("Invalid symbol. (code -1121)");
  });
});

describe("forceOrder events", () => {
  it("BUY is a short liquidated, SELL a long; price is the average fill, else the order price", () => {
    const frame = (side: string, ap: string) =>
      JSON.stringify({
        e: "forceOrder",
        E: 2,
        o: { s: "BTCUSDT", S: side, o: "LIMIT", f: "IOC", q: "0.5", p: "60000", ap, X: "FILLED", l: "0.5", z: "0.5", T: 1 },
      });
    expect(parseForceOrder(frame("BUY", "60100"))).toMatchObject({
      side: "BUY",
      size: 0.5,
      price: 60100,
      valueUsd: 30050,
      time: 1,
      venue: "binance-futures",
      symbol: "BTCUSDT",
    });
    expect(parseForceOrder(frame("SELL", "0"))).toMatchObject({ side: "SELL", price: 60000, valueUsd: 30000 });
    expect(parseForceOrder(frame("HOLD", "1"))).toBeNull();
    expect(parseForceOrder("not json")).toBeNull();
    expect(parseForceOrder(JSON.stringify({ e: "forceOrder", o: { s: "ETHUSDT", S: "BUY", q: "1", p: "1", ap: "1", T: 1 } }))).toBeNull();
    expect(parseForceOrder(JSON.stringify({ e: "forceOrder", o: { s: "BTCUSDT", S: "BUY", q: "x", p: "1", ap: "1", T: 1 } }))).toBeNull();
  });
});

describe("the liquidation stream", () => {
  it("delivers events, reconnects after the fake drops the socket, and keeps what it saw", async () => {
    const before = fakes.futures.connections;
    const stream = new LiquidationStream({ baseUrl: fakes.futures.wsUrl, now, reconnectBaseMs: 20 });
    try {
      stream.start();
      await fakes.futures.waitForConnections(before + 1);
      const first = nextEvents(stream, 2);
      fakes.futures.emitRaw("{garbage");
      fakes.futures.emitForceOrder({ side: "BUY", quantity: 1.5, price: 61_000, time: START + 1_000 });
      fakes.futures.emitForceOrder({ side: "SELL", quantity: 0.25, price: 59_000, averagePrice: 58_990, time: START + 2_000 });
      const [short, long] = await first;
      expect(short).toMatchObject({ side: "BUY", size: 1.5, price: 61_000, valueUsd: 91_500, time: START + 1_000 });
      expect(long).toMatchObject({ side: "SELL", size: 0.25, price: 58_990, time: START + 2_000 });
      expect(stream.status()).toMatchObject({ connected: true, since: clock });

      fakes.futures.dropConnections();
      await fakes.futures.waitForConnections(before + 2);
      const after = nextEvents(stream, 1);
      fakes.futures.emitForceOrder({ side: "SELL", quantity: 2, price: 58_000, time: START + 3_000 });
      expect((await after)[0]).toMatchObject({ side: "SELL", size: 2, time: START + 3_000 });
      expect(stream.connections).toBe(2);

      expect(stream.between(START, START + 10_000).map((event) => event.time)).toEqual([START + 1_000, START + 2_000, START + 3_000]);
      expect(stream.between(START + 1_500, START + 3_000).map((event) => event.side)).toEqual(["SELL"]);
      expect(stream.between(0, START).length).toBe(0);
    } finally {
      await stream.stop();
    }
  });

  it("keeps retrying with backoff while the upstream refuses, and connects once it is back", async () => {
    const probe = await startLiveFakes({ now });
    const url = probe.futures.wsUrl;
    await probe.close();
    const errors: string[] = [];
    const stream = new LiquidationStream({ baseUrl: url, now, reconnectBaseMs: 10, maxReconnectMs: 40, onError: (error) => errors.push(error.message) });
    try {
      stream.start();
      await new Promise<void>((resolve) => {
        const check = () => (errors.length >= 3 ? resolve() : setTimeout(check, 10));
        check();
      });
      expect(stream.status().connected).toBe(false);
      expect(stream.status().lastError).toContain("ECONNREFUSED");
    } finally {
      await stream.stop();
    }
  });
});
