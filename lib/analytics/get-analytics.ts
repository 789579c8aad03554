// A workspace's analytics (dashboard charts, GET /api/tenants/:tenantId/analytics): requests,
// paid requests, served, refunds and origin errors from UsageCounter (which the gateway writes),
// and earnings from the settled invoices themselves (the ledger, never a second count), bucketed
// by UTC day, ISO week (Monday) or month, with empty buckets filled in.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { defaultBuckets, maxBuckets, type AnalyticsQuery, type AnalyticsResponse, type Granularity } from "./schemas.ts";

const DAY_MS = 86_400_000;

/** Start of the UTC bucket holding `at`. */
export function bucketStart(at: Date, granularity: Granularity): Date {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (granularity === "day") return day;
  if (granularity === "week") return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** Start of the bucket `n` buckets after the one starting at `start`. */
export function addBuckets(start: Date, granularity: Granularity, n: number): Date {
  if (granularity === "day") return new Date(start.getTime() + n * DAY_MS);
  if (granularity === "week") return new Date(start.getTime() + n * 7 * DAY_MS);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + n, 1));
}

/** The bucket range a query covers: [from, to) on bucket boundaries. */
export function analyticsRange(query: Pick<AnalyticsQuery, "granularity" | "from" | "to">, now: Date): { from: Date; to: Date; buckets: Date[] } {
  const g = query.granularity;
  const to = addBuckets(bucketStart(query.to ?? now, g), g, 1);
  const from = query.from ? bucketStart(query.from, g) : addBuckets(to, g, -defaultBuckets[g]);
  if (from >= to)
    throw new AppError("bad_request", "Invalid query: from must not be after to", { fields: [{ field: "from", message: "must not be after to" }] });
  const buckets: Date[] = [];
  for (let b = from; b < to; b = addBuckets(b, g, 1)) {
    if (buckets.length === maxBuckets[g]) {
      throw new AppError("bad_request", `Invalid query: at most ${maxBuckets[g]} ${g}s per query; narrow from/to or use a coarser granularity`, {
        fields: [{ field: "from", message: `range exceeds ${maxBuckets[g]} ${g}s` }],
      });
    }
    buckets.push(b);
  }
  return { from, to, buckets };
}

type Counts = AnalyticsResponse["totals"];
const zero = (): Counts => ({ requests: 0, paidRequests: 0, servedRequests: 0, refunds: 0, upstreamErrors: 0, earningsSats: 0 });

type UsageRow = { bucket: Date; endpointId: string; requests: number; paidRequests: number; servedRequests: number; refunds: number; upstreamErrors: number };
type EarningsRow = { bucket: Date; endpointId: string | null; earningsSats: number };

export async function getAnalytics(options: { prisma: PrismaClient; tenantId: string; query: AnalyticsQuery; now?: Date }): Promise<AnalyticsResponse> {
  const { prisma, tenantId, query } = options;
  const g = query.granularity;
  const { from, to, buckets } = analyticsRange(query, options.now ?? new Date());
  // timestamptz columns: instants with their zone (ISO 8601), and buckets cut at UTC midnight
  // (date_trunc's zone argument), whatever the session's time zone.
  const fromSql = Prisma.sql`CAST(${from.toISOString()} AS timestamptz)`;
  const toSql = Prisma.sql`CAST(${to.toISOString()} AS timestamptz)`;
  const onlyEndpoint = query.endpointId ? Prisma.sql`AND "endpointId" = ${query.endpointId}` : Prisma.empty;

  const [usage, earnings, endpoints] = await Promise.all([
    prisma.$queryRaw<UsageRow[]>(Prisma.sql`
      SELECT date_trunc(${g}, "hour", 'UTC') AS "bucket", "endpointId",
        sum("requests")::int AS "requests", sum("paidRequests")::int AS "paidRequests",
        sum("servedRequests")::int AS "servedRequests", sum("refunds")::int AS "refunds",
        sum("upstreamErrors")::int AS "upstreamErrors"
      FROM "UsageCounter"
      WHERE "tenantId" = ${tenantId} AND "hour" >= ${fromSql} AND "hour" < ${toSql} ${onlyEndpoint}
      GROUP BY 1, 2`),
    prisma.$queryRaw<EarningsRow[]>(Prisma.sql`
      SELECT date_trunc(${g}, "settledAt", 'UTC') AS "bucket", "endpointId", sum("amountSats")::int AS "earningsSats"
      FROM "Invoice"
      WHERE "tenantId" = ${tenantId} AND "status" = 'settled' AND "purpose" <> 'billing'
        AND "settledAt" >= ${fromSql} AND "settledAt" < ${toSql} ${onlyEndpoint}
      GROUP BY 1, 2`),
    prisma.endpoint.findMany({
      where: { tenantId, ...(query.endpointId ? { id: query.endpointId } : {}) },
      select: { id: true, method: true, path: true, title: true },
    }),
  ]);
  if (query.endpointId && endpoints.length === 0) throw new AppError("not_found", `No endpoint ${query.endpointId} in this workspace`);

  const series = new Map(buckets.map((b) => [b.getTime(), { start: b.toISOString(), ...zero() }]));
  const perEndpoint = new Map<string | null, Counts>();
  const endpointCounts = (id: string | null) => {
    let c = perEndpoint.get(id);
    if (!c) perEndpoint.set(id, (c = zero()));
    return c;
  };
  const totals = zero();
  const usageFields = ["requests", "paidRequests", "servedRequests", "refunds", "upstreamErrors"] as const;
  for (const row of usage) {
    const bucket = series.get(asUtc(row.bucket).getTime());
    const byEndpoint = endpointCounts(row.endpointId);
    for (const f of usageFields) {
      const n = Number(row[f]);
      if (bucket) bucket[f] += n;
      byEndpoint[f] += n;
      totals[f] += n;
    }
  }
  const known = new Set(endpoints.map((e) => e.id));
  for (const row of earnings) {
    const bucket = series.get(asUtc(row.bucket).getTime());
    const n = Number(row.earningsSats);
    if (bucket) bucket.earningsSats += n;
    endpointCounts(row.endpointId && known.has(row.endpointId) ? row.endpointId : null).earningsSats += n;
    totals.earningsSats += n;
  }

  const byId = new Map(endpoints.map((e) => [e.id, e]));
  const rows = [...new Set<string | null>([...endpoints.map((e) => e.id), ...perEndpoint.keys()])].map((id) => {
    const e = id ? byId.get(id) : undefined;
    return { endpointId: id, method: e?.method ?? null, path: e?.path ?? null, title: e?.title ?? null, ...(perEndpoint.get(id) ?? zero()) };
  });
  rows.sort((a, b) => b.earningsSats - a.earningsSats || b.requests - a.requests || (a.path ?? "").localeCompare(b.path ?? ""));

  return { granularity: g, from: from.toISOString(), to: to.toISOString(), totals, series: [...series.values()], endpoints: rows };
}

/** A bucket as the driver gives it: a Date (timestamptz), or text without a zone read as UTC. */
function asUtc(value: Date | string): Date {
  return value instanceof Date ? value : new Date(`${value}Z`);
}
