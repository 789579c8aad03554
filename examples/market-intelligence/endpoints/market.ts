// GET /v1/market/snapshot, /v1/market/multi_exchange, /v1/market/order-book-walls: the spot market
// of the five venues. A snapshot's price is the close of the venue's newest 1m candle (which it
// also returns), so it can be checked against any candle the API serves.
import { z } from "zod";
import { exchangeParam, jsonEndpoint } from "../endpoint.ts";
import { VENUES, type Venue } from "../model/types.ts";
import { ok, iso, isoSchema, noParams, round, withMeta, type CoreDeps } from "./common.ts";

const candleSchema = z.object({
  time: isoSchema.describe("Open time"),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number().describe("BTC"),
});

export const snapshotResponse = withMeta({
  exchange: z.enum(VENUES),
  symbol: z.literal("BTC-USD"),
  price: z.number().describe("Last price, USD: the close of `last_candle`"),
  bid: z.number(),
  ask: z.number(),
  spread_usd: z.number(),
  spread_bps: z.number(),
  change_24h_pct: z.number(),
  high_24h: z.number(),
  low_24h: z.number(),
  volume_24h_btc: z.number(),
  last_candle: candleSchema.describe("The venue's newest 1m candle (in progress)"),
  regime: z.string().nullable().describe("The simulated market's regime; null for live data"),
});

export async function snapshotBody(deps: CoreDeps, exchange: Venue) {
  const [ticker, minutes, hours] = await Promise.all([
    deps.source.ticker(exchange),
    deps.source.candles(exchange, "1m", { limit: 1 }),
    deps.source.candles(exchange, "1h", { limit: 25 }),
  ]);
  const last = minutes.at(-1)!;
  const day = hours.filter((c) => c.time > deps.source.now() - 86_400_000 - 3_600_000);
  return {
    exchange,
    symbol: "BTC-USD" as const,
    price: last.close,
    bid: ticker.bid,
    ask: ticker.ask,
    spread_usd: round(ticker.ask - ticker.bid, 2),
    spread_bps: round(((ticker.ask - ticker.bid) / ticker.price) * 10_000, 3),
    change_24h_pct: round(ticker.change24hPct, 3),
    high_24h: Math.max(...day.map((c) => c.high)),
    low_24h: Math.min(...day.map((c) => c.low)),
    volume_24h_btc: round(ticker.volume24h, 4),
    last_candle: { ...last, time: iso(last.time) },
    regime: deps.source.regime(),
  };
}

const snapshot = jsonEndpoint({
  path: "/v1/market/snapshot",
  price: 3,
  summary: "Spot snapshot of one venue",
  description: "Last price, best bid and ask, spread, 24 h change, range and volume of BTC-USD on one venue, with its newest 1m candle.",
  params: z.strictObject({ exchange: exchangeParam }),
  response: snapshotResponse,
  example: { exchange: "binance" },
  handle: async (deps: CoreDeps, params) => ok(await snapshotBody(deps, params.exchange)),
});

const venueRow = z.object({
  exchange: z.enum(VENUES),
  price: z.number(),
  bid: z.number(),
  ask: z.number(),
  spread_bps: z.number(),
  premium_bps: z.number().describe("Price over the five venues' mean, basis points"),
  change_24h_pct: z.number(),
  volume_24h_btc: z.number(),
});

const multiExchange = jsonEndpoint({
  path: "/v1/market/multi_exchange",
  price: 3,
  summary: "BTC-USD across the five venues",
  description: "Price, spread, premium over the mean and 24 h volume of every venue, the best bid and ask across them and the widest price gap.",
  params: noParams,
  response: withMeta({
    venues: z.array(venueRow),
    mean_price: z.number(),
    price_gap_usd: z.number().describe("Highest minus lowest venue price"),
    best_bid: z.object({ exchange: z.enum(VENUES), price: z.number() }),
    best_ask: z.object({ exchange: z.enum(VENUES), price: z.number() }),
    total_volume_24h_btc: z.number(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const tickers = await Promise.all(VENUES.map((v) => deps.source.ticker(v)));
    const mean = tickers.reduce((s, t) => s + t.price, 0) / tickers.length;
    const bestBid = tickers.reduce((a, b) => (b.bid > a.bid ? b : a));
    const bestAsk = tickers.reduce((a, b) => (b.ask < a.ask ? b : a));
    return ok({
      venues: tickers.map((t) => ({
        exchange: t.venue,
        price: t.price,
        bid: t.bid,
        ask: t.ask,
        spread_bps: round(((t.ask - t.bid) / t.price) * 10_000, 3),
        premium_bps: round((t.price / mean - 1) * 10_000, 2),
        change_24h_pct: round(t.change24hPct, 3),
        volume_24h_btc: round(t.volume24h, 4),
      })),
      mean_price: round(mean, 2),
      price_gap_usd: round(Math.max(...tickers.map((t) => t.price)) - Math.min(...tickers.map((t) => t.price)), 2),
      best_bid: { exchange: bestBid.venue, price: bestBid.bid },
      best_ask: { exchange: bestAsk.venue, price: bestAsk.ask },
      total_volume_24h_btc: round(
        tickers.reduce((s, t) => s + t.volume24h, 0),
        4,
      ),
    });
  },
});

export const wallSchema = z.object({
  id: z.string(),
  exchange: z.enum(VENUES),
  side: z.enum(["bid", "ask"]),
  price: z.number(),
  size_btc: z.number(),
  value_usd: z.number(),
  distance_pct: z.number().describe("From the venue's price, percent (negative below)"),
  first_seen: isoSchema,
  age_minutes: z.number(),
  status: z.enum(["confirmed", "candidate"]).describe("Confirmed once resting 5 minutes; younger walls are candidates"),
});

/** Minutes a wall must rest before it is confirmed (the simulation's and the live tracker's rule). */
export const WALL_CONFIRM_MINUTES = 5;

const orderBookWalls = jsonEndpoint({
  path: "/v1/market/order-book-walls",
  price: 3,
  summary: "Large resting orders across the five venues",
  description:
    "Walls: resting orders of at least $2M on a venue's book. Confirmed walls have rested 5 minutes; with include_candidates=true younger (unconfirmed) ones are listed too. Largest first.",
  params: z.strictObject({
    include_candidates: z.stringbool().default(false).describe("Also list unconfirmed candidates (resting under 5 minutes). Default false"),
  }),
  response: withMeta({
    walls: z.array(wallSchema),
    confirmed_count: z.number().int(),
    candidate_count: z.number().int(),
    confirmation_minutes: z.number().int(),
    bid_value_usd: z.number(),
    ask_value_usd: z.number(),
  }),
  example: { include_candidates: "true" },
  handle: async (deps: CoreDeps, params) => {
    const [walls, tickers] = await Promise.all([
      deps.source.orderBookWalls({ includeCandidates: params.include_candidates }),
      Promise.all(VENUES.map((v) => deps.source.ticker(v))),
    ]);
    const priceOf = Object.fromEntries(tickers.map((t) => [t.venue, t.price])) as Record<Venue, number>;
    const now = deps.source.now();
    const rows = walls.map((w) => ({
      id: w.id,
      exchange: w.venue,
      side: w.side,
      price: w.price,
      size_btc: w.size,
      value_usd: Math.round(w.valueUsd),
      distance_pct: round((w.price / priceOf[w.venue] - 1) * 100, 3),
      first_seen: iso(w.firstSeen),
      age_minutes: Math.floor((now - w.firstSeen) / 60_000),
      status: w.confirmed ? ("confirmed" as const) : ("candidate" as const),
    }));
    return ok({
      walls: rows,
      confirmed_count: rows.filter((r) => r.status === "confirmed").length,
      candidate_count: rows.filter((r) => r.status === "candidate").length,
      confirmation_minutes: WALL_CONFIRM_MINUTES,
      bid_value_usd: rows.filter((r) => r.side === "bid").reduce((s, r) => s + r.value_usd, 0),
      ask_value_usd: rows.filter((r) => r.side === "ask").reduce((s, r) => s + r.value_usd, 0),
    });
  },
});

export const marketEndpoints = [snapshot, multiExchange, orderBookWalls];
export { snapshot as snapshotEndpoint };
