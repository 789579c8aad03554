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

/** Creates the source `MARKET_SOURCE` names; an unknown name, or a live source not available, is a config error. */
export async function createMarketSource(env: Record<string, string | undefined>, options: MarketSourceOptions = {}): Promise<MarketSource> {
  const kind = env.MARKET_SOURCE || "simulated";
  if (kind === "simulated") return new SimulatedMarketSource({ seed: marketSeed(env), now: options.now });
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
