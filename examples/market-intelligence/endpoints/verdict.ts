// GET /v1/verdict (15 sats): the verdict engine's last compute. `view=full` (default) carries the
// ranked evidence and the headline; `view=summary` only the enums, scalars and `changed`, with a
// weak ETag that changes only on a transition: `If-None-Match` with it answers 304 and no body.
// Rules: docs/market-verdict.md; what the gateway does with the 304: the same file, "ETag and 304".
import { z } from "zod";
import { jsonEndpoint, responseMeta, responseMetaSchema } from "../endpoint.ts";
import { BIASES, RISK_LEVELS, VERDICT_STATES } from "../analytics/verdict/classify.ts";
import type { VerdictEngine } from "../analytics/verdict/engine.ts";
import { VERDICT_PERSISTENCE } from "../analytics/verdict/engine.ts";
import { fullView, matchesIfNoneMatch, summaryView, verdictEtag } from "../analytics/verdict/view.ts";
import type { MarketSource } from "../model/types.ts";

export interface VerdictDeps {
  source: MarketSource;
  verdict: VerdictEngine;
}

const enums = { state: z.enum(VERDICT_STATES), bias: z.enum(BIASES), risk: z.enum(RISK_LEVELS) };
const enumsSchema = z.object(enums);

const changedSchema = z
  .object({
    fields: z.array(z.enum(["state", "bias", "risk"])).describe("The enums that flipped"),
    from: enumsSchema,
    to: enumsSchema,
    at: z.iso.datetime().describe("The compute at which the new reading had persisted long enough"),
    after_computes: z.number().int().describe(`Consecutive computes the new reading held before the flip (${VERDICT_PERSISTENCE})`),
    held_computes: z.number().int().describe("How many computes the previous verdict was published for"),
    compute: z.number().int(),
  })
  .nullable()
  .describe("The last transition; null until the first one since the origin started");

const summaryShape = {
  ...enums,
  bias_score: z.number().min(-1).max(1).describe("Weighted mean of the evidence signals, −1 bearish … 1 bullish"),
  confidence: z.number().min(0).max(1).describe("data_completeness × agreement of the evidence"),
  conviction: z.number().min(0).max(1).describe("min(1, |bias_score| / 0.5) × confidence"),
  changed: changedSchema,
};

const evidenceSchema = z.object({
  id: z.string(),
  category: z.enum(["derivatives", "spot", "onchain", "sentiment", "risk"]),
  endpoint: z.string().describe("The endpoint whose answer shows the figure"),
  available: z.boolean(),
  signal: z.number().min(-1).max(1),
  weight: z.number(),
  contribution: z.number().describe("Signed share of bias_score; the list is ranked by its magnitude"),
  risk: z.number().min(0).max(1).nullable(),
  value: z.record(z.string(), z.union([z.number(), z.string(), z.null()])),
  summary: z.string(),
});

const fullSchema = z.object({
  view: z.literal("full"),
  ...summaryShape,
  data_completeness: z.number().min(0).max(1),
  risk_score: z.number().nullable(),
  reading: enumsSchema.describe("This compute's raw reading, before the 3-compute hysteresis"),
  pending: z.array(z.object({ field: z.enum(["state", "bias", "risk"]), reading: z.string(), computes: z.number().int(), needed: z.number().int() })),
  evidence: z.array(evidenceSchema),
  headline: z.string().describe("Templated prose; not part of the stable contract"),
  computed_at: z.iso.datetime(),
  meta: responseMetaSchema,
});

const summarySchema = z.object({ view: z.literal("summary"), ...summaryShape, meta: responseMetaSchema });

export const verdictEndpoint = jsonEndpoint({
  path: "/v1/verdict",
  price: 15,
  summary: "The market verdict: state, bias, risk, evidence and the last transition",
  description: `Computed every minute from derivatives, spot, on-chain, sentiment and risk evidence. state, bias and risk flip only after a new reading persists for ${VERDICT_PERSISTENCE} consecutive computes. view=summary answers the enums, scalars and \`changed\` with a weak ETag that changes only on a transition; send it back in If-None-Match to get 304 Not Modified (no body) while nothing changed.`,
  params: z.strictObject({
    view: z
      .enum(["full", "summary"])
      .default("full")
      .describe("full (default): with evidence and headline; summary: enums, scalars and changed, with a weak ETag"),
  }),
  response: z.discriminatedUnion("view", [fullSchema, summarySchema]),
  example: { view: "summary" },
  handle: async (deps: VerdictDeps, { view }, request) => {
    const verdict = await deps.verdict.ready();
    const meta = responseMeta(deps.source, { computed_at: verdict.computed_at, computes: verdict.computes });
    if (view === "full") return { status: 200, body: { view, ...fullView(verdict), meta } };
    const etag = verdictEtag(verdict);
    // Revalidate every time: a cache may keep the answer but must ask before reusing it.
    const headers = { etag, "cache-control": "no-cache", "access-control-expose-headers": "ETag" };
    if (matchesIfNoneMatch(request.headers["if-none-match"], etag)) return { status: 304, body: null, headers };
    return { status: 200, body: { view, ...summaryView(verdict), meta }, headers };
  },
});

export const verdictEndpoints = [verdictEndpoint];
