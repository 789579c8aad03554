// GET /v1/onchain/*: entity labels of the curated address corpus, an address's balance history,
// exchange reserves and flows, whale activity, and valuation (MVRV, NUPL from the realized price).
// Unknown addresses resolve empty and untracked ones answer an empty series: never an error.
import { z } from "zod";
import { jsonEndpoint } from "../endpoint.ts";
import type { WhaleTransfer } from "../model/types.ts";
import { ADDRESS_CORPUS } from "../model/simulated/onchain.ts";
import { availabilityBody, availabilitySchema, iso, isoSchema, noParams, ok, round, withMeta, type CoreDeps } from "./common.ts";

const DAY_MS = 86_400_000;
const corpus = new Map(ADDRESS_CORPUS.map((e) => [e.address, e]));

/** A Bitcoin address as written: base58 or bech32 characters only (anything else is a 400). */
const addressParam = z
  .string()
  .min(14)
  .max(100)
  .regex(/^[A-Za-z0-9]+$/, "must be a Bitcoin address (letters and digits only)")
  .describe("A Bitcoin address (base58 or bech32)");

const entityCategory = z.enum(["exchange", "fund", "miner", "government", "custodian", "whale"]);

const entity = jsonEndpoint({
  path: "/v1/onchain/entity/{address}",
  price: 3,
  summary: "Who owns an address",
  description:
    "The entity label of an address from the curated corpus (exchange cold wallets, funds, miners, governments, custodians, known whales). An unknown address resolves empty (`resolved: false`, `entity: null`), never an error.",
  params: z.strictObject({ address: addressParam }),
  response: withMeta({
    address: z.string(),
    resolved: z.boolean(),
    entity: z
      .object({
        name: z.string(),
        category: entityCategory,
        role: z.string().nullable(),
        illustrative: z.boolean().describe("True when the corpus address is a stand-in whose exact address is not verified"),
      })
      .nullable(),
  }),
  example: { address: "34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo" },
  handle: async (deps: CoreDeps, params) => {
    const label = await deps.source.entity(params.address);
    const extra = corpus.get(params.address);
    return ok({
      address: params.address,
      resolved: label !== null,
      entity: label ? { name: label.entity, category: label.category, role: extra?.role ?? null, illustrative: extra?.illustrative ?? false } : null,
    });
  },
});

const balanceHistory = jsonEndpoint({
  path: "/v1/onchain/entity/{address}/balance-history",
  price: 3,
  summary: "Daily balance of a tracked address",
  description:
    "The balance at each day's start (00:00 UTC) over the last `days` days. An address outside the curated corpus answers an empty series with `tracked: false`.",
  params: z.strictObject({
    address: addressParam,
    days: z.coerce.number().int().min(1).max(365).default(30).describe("Days back, 1 to 365, default 30"),
  }),
  response: withMeta({
    address: z.string(),
    tracked: z.boolean(),
    entity: z.string().nullable(),
    days: z.number().int(),
    points: z.array(z.object({ date: isoSchema, balance_btc: z.number() })),
    change_btc: z.number().nullable().describe("Last minus first point; null for an empty series"),
  }),
  example: { address: "34xp4vRoCGJym3xR7yCVPFHoCNxv4Twseo", days: "30" },
  handle: async (deps: CoreDeps, params) => {
    const [history, label] = await Promise.all([deps.source.balanceHistory(params.address, params.days), deps.source.entity(params.address)]);
    const points = history.points.map((p) => ({ date: iso(p.time), balance_btc: p.balanceBtc }));
    return ok({
      address: params.address,
      tracked: history.tracked,
      entity: label?.entity ?? null,
      days: params.days,
      points,
      change_btc: points.length ? round(points.at(-1)!.balance_btc - points[0].balance_btc, 4) : null,
    });
  },
});

const reserves = jsonEndpoint({
  path: "/v1/onchain/exchange-reserves",
  price: 3,
  summary: "Bitcoin held on exchanges, and its 24 h flow",
  description: "Reserves of the large exchanges and their net flow over the last 24 h (positive: coins flowing in, usually to be sold).",
  params: noParams,
  response: availabilitySchema({
    exchanges: z.array(z.object({ exchange: z.string(), reserve_btc: z.number(), netflow_24h_btc: z.number() })),
    total_reserve_btc: z.number(),
    total_netflow_24h_btc: z.number(),
    trend: z.enum(["inflow", "outflow", "flat"]),
  }),
  example: {},
  handle: async (deps: CoreDeps) =>
    ok(
      availabilityBody(await deps.source.exchangeReserves(), (rows) => {
        const net = rows.reduce((s, r) => s + r.netflow24hBtc, 0);
        return {
          exchanges: rows.map((r) => ({ exchange: r.exchange, reserve_btc: r.reserveBtc, netflow_24h_btc: r.netflow24hBtc })),
          total_reserve_btc: round(
            rows.reduce((s, r) => s + r.reserveBtc, 0),
            2,
          ),
          total_netflow_24h_btc: round(net, 2),
          trend: net > 500 ? "inflow" : net < -500 ? "outflow" : "flat",
        };
      }),
    ),
});

export const whaleTransferSchema = z.object({
  txid: z.string(),
  time: isoSchema,
  amount_btc: z.number(),
  value_usd: z.number(),
  kind: z.enum(["exchange_inflow", "exchange_outflow", "transfer"]),
  from: z.object({ address: z.string(), entity: z.string().nullable() }),
  to: z.object({ address: z.string(), entity: z.string().nullable() }),
});

export function whaleOut(t: WhaleTransfer): z.output<typeof whaleTransferSchema> {
  return {
    txid: t.txid,
    time: iso(t.time),
    amount_btc: t.amountBtc,
    value_usd: t.valueUsd,
    kind: t.kind,
    from: { address: t.from.address, entity: t.from.entity?.entity ?? null },
    to: { address: t.to.address, entity: t.to.entity?.entity ?? null },
  };
}

/** Whale transactions one metrics answer lists (newest first). */
export const MAX_WHALE_TRANSACTIONS = 25;

const metrics = jsonEndpoint({
  path: "/v1/onchain/metrics",
  price: 3,
  summary: "Whale activity and exchange flows of the last 24 h",
  description: `Large transfers (≥ 100 BTC) of the last 24 h: counts and volume by kind (into exchanges, out of exchanges, elsewhere), the net exchange flow, and the latest ${MAX_WHALE_TRANSACTIONS} transactions with their labelled entities.`,
  params: noParams,
  response: availabilitySchema({
    window_hours: z.literal(24),
    whale_transfer_count: z.number().int(),
    whale_volume_btc: z.number(),
    exchange_inflow_btc: z.number(),
    exchange_outflow_btc: z.number(),
    net_exchange_flow_btc: z.number(),
    largest_transfer_btc: z.number().nullable(),
    whale_transactions: z.array(whaleTransferSchema),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const now = deps.source.now();
    return ok(
      availabilityBody(await deps.source.whaleTransfers(now - DAY_MS), (transfers) => {
        const volume = (kind: WhaleTransfer["kind"]) =>
          round(
            transfers.filter((t) => t.kind === kind).reduce((s, t) => s + t.amountBtc, 0),
            4,
          );
        return {
          window_hours: 24,
          whale_transfer_count: transfers.length,
          whale_volume_btc: round(
            transfers.reduce((s, t) => s + t.amountBtc, 0),
            4,
          ),
          exchange_inflow_btc: volume("exchange_inflow"),
          exchange_outflow_btc: volume("exchange_outflow"),
          net_exchange_flow_btc: round(volume("exchange_inflow") - volume("exchange_outflow"), 4),
          largest_transfer_btc: transfers.length ? Math.max(...transfers.map((t) => t.amountBtc)) : null,
          whale_transactions: transfers.slice(-MAX_WHALE_TRANSACTIONS).reverse().map(whaleOut),
        };
      }),
    );
  },
});

/** NUPL zones as on-chain analysts name them. */
function nuplZone(nupl: number): "capitulation" | "hope_fear" | "optimism_anxiety" | "belief_denial" | "euphoria_greed" {
  if (nupl < 0) return "capitulation";
  if (nupl < 0.25) return "hope_fear";
  if (nupl < 0.5) return "optimism_anxiety";
  if (nupl < 0.75) return "belief_denial";
  return "euphoria_greed";
}

const valuation = jsonEndpoint({
  path: "/v1/onchain/valuation",
  price: 3,
  summary: "MVRV, NUPL and the realized price",
  description:
    "Market value against realized value: price, realized price (the average price at which coins last moved), MVRV, NUPL and its zone, supply in profit, circulating supply.",
  params: noParams,
  response: availabilitySchema({
    price: z.number(),
    realized_price: z.number(),
    mvrv: z.number(),
    nupl: z.number(),
    zone: z.enum(["capitulation", "hope_fear", "optimism_anxiety", "belief_denial", "euphoria_greed"]),
    supply_in_profit_pct: z.number(),
    circulating_supply: z.number(),
    market_cap_usd: z.number(),
    realized_cap_usd: z.number(),
  }),
  example: {},
  handle: async (deps: CoreDeps) =>
    ok(
      availabilityBody(await deps.source.valuation(), (v) => ({
        price: v.price,
        realized_price: v.realizedPrice,
        mvrv: v.mvrv,
        nupl: v.nupl,
        zone: nuplZone(v.nupl),
        supply_in_profit_pct: round(v.supplyInProfit * 100, 2),
        circulating_supply: v.circulatingSupply,
        market_cap_usd: Math.round(v.price * v.circulatingSupply),
        realized_cap_usd: Math.round(v.realizedPrice * v.circulatingSupply),
      })),
    ),
});

const mempool = jsonEndpoint({
  path: "/v1/network/mempool",
  price: 3,
  summary: "Mempool fees and congestion",
  description: "Recommended fee rates (sat/vB) for the next block, half an hour, an hour and economy; pending transactions and their size; the block height.",
  params: noParams,
  response: availabilitySchema({
    fees_sat_vb: z.object({ fastest: z.number(), half_hour: z.number(), hour: z.number(), economy: z.number(), minimum: z.number() }),
    pending_tx_count: z.number().int(),
    pending_vsize_vb: z.number().int(),
    blocks_to_clear: z.number().describe("Pending vsize over 1 MvB blocks"),
    congestion: z.enum(["low", "medium", "high"]),
    block_height: z.number().int(),
  }),
  example: {},
  handle: async (deps: CoreDeps) =>
    ok(
      availabilityBody(await deps.source.mempool(), (m) => ({
        fees_sat_vb: { fastest: m.fastestFee, half_hour: m.halfHourFee, hour: m.hourFee, economy: m.economyFee, minimum: m.minimumFee },
        pending_tx_count: m.txCount,
        pending_vsize_vb: m.vsize,
        blocks_to_clear: round(m.vsize / 1_000_000, 1),
        congestion: m.fastestFee >= 30 ? "high" : m.fastestFee >= 10 ? "medium" : "low",
        block_height: m.blockHeight,
      })),
    ),
});

export const onchainEndpoints = [entity, balanceHistory, reserves, metrics, valuation];
export const networkEndpoints = [mempool];
export { metrics as onchainMetricsEndpoint, valuation as valuationEndpoint, reserves as exchangeReservesEndpoint };
