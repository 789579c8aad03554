// The slower series of the simulated market, each a pure function of the seed and the day (or the
// 10-minute slot) over the same block chain: macro prices that co-move with bitcoin by a drifting
// correlation, stablecoin supply, the fear & greed index, mempool fees, the ecosystem figures and
// the events calendar.
import type { EcosystemMetrics, FearGreed, MacroSeries, MarketEvent, MempoolState, Stablecoin } from "../types.ts";
import { BLOCK_MS, SIM_EPOCH, type MarketPath } from "./market-path.ts";
import { STREAM, gaussian, hash32, seededRandom, unit } from "./random.ts";

export const DAY_MS = 86_400_000;
const BLOCKS_PER_DAY = DAY_MS / BLOCK_MS;

/** Macro series: start value, daily volatility of log value, mean correlation with bitcoin's daily return. */
export const MACRO = {
  DXY: { start: 101.3, sigma: 0.0035, rho: -0.25 },
  SPX: { start: 4_770, sigma: 0.009, rho: 0.35 },
  NDX: { start: 16_800, sigma: 0.012, rho: 0.4 },
  GOLD: { start: 2_063, sigma: 0.009, rho: 0.1 },
  US10Y: { start: 3.88, sigma: 0.011, rho: -0.1 },
} as const;
export const STABLECOINS = {
  USDT: { start: 91.7e9, growth: 0.0006 },
  USDC: { start: 24.4e9, growth: 0.0007 },
  DAI: { start: 5.3e9, growth: -0.0002 },
  FDUSD: { start: 1.9e9, growth: 0.0006 },
} as const;

const HALVING_2024 = Date.UTC(2024, 3, 20, 0, 9, 27);

/** Block height at an instant: 840,000 at the April 2024 halving, one block per 10 minutes since. */
export function blockHeight(time: number): number {
  return 840_000 + Math.floor((time - HALVING_2024) / 600_000);
}
/** Coins in circulation at a height (3.125 BTC per block since 840,000). */
export function circulatingSupply(height: number): number {
  return height >= 840_000 ? 19_687_500 + (height - 840_000) * 3.125 : 19_687_500 - (840_000 - height) * 6.25;
}

export function classifyFearGreed(value: number): FearGreed["classification"] {
  if (value < 25) return "Extreme Fear";
  if (value < 45) return "Fear";
  if (value <= 55) return "Neutral";
  if (value <= 75) return "Greed";
  return "Extreme Greed";
}

export class Series {
  private readonly macroDays: Record<string, number[]> = Object.fromEntries(Object.keys(MACRO).map((k) => [k, [] as number[]]));
  private readonly stableDays: Record<string, number[]> = Object.fromEntries(Object.keys(STABLECOINS).map((k) => [k, [] as number[]]));

  constructor(
    private readonly path: MarketPath,
    private readonly seed: number,
  ) {}

  /** Bitcoin's log return over day d (from the block anchors at 00:00 UTC). */
  private btcReturn(day: number): number {
    return Math.log(this.path.anchorPrice((day + 1) * BLOCKS_PER_DAY) / this.path.anchorPrice(day * BLOCKS_PER_DAY));
  }

  private ensureDays(day: number) {
    const names = Object.keys(MACRO) as Array<keyof typeof MACRO>;
    for (let d = this.macroDays.DXY.length; d <= day; d++) {
      const weekday = new Date(SIM_EPOCH + d * DAY_MS).getUTCDay();
      const btc = this.btcReturn(Math.max(0, d - 1));
      names.forEach((name, i) => {
        const { start, sigma, rho } = MACRO[name];
        const prev = d === 0 ? start : this.macroDays[name][d - 1];
        // Markets close at weekends: the value holds.
        if (d > 0 && (weekday === 0 || weekday === 6)) return void (this.macroDays[name][d] = prev);
        const random = seededRandom(hash32(this.seed, STREAM.macro, i, d));
        const monthRho = Math.max(-0.95, Math.min(0.95, rho + 0.5 * (unit(this.seed, STREAM.macro, 100 + i, Math.floor(d / 30)) - 0.5)));
        const z = (monthRho * btc) / 0.03 + Math.sqrt(1 - monthRho * monthRho) * gaussian(random);
        // A weak pull toward the start keeps a multi-year run in a plausible range.
        this.macroDays[name][d] = prev * Math.exp(sigma * z + 0.004 * Math.log(start / prev));
      });
      (Object.keys(STABLECOINS) as Array<keyof typeof STABLECOINS>).forEach((name, i) => {
        const { start, growth } = STABLECOINS[name];
        const prev = d === 0 ? start : this.stableDays[name][d - 1];
        const random = seededRandom(hash32(this.seed, STREAM.stablecoins, i, d));
        this.stableDays[name][d] = prev * (1 + growth + 0.04 * btc + 0.0015 * gaussian(random));
      });
    }
  }

  /** Daily closes of each macro series for the last `days` days up to `time`, oldest first, with BTC's. */
  macro(days: number, time: number): MacroSeries {
    const today = Math.floor((time - SIM_EPOCH) / DAY_MS);
    this.ensureDays(today);
    const out: MacroSeries = {};
    for (const name of Object.keys(MACRO)) {
      out[name] = [];
      for (let d = Math.max(0, today - days + 1); d <= today; d++) out[name].push({ time: SIM_EPOCH + d * DAY_MS, value: round(this.macroDays[name][d], 4) });
    }
    out.BTC = [];
    for (let d = Math.max(0, today - days + 1); d <= today; d++)
      out.BTC.push({ time: SIM_EPOCH + d * DAY_MS, value: round(this.path.anchorPrice(d * BLOCKS_PER_DAY), 2) });
    return out;
  }

  stablecoins(time: number): Stablecoin[] {
    const today = Math.floor((time - SIM_EPOCH) / DAY_MS);
    this.ensureDays(today);
    return Object.keys(STABLECOINS).map((symbol) => {
      const series = this.stableDays[symbol];
      return {
        symbol,
        time: SIM_EPOCH + today * DAY_MS,
        supplyUsd: Math.round(series[today]),
        change7dPct: round((series[today] / series[Math.max(0, today - 7)] - 1) * 100, 3),
      };
    });
  }

  /** The fear & greed index of a day: momentum, volatility and leverage, as the public index weighs them. */
  fearGreedOfDay(day: number): FearGreed {
    const momentum = Math.log(this.path.anchorPrice(day * BLOCKS_PER_DAY) / this.path.anchorPrice(Math.max(0, day - 14) * BLOCKS_PER_DAY));
    const returns = Array.from({ length: 7 }, (_, i) => this.btcReturn(Math.max(0, day - 1 - i)));
    const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
    const vol = Math.sqrt(returns.reduce((a, r) => a + (r - mean) ** 2, 0) / returns.length);
    const leverage = this.path.leverageAt(SIM_EPOCH + day * DAY_MS);
    const noise = 5 * gaussian(seededRandom(hash32(this.seed, STREAM.sentiment, day)));
    const value = Math.round(Math.max(1, Math.min(99, 52 + 220 * momentum + 28 * (leverage - 0.45) - 500 * (vol - 0.025) + noise)));
    return { time: SIM_EPOCH + day * DAY_MS, value, classification: classifyFearGreed(value) };
  }

  fearGreed(days: number, time: number): FearGreed[] {
    const today = Math.floor((time - SIM_EPOCH) / DAY_MS);
    return Array.from({ length: Math.min(days, today + 1) }, (_, i) => this.fearGreedOfDay(today - Math.min(days, today + 1) + 1 + i));
  }

  /** Fees per 10-minute slot: calm at a few sat/vB, spiking when the market panics. */
  mempool(time: number, regimeFactor: number): MempoolState {
    const slot = Math.floor(time / 600_000);
    const random = seededRandom(hash32(this.seed, STREAM.mempool, slot));
    const fastest = Math.max(2, Math.round(Math.exp(Math.log(6) + 0.55 * gaussian(random)) * regimeFactor));
    const txCount = Math.round(18_000 + 60_000 * random() * regimeFactor);
    return {
      time,
      fastestFee: fastest,
      halfHourFee: Math.max(1, Math.round(fastest * 0.85)),
      hourFee: Math.max(1, Math.round(fastest * 0.7)),
      economyFee: Math.max(1, Math.round(fastest * 0.45)),
      minimumFee: 1,
      txCount,
      vsize: Math.round(txCount * (240 + 80 * random())),
      blockHeight: blockHeight(time),
    };
  }

  /** Ecosystem figures, throttled upstream in about one 15-minute slot in eight. */
  ecosystem(time: number): { available: true; data: EcosystemFigures } | { available: false; reason: string } {
    const slot = Math.floor(time / 900_000);
    if (unit(this.seed, STREAM.ecosystem, slot) < 0.125) {
      const retry = new Date((slot + 1) * 900_000).toISOString();
      return { available: false, reason: `upstream provider rate-limited this API (HTTP 429, simulated); figures return after ${retry}` };
    }
    const day = Math.floor((time - SIM_EPOCH) / DAY_MS);
    const random = seededRandom(hash32(this.seed, STREAM.ecosystem, day, 1));
    const years = (time - SIM_EPOCH) / (365 * DAY_MS);
    const hashrate = 520 * (1 + 0.45 * years) * (1 + 0.04 * gaussian(random));
    const height = blockHeight(time);
    return {
      available: true,
      data: {
        time,
        hashrateEhs: round(hashrate, 1),
        // difficulty = hashrate × 600 s / 2^32
        difficulty: Math.round((hashrate * 1e18 * 600) / 2 ** 32 / 1e9) * 1e9,
        blocksToAdjustment: 2016 - (height % 2016),
        nextAdjustmentPct: round(2.5 * gaussian(random), 2),
        lightningCapacityBtc: Math.round(4_900 + 300 * Math.sin(years * 3) + 60 * gaussian(random)),
        lightningNodes: Math.round(13_500 - 800 * years + 150 * gaussian(random)),
        lightningChannels: Math.round(48_000 - 2_000 * years + 500 * gaussian(random)),
        spotEtfNetFlowUsd: Math.round(1e8 * gaussian(random) + 2e8 * (this.path.leverageAt(time) - 0.4)),
      },
    };
  }

  /** The calendar: FOMC decisions, CPI and payrolls, options and futures expiries, difficulty adjustments. */
  events(from: number, horizonDays: number, height: number): MarketEvent[] {
    const until = from + horizonDays * DAY_MS;
    const out: MarketEvent[] = [];
    const add = (time: number, title: string, kind: MarketEvent["kind"], importance: MarketEvent["importance"]) => {
      if (time >= from && time < until) out.push({ id: `${kind}-${new Date(time).toISOString().slice(0, 16)}`, time, title, kind, importance });
    };
    for (const date of FOMC_DECISIONS) add(Date.parse(`${date}T18:00:00Z`), "FOMC rate decision", "macro", "high");
    const start = new Date(from);
    for (let m = 0; m <= Math.ceil(horizonDays / 28) + 1; m++) {
      const year = start.getUTCFullYear();
      const month = start.getUTCMonth() + m;
      add(Date.UTC(year, month, 12, 13, 30), "US CPI release", "macro", "high");
      add(Date.UTC(year, month, firstWeekday(year, month, 5), 13, 30), "US nonfarm payrolls", "macro", "medium");
      const lastFriday = lastWeekday(year, month, 5);
      const quarterly = (((month % 12) + 12) % 12) % 3 === 2;
      add(
        Date.UTC(year, month, lastFriday, 8),
        quarterly ? "Deribit quarterly options expiry" : "Deribit monthly options expiry",
        "options_expiry",
        quarterly ? "high" : "medium",
      );
      add(Date.UTC(year, month, lastFriday, 15), "CME bitcoin futures expiry", "futures_expiry", "medium");
    }
    for (let d = 0; d <= horizonDays; d++) {
      const day = new Date(from + d * DAY_MS);
      if (day.getUTCDay() !== 5) continue;
      const date = day.getUTCDate();
      const isLast = date + 7 > new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0)).getUTCDate();
      if (!isLast) add(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), date, 8), "Deribit weekly options expiry", "options_expiry", "low");
    }
    const nextAdjustment = height + (2016 - (height % 2016));
    add(from + (nextAdjustment - height) * 600_000, `Difficulty adjustment at block ${nextAdjustment}`, "protocol", "low");
    const halving = 1_050_000;
    add(from + (halving - height) * 600_000, "Bitcoin halving (block 1,050,000, estimated)", "protocol", "high");
    return out.sort((a, b) => a.time - b.time);
  }
}

export type EcosystemFigures = EcosystemMetrics;

/** Published FOMC decision days (the second day of each meeting). */
const FOMC_DECISIONS = [
  "2025-01-29",
  "2025-03-19",
  "2025-05-07",
  "2025-06-18",
  "2025-07-30",
  "2025-09-17",
  "2025-10-29",
  "2025-12-10",
  "2026-01-28",
  "2026-03-18",
  "2026-04-29",
  "2026-06-17",
  "2026-07-29",
  "2026-09-16",
  "2026-10-28",
  "2026-12-09",
  "2027-01-27",
  "2027-03-17",
  "2027-04-28",
  "2027-06-09",
  "2027-07-28",
  "2027-09-22",
  "2027-10-27",
  "2027-12-08",
];

function firstWeekday(year: number, month: number, weekday: number): number {
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((weekday - first + 7) % 7);
}
function lastWeekday(year: number, month: number, weekday: number): number {
  const last = new Date(Date.UTC(year, month + 1, 0));
  return last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7);
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
