// GET /v1/market/intelligence (12 sats): one call composing the other endpoints' answers, section by
// section, through a registry. A section names the endpoint behind it and how to call it; adding one
// (the technical indicators, the verdict) is one line in INTELLIGENCE_SECTIONS.
//
// Parameters (spec 2 §4.2 rule 2): `sources` picks sections (default all), `detail` full (default)
// or summary, `include_meta` defaults to true for full and false for summary (an explicit value
// wins), and `exchange` is passed to the sections that take one. `summary` leaves out the individual
// whale transactions (and any other long lists a section marks) and the per-section meta.
import { z } from "zod";
import { exchangeParam, jsonEndpoint, type EndpointRequest, type JsonEndpoint } from "../endpoint.ts";
import type { Venue } from "../model/types.ts";
import { ok, withMeta, type CoreDeps } from "./common.ts";
import { derivativesOverviewEndpoint, liquidationsEndpoint, positioningEndpoint } from "./derivatives.ts";
import { correlationsEndpoint } from "./macro.ts";
import { snapshotEndpoint } from "./market.ts";
import { exchangeReservesEndpoint, onchainMetricsEndpoint, valuationEndpoint } from "./onchain.ts";
import { eventsEndpoint, sentimentOverviewEndpoint } from "./sentiment.ts";
import { indicatorsEndpoint } from "./technical.ts";
import { verdictEndpoint } from "./verdict.ts";

/** One section: the endpoint it calls, its query for a request, and what `summary` drops from it. */
export interface IntelligenceSection {
  name: string;
  // The handler's deps are whatever the server holds: sections of other groups need their own.
  endpoint: JsonEndpoint<never, z.ZodType>;
  query(context: { exchange: Venue }): Record<string, string>;
  /** Top-level keys left out of the section under detail=summary (long lists). */
  summaryOmits?: string[];
}

export function section(
  name: string,
  endpoint: JsonEndpoint<never, z.ZodType>,
  query: IntelligenceSection["query"] = () => ({}),
  summaryOmits: string[] = [],
): IntelligenceSection {
  return { name, endpoint, query, summaryOmits };
}

/** The sections in answer order. The technical and verdict groups add theirs here at merge. */
export const INTELLIGENCE_SECTIONS: IntelligenceSection[] = [
  section("market", snapshotEndpoint as never, ({ exchange }) => ({ exchange })),
  section("derivatives", derivativesOverviewEndpoint as never),
  section("positioning", positioningEndpoint as never),
  section("liquidations", liquidationsEndpoint as never, () => ({ window_hours: "4" }), ["events"]),
  section("onchain", onchainMetricsEndpoint as never, () => ({}), ["whale_transactions"]),
  section("exchange_reserves", exchangeReservesEndpoint as never),
  section("valuation", valuationEndpoint as never),
  section("sentiment", sentimentOverviewEndpoint as never),
  section("macro", correlationsEndpoint as never),
  section("events", eventsEndpoint as never, () => ({}), ["events"]),
  section("technical", indicatorsEndpoint as never, ({ exchange }) => ({ exchange })),
  section("verdict", verdictEndpoint as never, () => ({ view: "full" }), ["evidence"]),
];

export function sectionNames(): string[] {
  return INTELLIGENCE_SECTIONS.map((s) => s.name);
}

const sourcesParam = z
  .string()
  .max(500)
  .optional()
  .describe(
    `Comma-separated sections, default all: ${"market, derivatives, positioning, liquidations, onchain, exchange_reserves, valuation, sentiment, macro, events"} (and technical, verdict when offered)`,
  )
  .transform((value, ctx) => {
    if (value === undefined || value.trim() === "") return sectionNames();
    const names = [
      ...new Set(
        value
          .split(",")
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      ),
    ];
    const unknown = names.filter((n) => !sectionNames().includes(n));
    if (unknown.length) {
      ctx.addIssue({ code: "custom", message: `unknown section${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; known: ${sectionNames().join(", ")}` });
      return z.NEVER;
    }
    return names;
  });

const intelligence = jsonEndpoint({
  path: "/v1/market/intelligence",
  price: 12,
  summary: "Everything at once: the market, derivatives, on-chain, sentiment and macro",
  description:
    "The answers of the other endpoints in one call, one section each. `sources` picks sections; `detail=summary` leaves out long lists (individual whale transactions, liquidation events) and, unless include_meta=true, each section's meta. A section whose source fails is listed in `unavailable` instead of failing the call.",
  params: z.strictObject({
    sources: sourcesParam,
    detail: z.enum(["full", "summary"]).default("full").describe("full (default) or summary"),
    include_meta: z.stringbool().optional().describe("Per-section meta; default true for detail=full, false for summary"),
    exchange: exchangeParam,
  }),
  response: withMeta({
    detail: z.enum(["full", "summary"]),
    exchange: z.string(),
    sections: z.record(z.string(), z.record(z.string(), z.unknown())).describe("One object per section, named as in `sources`; each is that endpoint's answer"),
    unavailable: z.array(z.object({ section: z.string(), reason: z.string() })),
  }),
  example: { sources: "market,derivatives,sentiment", detail: "full", exchange: "binance" },
  handle: async (deps: CoreDeps, params, request: EndpointRequest) => {
    const includeMeta = params.include_meta ?? params.detail === "full";
    const chosen = INTELLIGENCE_SECTIONS.filter((s) => params.sources.includes(s.name));
    const sections: Record<string, Record<string, unknown>> = {};
    const unavailable: Array<{ section: string; reason: string }> = [];
    await Promise.all(
      chosen.map(async (s) => {
        try {
          const query = s.endpoint.params.parse(s.query({ exchange: params.exchange }));
          const answer = await (s.endpoint as JsonEndpoint<CoreDeps, z.ZodType>).handle(deps, query, request);
          if ((answer.status ?? 200) !== 200) throw new Error(`answered ${answer.status}`);
          const body = { ...(answer.body as Record<string, unknown>) };
          if (params.detail === "summary") for (const key of s.summaryOmits ?? []) delete body[key];
          if (includeMeta) body.meta = { endpoint: s.endpoint.path, price_sats: s.endpoint.price, ...(body.meta as object | undefined) };
          else delete body.meta;
          sections[s.name] = body;
        } catch (err) {
          unavailable.push({ section: s.name, reason: err instanceof Error ? err.message : String(err) });
        }
      }),
    );
    // Sections in registry order, whatever order they finished in.
    const ordered = Object.fromEntries(chosen.filter((s) => sections[s.name]).map((s) => [s.name, sections[s.name]]));
    return ok({
      detail: params.detail,
      exchange: params.exchange,
      sections: ordered,
      unavailable,
      ...(includeMeta ? { meta: { sections: Object.keys(ordered) } } : {}),
    });
  },
});

export const intelligenceEndpoints = [intelligence];
