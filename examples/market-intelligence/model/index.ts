// Which market the API serves: `MARKET_SOURCE=simulated` (the default: a seeded market, MARKET_SEED)
// or `live` (public, key-less exchange and data APIs). The live adapters load only when chosen.
import type { MarketSource } from "./types.ts";
import { SimulatedMarketSource } from "./simulated/index.ts";
import { seedFrom } from "./simulated/random.ts";

export class MarketConfigError extends Error {}

export interface MarketSourceOptions {
  /** The clock (tests inject one). */
  now?: () => number;
}

/** The seed a MARKET_SEED value gives (a number, or any text hashed); 21 when unset. */
export function marketSeed(env: Record<string, string | undefined>): number {
  return seedFrom(env.MARKET_SEED);
}

/** Longest backfill (days): the hourly candles' and states' retention keeps no more than a year and a month. */
export const MAX_HISTORY_DAYS = 365;

/**
 * MARKET_HISTORY_DAYS: how many days of history the simulated market prepares and the recorder
 * backfills on a cold start (a whole number, 10 to 365, default 365). A shorter backfill starts the
 * origin sooner (development, tests of the wiring); below 10 days the history endpoints' examples
 * (200 hourly candles) could not be answered. With the live source it bounds the recorder's first backfill.
 */
export function marketHistoryDays(env: Record<string, string | undefined>): number {
  const raw = env.MARKET_HISTORY_DAYS?.trim();
  if (!raw) return MAX_HISTORY_DAYS;
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days < 10 || days > MAX_HISTORY_DAYS)
    throw new MarketConfigError(`MARKET_HISTORY_DAYS must be a whole number of days from 10 to ${MAX_HISTORY_DAYS}, got "${raw}"`);
  return days;
}

/**
 * MARKET_CLOCK_SPEED: how many times faster than real time the simulated market runs from the moment
 * the origin starts (a number from 1 to 1,000, default 1, real time). A demo or a test of the streams
 * sees a minute of market, with its liquidations, in a fraction of a minute; answers then quote a
 * market instant ahead of the wall clock. Ignored by the live source.
 */
export function marketClockSpeed(env: Record<string, string | undefined>): number {
  const raw = env.MARKET_CLOCK_SPEED?.trim();
  if (!raw) return 1;
  const speed = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || speed < 1 || speed > 1_000)
    throw new MarketConfigError(`MARKET_CLOCK_SPEED must be a number from 1 to 1000 (times real time), got "${raw}"`);
  return speed;
}

/** A clock that starts at `base()`'s now and runs `speed` times as fast. */
export function acceleratedClock(speed: number, base: () => number = Date.now): () => number {
  const start = base();
  return speed === 1 ? base : () => start + (base() - start) * speed;
}

/** Creates the source `MARKET_SOURCE` names; an unknown name, or a live source not available, is a config error. */
export async function createMarketSource(env: Record<string, string | undefined>, options: MarketSourceOptions = {}): Promise<MarketSource> {
  const kind = env.MARKET_SOURCE || "simulated";
  if (kind === "simulated")
    return new SimulatedMarketSource({
      seed: marketSeed(env),
      now: acceleratedClock(marketClockSpeed(env), options.now),
      backfillDays: marketHistoryDays(env),
    });
  if (kind === "live") {
    // A variable path keeps the bundlers and the type checker from requiring the module before it exists.
    const modulePath = "./live/index.ts";
    let live: { createLiveMarketSource?: (env: Record<string, string | undefined>, options: MarketSourceOptions) => MarketSource | Promise<MarketSource> };
    try {
      live = await import(/* @vite-ignore */ modulePath);
    } catch (err) {
      throw new MarketConfigError(
        `MARKET_SOURCE=live: the live market source is not available in this build (${err instanceof Error ? err.message : String(err)}); use MARKET_SOURCE=simulated`,
      );
    }
    if (typeof live.createLiveMarketSource !== "function")
      throw new MarketConfigError("MARKET_SOURCE=live: ./live/index.ts exports no createLiveMarketSource(env, options)");
    try {
      return await live.createLiveMarketSource(env, options);
    } catch (err) {
      // The live adapters' own configuration errors (an upstream URL that is not one) read as ours.
      if (err instanceof Error && /ConfigError$/.test(err.constructor.name)) throw new MarketConfigError(`MARKET_SOURCE=live: ${err.message}`);
      throw err;
    }
  }
  throw new MarketConfigError(`MARKET_SOURCE must be "simulated" or "live", got "${kind}"`);
}

export type { MarketSource };
