// GET /v1/sentiment/overview, /v1/events/upcoming and /v1/ecosystem/metrics: the crowd's mood (fear
// & greed, funding, positioning), the calendar that moves markets, and the network's figures (which
// answer `available: false` with a reason while the upstream provider throttles us).
import { z } from "zod";
import { jsonEndpoint } from "../endpoint.ts";
import { availabilityBody, availabilitySchema, iso, isoSchema, noParams, ok, round, withMeta, type CoreDeps } from "./common.ts";

const classification = z.enum(["Extreme Fear", "Fear", "Neutral", "Greed", "Extreme Greed"]);

const overview = jsonEndpoint({
  path: "/v1/sentiment/overview",
  price: 3,
  summary: "Fear & greed, funding and positioning sentiment",
  description:
    "The fear & greed index (0 extreme fear … 100 extreme greed) with its last 7 days, funding and positioning read as sentiment, and one composite score from −1 (fearful) to +1 (greedy).",
  params: noParams,
  response: withMeta({
    fear_greed: z
      .object({
        value: z.number().int(),
        classification,
        change_7d: z.number().int(),
        history: z.array(z.object({ date: isoSchema, value: z.number().int(), classification })),
      })
      .nullable(),
    funding_sentiment: z.enum(["bullish", "neutral", "bearish"]),
    positioning_crowding: z.enum(["longs_crowded", "shorts_crowded", "balanced"]),
    composite_score: z.number().describe("−1 fearful … +1 greedy"),
    label: z.enum(["fearful", "cautious", "neutral", "optimistic", "greedy"]),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const [fg, funding, pos] = await Promise.all([deps.source.fearGreed(8), deps.source.funding(), deps.positioning.current()]);
    const history = fg.available ? fg.data : [];
    const latest = history.at(-1);
    const fundingScore = Math.max(-1, Math.min(1, funding.rate / 0.0003));
    const fgScore = latest ? (latest.value - 50) / 50 : 0;
    const crowdScore = pos.crowding === "longs_crowded" ? 0.5 : pos.crowding === "shorts_crowded" ? -0.5 : 0;
    const score = round(0.55 * fgScore + 0.3 * fundingScore + 0.15 * crowdScore, 3);
    return ok({
      fear_greed: latest
        ? {
            value: latest.value,
            classification: latest.classification,
            change_7d: latest.value - history[0].value,
            history: history.slice(-7).map((p) => ({ date: iso(p.time), value: p.value, classification: p.classification })),
          }
        : null,
      funding_sentiment: funding.rate > 0.0002 ? "bullish" : funding.rate < 0 ? "bearish" : "neutral",
      positioning_crowding: pos.crowding,
      composite_score: score,
      label: score <= -0.5 ? "fearful" : score < -0.15 ? "cautious" : score <= 0.15 ? "neutral" : score < 0.5 ? "optimistic" : "greedy",
    });
  },
});

/** Days ahead the calendar lists. */
export const EVENTS_HORIZON_DAYS = 30;

const events = jsonEndpoint({
  path: "/v1/events/upcoming",
  price: 3,
  summary: "Market-moving events of the next 30 days",
  description:
    "FOMC decisions, US CPI and payrolls, Deribit options expiries (weekly, monthly, quarterly), CME futures expiries, the next difficulty adjustment and the halving estimate, soonest first. Macro release times follow the usual schedule (CPI around the 12th, payrolls the first Friday).",
  params: noParams,
  response: withMeta({
    horizon_days: z.number().int(),
    events: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        kind: z.enum(["macro", "options_expiry", "futures_expiry", "protocol", "earnings", "other"]),
        importance: z.enum(["low", "medium", "high"]),
        time: isoSchema,
        in_hours: z.number(),
      }),
    ),
    next_high_importance: z.object({ title: z.string(), time: isoSchema }).nullable(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    const now = deps.source.now();
    const list = await deps.source.upcomingEvents(EVENTS_HORIZON_DAYS);
    const high = list.find((e) => e.importance === "high");
    return ok({
      horizon_days: EVENTS_HORIZON_DAYS,
      events: list.map((e) => ({
        id: e.id,
        title: e.title,
        kind: e.kind,
        importance: e.importance,
        time: iso(e.time),
        in_hours: round((e.time - now) / 3_600_000, 1),
      })),
      next_high_importance: high ? { title: high.title, time: iso(high.time) } : null,
    });
  },
});

const ecosystem = jsonEndpoint({
  path: "/v1/ecosystem/metrics",
  price: 3,
  summary: "Hashrate, difficulty, Lightning and ETF flows",
  description:
    "Network hashrate and difficulty with the next adjustment, Lightning Network capacity, nodes and channels, and the last day's net spot-ETF flow. When the upstream provider rate-limits us the answer is `available: false` with the reason (still a 200), never an error.",
  params: noParams,
  response: availabilitySchema({
    hashrate_ehs: z.number(),
    difficulty: z.number(),
    blocks_to_adjustment: z.number().int(),
    next_adjustment_pct: z.number(),
    lightning: z.object({ capacity_btc: z.number(), nodes: z.number().int(), channels: z.number().int() }),
    spot_etf_net_flow_usd: z.number(),
  }),
  example: {},
  handle: async (deps: CoreDeps) => {
    if (!deps.source.ecosystem) return ok({ available: false, reason: `the ${deps.source.kind} source offers no ecosystem figures` });
    return ok(
      availabilityBody(await deps.source.ecosystem(), (e) => ({
        hashrate_ehs: e.hashrateEhs,
        difficulty: e.difficulty,
        blocks_to_adjustment: e.blocksToAdjustment,
        next_adjustment_pct: e.nextAdjustmentPct,
        lightning: { capacity_btc: e.lightningCapacityBtc, nodes: e.lightningNodes, channels: e.lightningChannels },
        spot_etf_net_flow_usd: e.spotEtfNetFlowUsd,
      })),
    );
  },
});

export const sentimentEndpoints = [overview];
export const eventsEndpoints = [events];
export const ecosystemEndpoints = [ecosystem];
export { overview as sentimentOverviewEndpoint, events as eventsEndpoint };
