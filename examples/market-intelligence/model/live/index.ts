// The live `MarketSource`: the same vocabulary as the simulation, read from public, key-less APIs
// (docs/market-live-source.md). Candles, tickers and books come from the five spot venues; funding,
// open interest and liquidations from Binance USDⓈ-M futures; options from Deribit; mempool from
// mempool.space; fear & greed from alternative.me; stablecoins from DefiLlama. What has no key-less
// upstream answers `available: false` with a reason. Upstream failures: `Availability` methods give
// `available: false` with the reason, the others throw `UpstreamUnavailableError` (a 503 at the origin).
import type { Availability, EntityLabel, MarketSource, OrderBook, Venue } from "../types.ts";
import { VENUES } from "../types.ts";
import { fetchFunding, fetchOpenInterest, LiquidationStream } from "./binance-futures.ts";
import { ruleBasedEvents } from "./calendar.ts";
import { fetchOptionsSummary } from "./deribit.ts";
import { allSettledOrThrow, availability, UpstreamUnavailableError, type UpstreamName } from "./errors.ts";
import { fetchFearGreed } from "./fear-greed.ts";
import { estimateHeatmap, HEATMAP_ENTRY_HOURS } from "./heatmap.ts";
import { fetchMempool, fetchNetworkFigures, type NetworkFigures } from "./mempool.ts";
import { binanceSpot, bitstamp, coinbaseExchange, kraken, okx, type SpotVenueAdapter } from "./spot-venues.ts";
import { fetchStablecoins } from "./stablecoins.ts";
import { UpstreamClient } from "./upstream-client.ts";
import { DEFAULT_WALL_RULES, WallTracker, type WallRules } from "./walls.ts";

export { isUpstreamUnavailableError, UpstreamUnavailableError, upstreamUnavailableAnswer } from "./errors.ts";
export type { UpstreamName } from "./errors.ts";
export type { NetworkFigures } from "./mempool.ts";

/** Each upstream's base URL: the environment variable that overrides it and the real host it defaults to. */
export const LIVE_UPSTREAM_URLS = {
  binance: { variable: "MARKET_LIVE_BINANCE_URL", default: "https://api.binance.com" },
  coinbase: { variable: "MARKET_LIVE_COINBASE_URL", default: "https://api.exchange.coinbase.com" },
  kraken: { variable: "MARKET_LIVE_KRAKEN_URL", default: "https://api.kraken.com" },
  bitstamp: { variable: "MARKET_LIVE_BITSTAMP_URL", default: "https://www.bitstamp.net" },
  okx: { variable: "MARKET_LIVE_OKX_URL", default: "https://www.okx.com" },
  "binance-futures": { variable: "MARKET_LIVE_BINANCE_FUTURES_URL", default: "https://fapi.binance.com" },
  "binance-futures-ws": { variable: "MARKET_LIVE_BINANCE_FUTURES_WS_URL", default: "wss://fstream.binance.com" },
  deribit: { variable: "MARKET_LIVE_DERIBIT_URL", default: "https://www.deribit.com" },
  "mempool.space": { variable: "MARKET_LIVE_MEMPOOL_URL", default: "https://mempool.space" },
  "alternative.me": { variable: "MARKET_LIVE_FEAR_GREED_URL", default: "https://api.alternative.me" },
  defillama: { variable: "MARKET_LIVE_STABLECOINS_URL", default: "https://stablecoins.llama.fi" },
} as const;
export type LiveUpstreamKey = keyof typeof LIVE_UPSTREAM_URLS;

export class LiveSourceConfigError extends Error {}

export interface LiveSourceConfig {
  urls: Record<LiveUpstreamKey, string>;
  timeoutMs: number;
  wallPollMs: number;
}

/** Reads the `MARKET_LIVE_*` variables; a malformed one is an error naming it. */
export function liveSourceConfig(env: Readonly<Record<string, string | undefined>>): LiveSourceConfig {
  const urls = {} as Record<LiveUpstreamKey, string>;
  for (const [key, { variable, default: fallback }] of Object.entries(LIVE_UPSTREAM_URLS) as Array<[LiveUpstreamKey, { variable: string; default: string }]>) {
    const value = env[variable] || fallback;
    let protocol: string;
    try {
      protocol = new URL(value).protocol;
    } catch {
      throw new LiveSourceConfigError(`${variable} must be an absolute URL, got "${value}"`);
    }
    const allowed = key === "binance-futures-ws" ? ["ws:", "wss:"] : ["http:", "https:"];
    if (!allowed.includes(protocol)) throw new LiveSourceConfigError(`${variable} must be a ${allowed.join(" or ")} URL, got "${value}"`);
    urls[key] = value;
  }
  const number = (variable: string, fallback: number, min: number) => {
    const raw = env[variable];
    const value = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min) throw new LiveSourceConfigError(`${variable} must be an integer ≥ ${min}, got "${raw}"`);
    return value;
  };
  return { urls, timeoutMs: number("MARKET_LIVE_TIMEOUT_MS", 8_000, 100), wallPollMs: number("MARKET_LIVE_WALL_POLL_MS", 15_000, 0) };
}

export interface LiveSourceOptions {
  now?: () => number;
  /** The curated address corpus the simulation uses, when the origin has one: the live source has no on-chain upstream of its own. */
  corpus?: {
    entity(address: string): EntityLabel | null;
    balanceHistory?(address: string, days: number): { tracked: boolean; points: Array<{ time: number; balanceBtc: number }> };
  };
  /** Connect the liquidation stream at creation (default true); otherwise on the first `onLiquidation`. */
  connectStream?: boolean;
  reconnectBaseMs?: number;
  /** First backoff of a failing upstream that names no Retry-After. */
  baseBackoffMs?: number;
  wallRules?: Partial<WallRules>;
  onStreamError?: (error: Error) => void;
}

/** Book depth read for wall detection (per side; Binance weight 25, OKX's maximum is 400). */
export const WALL_BOOK_DEPTH = 500;
/** The `available: false` reason of every figure no key-less upstream offers. */
const NOT_OFFERED = "not offered by the live source";

export interface LiveMarketSource extends MarketSource {
  /** Each upstream's current state (blocked or not, and why) and the liquidation stream's. */
  upstreamStatus(): Record<string, { available: boolean; reason?: string }>;
  /**
   * The ecosystem endpoint's network figures from mempool.space (hashrate, difficulty, next adjustment,
   * Lightning totals); `available: false` with the reason when mempool.space is throttled or down.
   */
  networkEcosystem(): Promise<Availability<NetworkFigures>>;
  /** One wall poll of the venues (default all) now; the background poller calls it every `MARKET_LIVE_WALL_POLL_MS`. */
  pollWalls(venues?: readonly Venue[]): Promise<void>;
}

export function createLiveMarketSource(env: Readonly<Record<string, string | undefined>>, options: LiveSourceOptions = {}): LiveMarketSource {
  const config = liveSourceConfig(env);
  const now = options.now ?? Date.now;
  const client = (name: UpstreamName, key: LiveUpstreamKey, weightHeader?: { name: string; limit: number }) =>
    new UpstreamClient({ name, baseUrl: config.urls[key], timeoutMs: config.timeoutMs, now, weightHeader, baseBackoffMs: options.baseBackoffMs });
  const clients = {
    binance: client("binance", "binance", { name: "x-mbx-used-weight-1m", limit: 6000 }),
    coinbase: client("coinbase", "coinbase"),
    kraken: client("kraken", "kraken"),
    bitstamp: client("bitstamp", "bitstamp"),
    okx: client("okx", "okx"),
    futures: client("binance-futures", "binance-futures", { name: "x-mbx-used-weight-1m", limit: 2400 }),
    deribit: client("deribit", "deribit"),
    mempool: client("mempool.space", "mempool.space"),
    fearGreed: client("alternative.me", "alternative.me"),
    stablecoins: client("defillama", "defillama"),
  };
  const venues: Record<Venue, SpotVenueAdapter> = {
    binance: binanceSpot(clients.binance, now),
    coinbase: coinbaseExchange(clients.coinbase, now),
    kraken: kraken(clients.kraken, now),
    bitstamp: bitstamp(clients.bitstamp, now),
    okx: okx(clients.okx, now),
  };
  const walls = new WallTracker({ ...DEFAULT_WALL_RULES, ...options.wallRules });
  const stream = new LiquidationStream({
    baseUrl: config.urls["binance-futures-ws"],
    now,
    reconnectBaseMs: options.reconnectBaseMs,
    onError: options.onStreamError,
  });
  if (options.connectStream ?? true) stream.start();

  const pollWalls = async (which: readonly Venue[] = VENUES) => {
    await Promise.all(
      which.map(async (venue) => {
        let book: OrderBook;
        try {
          book = await venues[venue].orderBook(WALL_BOOK_DEPTH);
        } catch (error) {
          if (error instanceof UpstreamUnavailableError) return; // a venue down skips its poll; its walls wait for the next
          throw error;
        }
        walls.observe(book, now());
      }),
    );
  };
  const poller = config.wallPollMs > 0 ? setInterval(() => void pollWalls().catch(() => undefined), config.wallPollMs) : null;
  poller?.unref();

  const notOffered = async () => ({ available: false as const, reason: NOT_OFFERED });

  return {
    kind: "live",
    now,
    candles: (venue, timeframe, query = {}) => venues[venue].candles(timeframe, query),
    ticker: (venue) => venues[venue].ticker(),
    orderBook: (venue, depth = 100) => venues[venue].orderBook(Math.max(1, Math.min(WALL_BOOK_DEPTH, depth))),
    async orderBookWalls(query = {}) {
      await pollWalls(query.venue ? [query.venue] : VENUES);
      return walls.active(query);
    },
    funding: () => fetchFunding(clients.futures),
    openInterest: () => fetchOpenInterest(clients.futures),
    async liquidations(since, until = now() + 1) {
      return stream.between(since, until);
    },
    onLiquidation: (listener) => stream.subscribe(listener),
    async liquidationHeatmap() {
      const [interest, funding, hourly] = await allSettledOrThrow([
        fetchOpenInterest(clients.futures),
        fetchFunding(clients.futures),
        venues.binance.candles("1h", { limit: HEATMAP_ENTRY_HOURS }),
      ]);
      return estimateHeatmap({ openInterestUsd: interest.valueUsd, referencePrice: funding.markPrice, hourly, time: now() });
    },
    options: () => availability(() => fetchOptionsSummary(clients.deribit, now())),
    cmeBasis: notOffered,
    exchangeReserves: notOffered,
    whaleTransfers: notOffered,
    async entity(address) {
      return options.corpus?.entity(address) ?? null;
    },
    async balanceHistory(address, days) {
      return options.corpus?.balanceHistory?.(address, days) ?? { tracked: false, points: [] };
    },
    valuation: notOffered,
    mempool: () => availability(() => fetchMempool(clients.mempool, now())),
    networkEcosystem: () => availability(() => fetchNetworkFigures(clients.mempool, now())),
    macro: notOffered,
    stablecoins: () => availability(() => fetchStablecoins(clients.stablecoins, now())),
    fearGreed: (days) => availability(() => fetchFearGreed(clients.fearGreed, days)),
    async upcomingEvents(horizonDays) {
      return ruleBasedEvents(now(), horizonDays);
    },
    regime: () => null,
    upstreamStatus() {
      const out: Record<string, { available: boolean; reason?: string }> = {};
      for (const upstream of Object.values(clients)) {
        const status = upstream.status();
        out[upstream.name] = status.available ? { available: true } : { available: false, reason: status.reason };
      }
      const live = stream.status();
      out["binance-futures-stream"] = live.connected
        ? { available: true }
        : { available: false, reason: `disconnected${live.lastError ? ` (${live.lastError})` : ""}; reconnecting` };
      return out;
    },
    pollWalls,
    async close() {
      if (poller) clearInterval(poller);
      await stream.stop();
    },
  };
}
