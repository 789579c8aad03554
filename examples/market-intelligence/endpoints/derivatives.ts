// GET /v1/derivatives/*: the perpetual (funding, open interest, liquidations and their heatmap),
// positioning (derived, refreshed every 5 minutes), options and the CME basis, and the liquidation
// SSE stream. A liquidation the stream delivers is one /v1/derivatives/liquidations lists: both read
// the source's one liquidation record.
import { z } from "zod";
import { jsonEndpoint, streamEndpoint } from "../endpoint.ts";
import { PERP_SYMBOL, totalLiquidations, type Liquidation, type LiquidationTotals, type MarketSource } from "../model/types.ts";
import { availabilityBody, availabilitySchema, iso, isoSchema, noParams, ok, round, withMeta, type CoreDeps } from "./common.ts";

const DAY_MS = 86_400_000;

export const liquidationEventSchema = z.object({
  id: z.string(),
  symbol: z.literal(PERP_SYMBOL),
  side: z.enum(["BUY", "SELL"]).describe("BUY: a short was liquidated (forced buy); SELL: a long was liquidated (forced sell)"),
  size: z.number().describe("BTC"),
  price: z.number().describe("USD"),
  value_usd: z.number(),
  timestamp: isoSchema,
});

const outputs = new WeakMap<Liquidation, z.output<typeof liquidationEventSchema>>();

/** The API shape of a liquidation, made once per event however many streams deliver it. */
export function liquidationOut(e: Liquidation): z.output<typeof liquidationEventSchema> {
  let out = outputs.get(e);
  if (!out)
    outputs.set(e, (out = { id: e.id, symbol: PERP_SYMBOL, side: e.side, size: e.size, price: e.price, value_usd: e.valueUsd, timestamp: iso(e.time) }));
  return out;
}

function sums(totals: LiquidationTotals) {
  return { long_liquidated_usd: Math.round(totals.longUsd), short_liquidated_usd: Math.round(totals.shortUsd) };
}

/** A window's totals: summed in place where the source can (the simulated day holds thousands of events). */
function liquidationTotals(source: MarketSource, since: number, until?: number): Promise<LiquidationTotals> {
  return source.liquidationTotals ? source.liquidationTotals(since, until) : source.liquidations(since, until).then(totalLiquidations);
}

const overview = jsonEndpoint({
  path: "/v1/derivatives/overview",
  price: 3,
  summary: "Perpetual funding, open interest, basis and liquidations at a glance",
  description:
    "The BTCUSDT perpetual: mark and index price, premium, funding (per 8 h and annualized), open interest and its 24 h change, the last 24 h of liquidations, and the options and CME headline figures.",
  params: noParams,
  response: withMeta({
    symbol: z.literal(PERP_SYMBOL),
    venue: z.string(),
    mark_price: z.number(),
    index_price: z.number(),
    premium_pct: z.number().describe("Mark over index, percent"),
    funding: z.object({ rate: z.number().describe("Per 8 h, fraction"), rate_pct: z.number(), annualized_pct: z.number(), next_funding_time: isoSchema }),
    open_interest: z.object({ btc: z.number(), usd: z.number(), change_24h_pct: z.number().nullable() }),
    liquidations_24h: z.object({ long_liquidated_usd: z.number(), short_liquidated_usd: z.number(), count: z.number().int() }),
    options: z.object({ atm_iv: z.number(), skew_25d: z.number(), put_call_ratio: z.number() }).nullable(),
    cme_annualized_basis_pct: z.number().nullable(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const source = deps.source;
    const now = source.now();
    const [funding, oi, liquidations, options, cme, positioning] = await Promise.all([
      source.funding(),
      source.openInterest(),
      liquidationTotals(source, now - DAY_MS),
      source.options(),
      source.cmeBasis(),
      deps.positioning.current(),
    ]);
    return ok({
      symbol: PERP_SYMBOL,
      venue: funding.venue,
      mark_price: funding.markPrice,
      index_price: funding.indexPrice,
      premium_pct: round((funding.markPrice / funding.indexPrice - 1) * 100, 4),
      funding: {
        rate: funding.rate,
        rate_pct: round(funding.rate * 100, 5),
        annualized_pct: round(funding.rate * 3 * 365 * 100, 2),
        next_funding_time: iso(funding.nextFundingTime),
      },
      open_interest: { btc: oi.size, usd: oi.valueUsd, change_24h_pct: positioning.open_interest_change_24h_pct },
      liquidations_24h: { ...sums(liquidations), count: liquidations.count },
      options: options.available ? { atm_iv: options.data.atmIv, skew_25d: options.data.skew25d, put_call_ratio: options.data.putCallRatio } : null,
      cme_annualized_basis_pct: cme.available ? cme.data.annualizedBasisPct : null,
    });
  },
});

const positioning = jsonEndpoint({
  path: "/v1/derivatives/positioning",
  price: 3,
  summary: "Derived trader positioning (refreshed every 5 minutes)",
  description:
    "Long/short split, top-trader ratio, taker buy/sell ratio, estimated leverage ratio and crowding, derived from funding, open interest and taker flow (is_derived: true). Computed in the background every 5 minutes; refreshed_at says when.",
  params: noParams,
  response: withMeta({
    is_derived: z.literal(true),
    refreshed_at: isoSchema,
    next_refresh_at: isoSchema,
    refresh_interval_seconds: z.literal(300),
    long_short_ratio: z.number(),
    long_pct: z.number(),
    short_pct: z.number(),
    top_trader_long_short_ratio: z.number(),
    taker_buy_sell_ratio: z.number(),
    leverage_ratio: z.number().nullable().describe("Open interest / exchange reserves"),
    open_interest_change_24h_pct: z.number(),
    funding_rate: z.number(),
    crowding: z.enum(["longs_crowded", "shorts_crowded", "balanced"]),
    method: z.string(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const { slot: _slot, ...snapshot } = await deps.positioning.current();
    return ok({
      is_derived: true,
      refresh_interval_seconds: 300,
      ...snapshot,
      method: "Derived from funding (who pays whom), open interest and the taker buy/sell volume of the last hour; not an exchange's account ratio.",
    });
  },
});

const options = jsonEndpoint({
  path: "/v1/derivatives/options",
  price: 3,
  summary: "BTC options: implied volatility, skew, put/call, max pain",
  description: "At-the-money implied volatility, 25-delta skew, put/call open interest ratio and, per expiry, max pain and open interest (Deribit).",
  params: noParams,
  response: availabilitySchema({
    venue: z.string(),
    atm_iv: z.number().describe("Fraction: 0.55 = 55 %"),
    skew_25d: z.number().describe("25-delta call IV minus put IV; negative: puts bid"),
    put_call_ratio: z.number(),
    open_interest_btc: z.number(),
    expiries: z.array(
      z.object({
        expiry: isoSchema,
        days_to_expiry: z.number(),
        max_pain: z.number(),
        call_open_interest: z.number(),
        put_open_interest: z.number(),
        put_call_ratio: z.number(),
        atm_iv: z.number(),
      }),
    ),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const now = deps.source.now();
    return ok(
      availabilityBody(await deps.source.options(), (o) => ({
        venue: o.venue,
        atm_iv: o.atmIv,
        skew_25d: o.skew25d,
        put_call_ratio: o.putCallRatio,
        open_interest_btc: o.openInterestBtc,
        expiries: o.expiries.map((e) => ({
          expiry: iso(e.expiry),
          days_to_expiry: round((e.expiry - now) / DAY_MS, 2),
          max_pain: e.maxPain,
          call_open_interest: e.callOpenInterest,
          put_open_interest: e.putOpenInterest,
          put_call_ratio: round(e.putOpenInterest / e.callOpenInterest, 3),
          atm_iv: e.atmIv,
        })),
      })),
    );
  },
});

const cmeBasis = jsonEndpoint({
  path: "/v1/derivatives/cme-basis",
  price: 3,
  summary: "CME bitcoin futures basis",
  description: "The CME front-month contract's price against spot, in USD, percent and annualized.",
  params: noParams,
  response: availabilitySchema({
    contract: z.string(),
    expiry: isoSchema,
    days_to_expiry: z.number(),
    futures_price: z.number(),
    spot_price: z.number(),
    basis_usd: z.number(),
    basis_pct: z.number(),
    annualized_basis_pct: z.number(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const now = deps.source.now();
    return ok(
      availabilityBody(await deps.source.cmeBasis(), (c) => ({
        contract: c.contract,
        expiry: iso(c.expiry),
        days_to_expiry: round((c.expiry - now) / DAY_MS, 2),
        futures_price: c.futuresPrice,
        spot_price: c.spotPrice,
        basis_usd: c.basisUsd,
        basis_pct: round((c.basisUsd / c.spotPrice) * 100, 4),
        annualized_basis_pct: c.annualizedBasisPct,
      })),
    );
  },
});

/** Most events one liquidations answer lists (newest first); the sums cover the whole window. */
export const MAX_LIQUIDATION_EVENTS = 1_000;

const liquidations = jsonEndpoint({
  path: "/v1/derivatives/liquidations",
  price: 3,
  summary: "Forced liquidations of the last hours",
  description: `Liquidations of the BTCUSDT perpetual in the last window_hours (0.1 to 72, default 4): totals by side, the largest, and the events newest first (at most ${MAX_LIQUIDATION_EVENTS}). SELL = a long was liquidated, BUY = a short.`,
  params: z.strictObject({
    window_hours: z.coerce.number().min(0.1).max(72).default(4).describe("Hours back from now, 0.1 to 72, default 4"),
  }),
  response: withMeta({
    symbol: z.literal(PERP_SYMBOL),
    window_hours: z.number(),
    since: isoSchema,
    until: isoSchema,
    count: z.number().int(),
    long_liquidated_usd: z.number(),
    short_liquidated_usd: z.number(),
    largest: liquidationEventSchema.nullable(),
    truncated: z.boolean().describe("True when more events happened than are listed"),
    events: z.array(liquidationEventSchema),
  }),
  example: { window_hours: "4" },
  handle: async (deps: CoreDeps, params) => {
    const now = deps.source.now();
    const since = now - params.window_hours * 3_600_000;
    const events = await deps.source.liquidations(since, now + 1);
    const largest = events.reduce<Liquidation | null>((a, e) => (!a || e.valueUsd > a.valueUsd ? e : a), null);
    return ok({
      symbol: PERP_SYMBOL,
      window_hours: params.window_hours,
      since: iso(since),
      until: iso(now),
      count: events.length,
      ...sums(totalLiquidations(events)),
      largest: largest ? liquidationOut(largest) : null,
      truncated: events.length > MAX_LIQUIDATION_EVENTS,
      events: events.slice(-MAX_LIQUIDATION_EVENTS).reverse().map(liquidationOut),
    });
  },
});

const bucketSchema = z.object({ price_low: z.number(), price_high: z.number(), long_liquidation_usd: z.number(), short_liquidation_usd: z.number() });

const heatmap = jsonEndpoint({
  path: "/v1/derivatives/liquidation-heatmap",
  price: 3,
  summary: "Where leveraged positions would be liquidated",
  description:
    "Estimated liquidation value by price band (±12 % around the price): longs liquidate below, shorts above. Clusters come from the positions opened over the last 7 days at 10x–100x and not yet liquidated; when price trades through one, its liquidations appear in /v1/derivatives/liquidations.",
  params: noParams,
  response: withMeta({
    symbol: z.literal(PERP_SYMBOL),
    reference_price: z.number(),
    bucket_size_usd: z.number(),
    total_long_liquidation_usd: z.number(),
    total_short_liquidation_usd: z.number(),
    largest_long_cluster: bucketSchema.nullable(),
    largest_short_cluster: bucketSchema.nullable(),
    buckets: z.array(bucketSchema),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const map = await deps.source.liquidationHeatmap();
    const buckets = map.buckets.map((b) => ({
      price_low: b.priceLow,
      price_high: b.priceHigh,
      long_liquidation_usd: b.longLiquidationUsd,
      short_liquidation_usd: b.shortLiquidationUsd,
    }));
    const largest = (key: "long_liquidation_usd" | "short_liquidation_usd") =>
      buckets.reduce<(typeof buckets)[number] | null>((a, b) => (b[key] > 0 && (!a || b[key] > a[key]) ? b : a), null);
    return ok({
      symbol: map.symbol,
      reference_price: map.referencePrice,
      bucket_size_usd: map.bucketSizeUsd,
      total_long_liquidation_usd: buckets.reduce((s, b) => s + b.long_liquidation_usd, 0),
      total_short_liquidation_usd: buckets.reduce((s, b) => s + b.short_liquidation_usd, 0),
      largest_long_cluster: largest("long_liquidation_usd"),
      largest_short_cluster: largest("short_liquidation_usd"),
      buckets,
    });
  },
});

export const streamHelloSchema = z.object({
  stream: z.enum(["simulated", "live"]).describe("The active source"),
  endpoint: z.string(),
  keepalive_seconds: z.number(),
  events: z.array(z.string()).describe("The data event names this stream sends"),
  filters: z.record(z.string(), z.unknown()),
  connected_at: isoSchema,
});

/** Seconds between keep-alive comment frames on every stream (the origin server writes them). */
export const KEEPALIVE_SECONDS = 15;

/**
 * One answer object per liquidation for all of the stream's subscribers: the origin serializes an
 * event's data once per object (sseFrame), so a fan-out to a thousand subscribers stringifies once.
 */
const streamed = new WeakMap<Liquidation, z.output<typeof liquidationEventSchema>>();
function streamedLiquidation(event: Liquidation) {
  let out = streamed.get(event);
  if (!out) streamed.set(event, (out = liquidationOut(event)));
  return out;
}

const liquidationStream = streamEndpoint({
  path: "/v1/derivatives/liquidations/stream",
  price: 100,
  passMinutes: 60,
  summary: "Live liquidations (SSE)",
  description:
    "An SSE stream of BTCUSDT liquidations as they happen: first a `hello` event naming the source, then a `liquidation` event per forced order of at least min_size_usd, and a `: keep-alive` comment every 15 s. Paid as a time_pass: reconnecting with the session token is free until the pass ends; then the gateway sends `payment_required`.",
  params: z.strictObject({
    min_size_usd: z.coerce.number().min(0).max(1_000_000_000).default(0).describe("Only liquidations of at least this USD value, default 0 (all)"),
  }),
  events: { hello: streamHelloSchema, liquidation: liquidationEventSchema },
  example: { min_size_usd: "10000" },
  open: (deps: CoreDeps, params, sink) => {
    sink.event("hello", {
      stream: deps.source.kind,
      endpoint: "/v1/derivatives/liquidations/stream",
      keepalive_seconds: KEEPALIVE_SECONDS,
      events: ["liquidation"],
      filters: { min_size_usd: params.min_size_usd },
      connected_at: iso(deps.source.now()),
    });
    return deps.source.onLiquidation((event) => {
      if (event.valueUsd >= params.min_size_usd) sink.event("liquidation", streamedLiquidation(event), event.id);
    });
  },
});

export const derivativesEndpoints = [overview, positioning, options, cmeBasis, liquidations, heatmap, liquidationStream];
export { overview as derivativesOverviewEndpoint, positioning as positioningEndpoint, liquidations as liquidationsEndpoint };
