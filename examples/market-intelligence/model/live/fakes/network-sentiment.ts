// Fakes of mempool.space (`/api/v1/fees/recommended`, `/api/mempool`, `/api/blocks/tip/height`,
// `/api/v1/difficulty-adjustment`, `/api/v1/mining/hashrate/3d`, `/api/v1/lightning/statistics/latest`),
// alternative.me's Fear & Greed (`/fng/?limit=N`, newest first, strings) and DefiLlama's stablecoins
// (`/stablecoins`), each in its documented shape.
import { startHttpFake, type HttpFake } from "./http-fake.ts";
import type { FakeMarket } from "./fake-market.ts";

export const FAKE_TIP_HEIGHT = 872_345;
/** The fake's current hashrate, H/s (745 EH/s). */
export const FAKE_HASHRATE_HS = 7.45e20;

export async function startMempoolFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    const wave = Math.round(Math.abs(Math.sin(market.now() / 600_000)) * 10);
    switch (url.pathname) {
      case "/api/v1/fees/recommended":
        return { body: { fastestFee: 12 + wave, halfHourFee: 9 + wave, hourFee: 7 + wave, economyFee: 3, minimumFee: 1 } };
      case "/api/mempool":
        return {
          body: {
            count: 41_234 + wave,
            vsize: 38_456_789,
            total_fee: 123_456_789,
            fee_histogram: [
              [25.1, 120_000],
              [12.0, 950_000],
              [3.2, 4_000_000],
            ],
          },
        };
      case "/api/blocks/tip/height":
        return { body: String(FAKE_TIP_HEIGHT) };
      case "/api/v1/difficulty-adjustment":
        return {
          body: {
            progressPercent: 61.31,
            difficultyChange: 2.84,
            estimatedRetargetDate: market.now() + 5 * 86_400_000,
            remainingBlocks: 780,
            remainingTime: 5 * 86_400_000,
            previousRetarget: -1.23,
            previousTime: Math.floor(market.now() / 1000) - 9 * 86_400,
            nextRetargetHeight: FAKE_TIP_HEIGHT + 780,
            timeAvg: 583_000,
            adjustedTimeAvg: 583_000,
            timeOffset: 0,
            expectedBlocks: 1236.5,
          },
        };
      case "/api/v1/mining/hashrate/3d":
        return {
          body: {
            hashrates: [{ timestamp: Math.floor(market.now() / 86_400_000) * 86_400, avgHashrate: 7.1e20 }],
            difficulty: [{ time: Math.floor(market.now() / 1000) - 9 * 86_400, height: FAKE_TIP_HEIGHT - 1236, difficulty: 1.02e14, adjustment: 0.98 }],
            currentHashrate: FAKE_HASHRATE_HS,
            currentDifficulty: 1.02e14,
          },
        };
      case "/api/v1/lightning/statistics/latest": {
        const latest = {
          id: 1,
          added: new Date(market.now()).toISOString(),
          channel_count: 52_000,
          node_count: 13_500,
          total_capacity: 520_000_000_000,
          tor_nodes: 9000,
          clearnet_nodes: 2500,
          unannounced_nodes: 600,
          avg_capacity: 10_000_000,
          avg_fee_rate: 500,
          avg_base_fee_mtokens: 900,
          med_capacity: 2_000_000,
          med_fee_rate: 60,
          med_base_fee_mtokens: 1000,
          clearnet_tor_nodes: 1400,
        };
        return { body: { latest, previous: { ...latest, id: 0, channel_count: 51_900 } } };
      }
      default:
        return { status: 404, body: "Not Found" };
    }
  });
}

/** alternative.me's bands for `value_classification`. */
export function fearGreedClass(value: number): string {
  return value <= 24 ? "Extreme Fear" : value <= 46 ? "Fear" : value <= 54 ? "Neutral" : value <= 75 ? "Greed" : "Extreme Greed";
}

export async function startFearGreedFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    if (url.pathname !== "/fng/" && url.pathname !== "/fng") return { status: 404, body: "Not Found" };
    const raw = url.searchParams.get("limit") ?? "1";
    const limit = Number(raw);
    if (!Number.isInteger(limit) || limit < 0) return { body: { name: "Fear and Greed Index", data: [], metadata: { error: "Invalid limit" } } };
    const today = Math.floor(market.now() / 86_400_000) * 86_400_000;
    const count = limit === 0 ? 2000 : limit;
    const data = Array.from({ length: count }, (_, day) => {
      const time = today - day * 86_400_000;
      const value = Math.round(50 + 45 * Math.sin(time / (9 * 86_400_000)));
      return {
        value: String(value),
        value_classification: fearGreedClass(value),
        timestamp: String(time / 1000),
        ...(day === 0 ? { time_until_update: String(Math.round((today + 86_400_000 - market.now()) / 1000)) } : {}),
      };
    });
    return { body: { name: "Fear and Greed Index", data, metadata: { error: null } } };
  });
}

export async function startStablecoinsFake(): Promise<HttpFake> {
  const asset = (id: string, name: string, symbol: string, pegType: string, supply: number, weekAgo: number) => {
    const key = pegType;
    return {
      id,
      name,
      symbol,
      gecko_id: name.toLowerCase(),
      pegType,
      priceSource: "defillama",
      pegMechanism: "fiat-backed",
      circulating: { [key]: supply },
      circulatingPrevDay: { [key]: supply * 0.999 },
      circulatingPrevWeek: { [key]: weekAgo },
      circulatingPrevMonth: { [key]: weekAgo * 0.97 },
      chainCirculating: { Ethereum: { current: { [key]: supply * 0.6 } } },
      chains: ["Ethereum", "Tron"],
      price: 1,
    };
  };
  return startHttpFake((url) => {
    if (url.pathname !== "/stablecoins") return { status: 404, body: "Not Found" };
    return {
      body: {
        peggedAssets: [
          asset("2", "USD Coin", "USDC", "peggedUSD", 60_000_000_000, 58_000_000_000),
          asset("1", "Tether", "USDT", "peggedUSD", 140_000_000_000, 139_000_000_000),
          asset("50", "Euro Coin", "EURC", "peggedEUR", 100_000_000, 90_000_000),
          asset("5", "Dai", "DAI", "peggedUSD", 5_000_000_000, 5_100_000_000),
        ],
      },
    };
  });
}
