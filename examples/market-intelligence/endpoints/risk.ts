// GET /v1/risk/anomalies and /v1/risk/manipulation (3 sats each): the readings of
// analytics/risk.ts for one venue, against the other four. Inputs the source cannot give lower
// `data_completeness`; a manipulation risk on too few inputs is UNKNOWN, never LOW.
import { z } from "zod";
import { exchangeParam, jsonEndpoint, responseMeta, responseMetaSchema } from "../endpoint.ts";
import { anomalyReport, HIGH_Z, manipulationReport, MIN_MANIPULATION_COMPLETENESS, NOTABLE_Z } from "../analytics/risk.ts";
import { VENUES } from "../model/types.ts";
import type { AnalyticsDeps } from "./technical.ts";

const params = z.strictObject({ exchange: exchangeParam });
const nullableNumber = z.number().nullable();
const completenessSchema = z.number().min(0).max(1).describe("Share of the inputs that could be read, 0–1");

const venueReadingSchema = z.object({
  venue: z.enum(VENUES),
  available: z.boolean(),
  reason: z.string().optional().describe("Why the venue's ticker could not be read"),
  price: nullableNumber,
  deviation_bps: nullableNumber.describe("Distance from the other venues' median price, bps"),
  price_z: nullableNumber.describe("Leave-one-out z-score of the price against the other venues"),
  spread_bps: nullableNumber,
  spread_z: nullableNumber,
  volume_1h: nullableNumber.describe("Last hourly candle's volume, BTC"),
  volume_z: nullableNumber.describe("Against the venue's previous 48 hourly volumes"),
  return_1h_pct: nullableNumber,
  return_z: nullableNumber.describe("Against the venue's previous 48 hourly returns"),
});

export const anomaliesEndpoint = jsonEndpoint({
  path: "/v1/risk/anomalies",
  price: 3,
  summary: "Price, spread, volume and return anomalies across the five venues (z-scores)",
  description: `For every venue: its price and spread against the other venues (leave-one-out z-scores), and its last hourly volume and return against its previous 48 hours. |z| ≥ ${NOTABLE_Z} is listed as notable, ≥ ${HIGH_Z} as high, strongest first. \`exchange\` picks the venue reported as \`focus\`.`,
  params,
  response: z.object({
    exchange: z.enum(VENUES),
    focus: venueReadingSchema,
    venues: z.array(venueReadingSchema),
    anomalies: z.array(
      z.object({
        venue: z.enum(VENUES),
        kind: z.enum(["price", "spread", "volume", "return"]),
        z_score: z.number(),
        severity: z.enum(["notable", "high"]),
        description: z.string(),
      }),
    ),
    thresholds: z.object({ notable_z: z.number(), high_z: z.number(), lookback_hours: z.number().int() }),
    data_completeness: completenessSchema,
    meta: responseMetaSchema,
  }),
  example: { exchange: "binance" },
  handle: async (deps: AnalyticsDeps, { exchange }) => ({
    status: 200,
    body: { ...(await anomalyReport(deps.source, exchange)), meta: responseMeta(deps.source) },
  }),
});

export const manipulationEndpoint = jsonEndpoint({
  path: "/v1/risk/manipulation",
  price: 3,
  summary: "Manipulation risk of a venue: spoofing-like walls, wash-volume signs, cross-venue divergence",
  description: `Three signs scored 0–1: spoofing (share of the venue's wall value seen in the last hour that was pulled within 5 minutes of appearing), wash volume (the venue's share of 24-hour volume against its share of book depth within 1 % of the mid, plus hourly volume moving against |return|), and cross-venue divergence (10 bps from the other venues' median scores 0, 50 bps scores 1). risk_level follows the strongest sign: LOW < 0.25 ≤ MODERATE < 0.5 ≤ ELEVATED < 0.75 ≤ HIGH; UNKNOWN when data_completeness is below ${MIN_MANIPULATION_COMPLETENESS}.`,
  params,
  response: z.object({
    exchange: z.enum(VENUES),
    risk_level: z.enum(["LOW", "MODERATE", "ELEVATED", "HIGH", "UNKNOWN"]),
    score: nullableNumber.describe("The strongest sign, 0–1; null when no sign could be read"),
    data_completeness: completenessSchema,
    signals: z.array(
      z.object({
        name: z.enum(["spoofing", "wash_volume", "cross_venue_divergence"]),
        score: nullableNumber,
        details: z.record(z.string(), z.union([z.number(), z.string(), z.null()])),
        description: z.string(),
      }),
    ),
    inputs: z.array(z.object({ name: z.string(), available: z.boolean(), reason: z.string().optional() })),
    meta: responseMetaSchema,
  }),
  example: { exchange: "binance" },
  handle: async (deps: AnalyticsDeps, { exchange }) => ({
    status: 200,
    body: { ...(await manipulationReport(deps.source, exchange)), meta: responseMeta(deps.source) },
  }),
});

export const riskEndpoints = [anomaliesEndpoint, manipulationEndpoint];
