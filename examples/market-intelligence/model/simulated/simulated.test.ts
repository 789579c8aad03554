// The simulated market: reproducible for a seed and an instant (whatever history the process
// prepared and however it got there), coherent across its views (candles of every timeframe, the
// ticker, the liquidation clusters and the liquidations they produce), and regimes that occur.
import { afterEach, describe, expect, it } from "vitest";
import { TIMEFRAMES, VENUES, totalLiquidations } from "../types.ts";
import { SimulatedMarketSource } from "./index.ts";
import { createMarketSource, MarketConfigError, marketClockSpeed, marketHistoryDays } from "../index.ts";

const NOW = Date.parse("2026-11-26T12:00:30Z");
const opened: SimulatedMarketSource[] = [];

function simulated(seed: number, now: () => number, backfillDays = 30) {
  const source = new SimulatedMarketSource({ seed, now, autoPoll: false, backfillDays });
  opened.push(source);
  return source;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function everything(source: SimulatedMarketSource) {
  const t = source.now();
  return {
    tickers: await Promise.all(VENUES.map((v) => source.ticker(v))),
    candles: await Promise.all(TIMEFRAMES.map((tf) => source.candles("kraken", tf, { limit: 3 }))),
    book: await source.orderBook("okx", 30),
    walls: await source.orderBookWalls({ includeCandidates: true }),
    funding: await source.funding(),
    oi: await source.openInterest(),
    liquidations: await source.liquidations(t - 72 * 3_600_000),
    heatmap: await source.liquidationHeatmap(),
    options: await source.options(),
    cme: await source.cmeBasis(),
    reserves: await source.exchangeReserves(),
    whales: await source.whaleTransfers(t - 7 * 86_400_000),
    balance: await source.balanceHistory("34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo", 30),
    valuation: await source.valuation(),
    mempool: await source.mempool(),
    macro: await source.macro(30),
    stablecoins: await source.stablecoins(),
    fearGreed: await source.fearGreed(14),
    events: await source.upcomingEvents(30),
    ecosystem: await source.ecosystem(),
    regime: source.regime(),
  };
}

describe("determinism", () => {
  it("the same seed and instant give the same market, whatever history was prepared and however the clock got there", async () => {
    const a = simulated(7, () => NOW, 30);
    let clock = NOW - 3 * 3_600_000;
    const b = simulated(7, () => clock, 5);
    // b walks three hours of real time minute by minute first.
    for (; clock < NOW; clock += 60_000) b.poll();
    clock = NOW;
    expect(await everything(b)).toEqual(await everything(a));
  }, 120_000);

  it("another seed gives another market", async () => {
    const a = await simulated(7, () => NOW).ticker("binance");
    const b = await simulated(8, () => NOW).ticker("binance");
    expect(a.price).not.toBe(b.price);
  });

  it("MARKET_SOURCE chooses the source; a bad live setting or an unknown source is a config error naming it", async () => {
    const source = await createMarketSource({ MARKET_SOURCE: "simulated", MARKET_SEED: "7" }, { now: () => NOW });
    opened.push(source as SimulatedMarketSource);
    expect(source.kind).toBe("simulated");
    expect((await source.ticker("coinbase")).price).toBe((await simulated(7, () => NOW).ticker("coinbase")).price);
    const live = await createMarketSource({ MARKET_SOURCE: "live" });
    expect(live.kind).toBe("live");
    await live.close();
    await expect(createMarketSource({ MARKET_SOURCE: "live", MARKET_LIVE_BINANCE_URL: "ftp://x" })).rejects.toThrow(MarketConfigError);
    await expect(createMarketSource({ MARKET_SOURCE: "paper" })).rejects.toThrow(/MARKET_SOURCE must be "simulated" or "live"/);
  });

  it("MARKET_CLOCK_SPEED runs the market that many times faster from its start; anything outside 1 to 1000 is a config error naming it", async () => {
    let real = NOW;
    const fast = (await createMarketSource({ MARKET_CLOCK_SPEED: "30", MARKET_HISTORY_DAYS: "10" }, { now: () => real })) as SimulatedMarketSource;
    opened.push(fast);
    expect(fast.now()).toBe(NOW);
    real += 2_000;
    expect(fast.now()).toBe(NOW + 60_000);
    // Same seed, same instant: the fast market quotes what a real-time one quotes a minute on.
    expect((await fast.ticker("binance")).price).toBe((await simulated(21, () => NOW + 60_000).ticker("binance")).price);
    expect(marketClockSpeed({})).toBe(1);
    expect(marketClockSpeed({ MARKET_CLOCK_SPEED: "2.5" })).toBe(2.5);
    for (const bad of ["0", "0.5", "1001", "fast", "-2"]) expect(() => marketClockSpeed({ MARKET_CLOCK_SPEED: bad }), bad).toThrow(/MARKET_CLOCK_SPEED/);
  });

  it("MARKET_HISTORY_DAYS bounds the prepared history (10 to 365 days, default 365); anything else is a config error naming it", async () => {
    expect(marketHistoryDays({})).toBe(365);
    expect(marketHistoryDays({ MARKET_HISTORY_DAYS: " 14 " })).toBe(14);
    const source = (await createMarketSource({ MARKET_HISTORY_DAYS: "12" }, { now: () => NOW })) as SimulatedMarketSource;
    opened.push(source);
    // Whole blocks of minutes: the history starts at most a block before the twelve days.
    expect(source.historyStart).toBeLessThanOrEqual(NOW - 12 * 86_400_000);
    expect(source.historyStart).toBeGreaterThan(NOW - 13 * 86_400_000);
    const [first] = await source.candles("binance", "1h", { start: 0, limit: 1 });
    expect(first.time).toBeGreaterThanOrEqual(source.historyStart);
    for (const bad of ["9", "366", "1.5", "a year", "-14"]) {
      expect(() => marketHistoryDays({ MARKET_HISTORY_DAYS: bad }), bad).toThrow(MarketConfigError);
      await expect(createMarketSource({ MARKET_HISTORY_DAYS: bad }), bad).rejects.toThrow(/MARKET_HISTORY_DAYS/);
    }
  });
});

describe("coherence", () => {
  it("liquidationTotals equals the sums of the liquidations it does not list, to the last bit", async () => {
    const source = simulated(21, () => NOW);
    for (const [since, until] of [
      [NOW - 86_400_000, undefined],
      [NOW - 4 * 3_600_000, NOW - 3_600_000],
      [NOW - 72 * 3_600_000, NOW + 3_600_000],
      [NOW - 60_000, NOW - 60_000],
    ] as const) {
      const events = await source.liquidations(since, until);
      const totals = await source.liquidationTotals(since, until);
      expect(totals).toEqual(totalLiquidations(events));
      // As the endpoints summed them before: one side at a time, in time order.
      const side = (s: string) => events.filter((e) => e.side === s).reduce((sum, e) => sum + e.valueUsd, 0);
      expect(totals).toEqual({ longUsd: side("SELL"), shortUsd: side("BUY"), count: events.length });
    }
    expect((await source.liquidationTotals(NOW - 86_400_000)).count).toBeGreaterThan(100);
  });

  it("a venue's ticker price is its newest 1m close; every timeframe aggregates the same minutes", async () => {
    const source = simulated(21, () => NOW);
    for (const venue of VENUES) {
      const ticker = await source.ticker(venue);
      const [minute] = await source.candles(venue, "1m", { limit: 1 });
      expect(ticker.price).toBe(minute.close);
      expect(ticker.bid).toBeLessThanOrEqual(ticker.price);
      expect(ticker.ask).toBeGreaterThanOrEqual(ticker.price);
    }
    const hours = await source.candles("coinbase", "1h", { limit: 30 });
    const hour = hours.at(-3)!;
    const minutes = await source.candles("coinbase", "1m", { start: hour.time, end: hour.time + 3_600_000 });
    expect(minutes).toHaveLength(60);
    expect(minutes[0].open).toBe(hour.open);
    expect(minutes.at(-1)!.close).toBe(hour.close);
    expect(Math.max(...minutes.map((m) => m.high))).toBe(hour.high);
    expect(Math.min(...minutes.map((m) => m.low))).toBe(hour.low);
    expect(minutes.reduce((s, m) => s + m.volume, 0)).toBeCloseTo(hour.volume, 2);
    for (let i = 1; i < minutes.length; i++) expect(minutes[i].open).toBe(minutes[i - 1].close);
    const [day] = await source.candles("coinbase", "1d", { start: Date.parse("2026-11-20T00:00:00Z"), end: Date.parse("2026-11-21T00:00:00Z") });
    const dayHours = await source.candles("coinbase", "1h", { start: day.time, end: day.time + 86_400_000 });
    expect(dayHours).toHaveLength(24);
    expect(day.close).toBe(dayHours.at(-1)!.close);
    expect(day.high).toBe(Math.max(...dayHours.map((h) => h.high)));
    // The in-progress candle of each timeframe closes at the current price.
    const price = (await source.ticker("coinbase")).price;
    for (const tf of TIMEFRAMES) expect((await source.candles("coinbase", tf, { limit: 1 }))[0].close).toBe(price);
  });

  it("venues trade within a few basis points of each other", async () => {
    const source = simulated(21, () => NOW);
    const prices = await Promise.all(VENUES.map(async (v) => (await source.ticker(v)).price));
    expect((Math.max(...prices) - Math.min(...prices)) / Math.min(...prices)).toBeLessThan(0.003);
  });

  it("large liquidations fire where the heatmap showed a cluster of that side the minute before", async () => {
    let clock = NOW;
    const source = simulated(21, () => clock);
    let checked = 0;
    for (let i = 0; i < 24 * 60 && checked < 5; i++) {
      const before = await source.liquidationHeatmap();
      clock += 60_000;
      const fired = (await source.liquidations(clock - 60_000, clock)).filter((e) => e.valueUsd > 50_000);
      // Clusters opened at this hour's boundary are not on the previous minute's map.
      if (new Date(clock).getUTCMinutes() === 0) continue;
      for (const event of fired) {
        const near = before.buckets.filter((b) => b.priceLow - before.bucketSizeUsd <= event.price && event.price < b.priceHigh + before.bucketSizeUsd);
        const shown = near.some((b) => (event.side === "SELL" ? b.longLiquidationUsd : b.shortLiquidationUsd) > 0);
        expect(shown, `${event.side} ${event.valueUsd} at ${event.price}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  }, 120_000);

  it("poll delivers each liquidation once, when its time has come, and it is in liquidations()", async () => {
    let clock = NOW;
    const source = simulated(21, () => clock);
    const seen: string[] = [];
    const unsubscribe = source.onLiquidation((e) => {
      expect(e.time).toBeLessThanOrEqual(clock);
      seen.push(e.id);
    });
    for (let i = 0; i < 120; i++) {
      clock += 15_000;
      source.poll();
    }
    unsubscribe();
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    const listed = (await source.liquidations(NOW + 1)).map((e) => e.id);
    expect(listed).toEqual(seen);
  });

  it("a wall is confirmed after resting 5 minutes; candidates only when asked", async () => {
    const source = simulated(21, () => NOW);
    const all = await source.orderBookWalls({ includeCandidates: true });
    const confirmed = await source.orderBookWalls();
    expect(confirmed.every((w) => w.confirmed && NOW - w.firstSeen >= 5 * 60_000 - 60_000)).toBe(true);
    expect(all.length).toBeGreaterThanOrEqual(confirmed.length);
    for (const wall of confirmed) {
      const book = await source.orderBook(wall.venue, 200);
      const levels = wall.side === "bid" ? book.bids : book.asks;
      expect(levels.find((l) => l.price === wall.price)!.size).toBeGreaterThanOrEqual(wall.size);
    }
  });

  it("balance history of a corpus address agrees with the transfers that touch it; outside the corpus it is untracked", async () => {
    const source = simulated(21, () => NOW);
    const { tracked, points } = await source.balanceHistory("34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo", 10);
    expect(tracked).toBe(true);
    expect(points).toHaveLength(10);
    const [from, to] = [points.at(-2)!, points.at(-1)!];
    const whales = await source.whaleTransfers(from.time - 1);
    const day = whales.available ? whales.data.filter((t) => t.time < to.time && t.time >= from.time) : [];
    // Transfers are applied by the hour they start in: those of the last hour before midnight land that day too.
    const delta = day.reduce(
      (s, t) =>
        s +
        (t.to.address === "34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo" ? t.amountBtc : 0) -
        (t.from.address === "34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo" ? t.amountBtc : 0),
      0,
    );
    expect(to.balanceBtc - from.balanceBtc).toBeCloseTo(delta, 2);
    expect(await source.balanceHistory("bc1qunknownaddressunknownaddress000000", 10)).toEqual({ tracked: false, points: [] });
  });
});

describe("the year of history", () => {
  it("visits every regime and keeps the price in a plausible range", async () => {
    const source = simulated(21, () => NOW, 365);
    const seen = new Set<string>();
    for (let t = NOW - 365 * 86_400_000; t < NOW; t += 4 * 3_600_000) seen.add(source.path.regimeAt(t));
    expect([...seen].sort()).toEqual(["capitulation", "deleveraging", "leveraged_rally", "quiet", "trending_down", "trending_up"]);
    const days = await source.candles("binance", "1d", { limit: 365 });
    expect(days).toHaveLength(365);
    for (const d of days) {
      expect(d.low).toBeGreaterThan(15_000);
      expect(d.high).toBeLessThan(400_000);
      expect(d.low).toBeLessThanOrEqual(Math.min(d.open, d.close));
    }
  }, 120_000);
});
