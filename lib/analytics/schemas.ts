// The analytics query (GET /api/tenants/:tenantId/analytics) and its response.
import { z } from "zod";
import { AppError } from "@/lib/errors/index.ts";

export const granularities = ["day", "week", "month"] as const;
export type Granularity = (typeof granularities)[number];

/** Most buckets one query returns: a year of days, two years of weeks, five years of months. */
export const maxBuckets: Record<Granularity, number> = { day: 366, week: 104, month: 60 };
/** Buckets shown when the query names no range: the last 30 days, 12 weeks or 12 months. */
export const defaultBuckets: Record<Granularity, number> = { day: 30, week: 12, month: 12 };

const dateParam = z.iso.date({ message: "must be a date like 2026-11-21" }).transform((d) => new Date(`${d}T00:00:00.000Z`));

export const analyticsQuerySchema = z.object({
  granularity: z.enum(granularities, { message: `must be one of ${granularities.join(", ")}` }).default("day"),
  /** First UTC day included. */
  from: dateParam.optional(),
  /** Last UTC day included. */
  to: dateParam.optional(),
  endpointId: z.string().min(1).max(64).optional(),
});

export type AnalyticsQuery = z.output<typeof analyticsQuerySchema>;

/** Parses the query string; a bad parameter is a 400 naming it. */
export function parseAnalyticsQuery(searchParams: URLSearchParams): AnalyticsQuery {
  const raw = Object.fromEntries(["granularity", "from", "to", "endpointId"].map((k) => [k, searchParams.get(k) ?? undefined]));
  const parsed = analyticsQuerySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "(query)", message: issue.message }));
  throw new AppError("bad_request", `Invalid query: ${fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`, { fields });
}

const counts = {
  requests: z.number().int(),
  paidRequests: z.number().int(),
  servedRequests: z.number().int(),
  refunds: z.number().int(),
  upstreamErrors: z.number().int(),
  earningsSats: z.number().int(),
};

export const analyticsResponseSchema = z.object({
  granularity: z.enum(granularities),
  /** First day of the first bucket (inclusive), ISO 8601. */
  from: z.string(),
  /** End of the last bucket (exclusive), ISO 8601. */
  to: z.string(),
  totals: z.object(counts),
  /** One entry per bucket, oldest first, empty buckets included. */
  series: z.array(z.object({ start: z.string(), ...counts })),
  /**
   * Per endpoint over the whole range, most earning first. Prepaid credit counts as earned at the
   * endpoint where it was bought. `endpointId: null` collects invoices of endpoints deleted since.
   */
  endpoints: z.array(
    z.object({ endpointId: z.string().nullable(), method: z.string().nullable(), path: z.string().nullable(), title: z.string().nullable(), ...counts }),
  ),
});

export type AnalyticsResponse = z.output<typeof analyticsResponseSchema>;
