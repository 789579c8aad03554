// Directory quality numbers (spec 2.4 `quality`) from the worker's health probes.
//
// Rule (docs/decisions.md):
// - Only probes of active endpoints from the last 7 UTC days (today and the 6 days before) count.
// - uptimePercentage = ok probes / all probes * 100, one decimal; null when there are none.
// - avgResponseTimeMs = mean latency of successful probes, whole ms; null when there are none
//   (a failed probe's latency is usually the timeout and says nothing about response time).
// - isHealthy = no active endpoint's latest probe (in the window) failed. An endpoint not probed
//   yet does not count against it, so a freshly listed API is healthy until a probe says
//   otherwise; pages tell the two apart through uptimePercentage === null ("not checked yet").
//
// The numbers are read from EndpointHealthDay, which a trigger on HealthSample keeps (migration
// directory_rollups): at most 7 rows per endpoint, whatever the probe cadence.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import type { HealthQuality } from "./schemas.ts";

/** How many UTC days (today included) the quality window spans. */
export const qualityWindowDays = 7;

/** First UTC day of the quality window that ends today (YYYY-MM-DD). */
export function qualityWindowStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (qualityWindowDays - 1))).toISOString().slice(0, 10);
}

/** What the database aggregates per tenant; the input of qualityFromStats. */
export type HealthStats = {
  total: number;
  ok: number;
  avgOkLatencyMs: number | null;
  /** Endpoints whose most recent sample in the window failed. */
  failingEndpoints: number;
};

export const noSamplesQuality: HealthQuality = { isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null };

/** Turns aggregated sample counts into the spec's quality object (pure). */
export function qualityFromStats(stats: HealthStats | undefined): HealthQuality {
  if (!stats || stats.total === 0) return noSamplesQuality;
  return {
    isHealthy: stats.failingEndpoints === 0,
    uptimePercentage: Math.round((stats.ok / stats.total) * 1000) / 10,
    avgResponseTimeMs: stats.avgOkLatencyMs === null ? null : Math.round(stats.avgOkLatencyMs),
  };
}

type StatsRow = {
  tenantId: string;
  total: number;
  ok: number;
  avgOkLatencyMs: number | null;
  failingEndpoints: number;
};

export type LoadQualityOptions = {
  prisma: PrismaClient;
  tenantIds: string[];
  /** The clock, for tests; defaults to now. */
  now?: Date;
};

/** Quality of each tenant in one round trip; tenants without samples get noSamplesQuality. */
export async function loadQuality({ prisma, tenantIds, now = new Date() }: LoadQualityOptions): Promise<Map<string, HealthQuality>> {
  const result = new Map<string, HealthQuality>(tenantIds.map((id) => [id, noSamplesQuality]));
  if (tenantIds.length === 0) return result;
  const since = qualityWindowStart(now);
  // The tenant filter is on the endpoints too: without it PostgreSQL may hash-join against a
  // sequential scan of every endpoint (57 ms at 100k endpoints) instead of reading the page's few
  // hundred through the (tenantId, isActive) index (under 7 ms).
  const rows = await prisma.$queryRaw<StatsRow[]>(Prisma.sql`
    WITH days AS (
      SELECT d."tenantId", d."endpointId", d."day", d."total", d."ok", d."okLatencySum", d."okLatencyCount", d."lastOk"
      FROM "EndpointHealthDay" d
      JOIN "Endpoint" e ON e."id" = d."endpointId" AND e."isActive" = true AND e."tenantId" IN (${Prisma.join(tenantIds)})
      WHERE d."tenantId" IN (${Prisma.join(tenantIds)})
        AND d."day" >= CAST(${since} AS date)
    ),
    stats AS (
      SELECT "tenantId",
        sum("total")::int AS "total",
        sum("ok")::int AS "ok",
        (sum("okLatencySum")::float8 / NULLIF(sum("okLatencyCount"), 0)) AS "avgOkLatencyMs"
      FROM days
      GROUP BY "tenantId"
    ),
    latest AS (
      SELECT DISTINCT ON ("endpointId") "tenantId", "lastOk"
      FROM days
      ORDER BY "endpointId", "day" DESC
    ),
    failing AS (
      SELECT "tenantId", (count(*) FILTER (WHERE NOT "lastOk"))::int AS "failingEndpoints"
      FROM latest
      GROUP BY "tenantId"
    )
    SELECT s."tenantId", s."total", s."ok", s."avgOkLatencyMs", coalesce(f."failingEndpoints", 0)::int AS "failingEndpoints"
    FROM stats s LEFT JOIN failing f ON f."tenantId" = s."tenantId"`);
  for (const row of rows) {
    result.set(
      row.tenantId,
      qualityFromStats({
        total: Number(row.total),
        ok: Number(row.ok),
        avgOkLatencyMs: row.avgOkLatencyMs === null ? null : Number(row.avgOkLatencyMs),
        failingEndpoints: Number(row.failingEndpoints),
      }),
    );
  }
  return result;
}

/**
 * Quality of each approved external listing in one round trip, by the same rule from its probe
 * rounds (ExternalListingHealthDay, written by lib/health/probe-listings.ts): every probed endpoint
 * counts as a probe; isHealthy is false when the latest round in the window had a failure.
 */
export async function loadListingQuality({
  prisma,
  listingIds,
  now = new Date(),
}: {
  prisma: PrismaClient;
  listingIds: string[];
  now?: Date;
}): Promise<Map<string, HealthQuality>> {
  const result = new Map<string, HealthQuality>(listingIds.map((id) => [id, noSamplesQuality]));
  if (listingIds.length === 0) return result;
  const rows = await prisma.$queryRaw<{ listingId: string; total: number; ok: number; avgOkLatencyMs: number | null; lastOk: boolean }[]>(Prisma.sql`
    SELECT d."listingId",
      sum(d."total")::int AS "total",
      sum(d."ok")::int AS "ok",
      (sum(d."okLatencySum")::float8 / NULLIF(sum(d."okLatencyCount"), 0)) AS "avgOkLatencyMs",
      (array_agg(d."lastOk" ORDER BY d."day" DESC))[1] AS "lastOk"
    FROM "ExternalListingHealthDay" d
    WHERE d."listingId" IN (${Prisma.join(listingIds)}) AND d."day" >= CAST(${qualityWindowStart(now)} AS date)
    GROUP BY d."listingId"`);
  for (const row of rows) {
    result.set(
      row.listingId,
      qualityFromStats({
        total: Number(row.total),
        ok: Number(row.ok),
        avgOkLatencyMs: row.avgOkLatencyMs === null ? null : Number(row.avgOkLatencyMs),
        failingEndpoints: row.lastOk ? 0 : 1,
      }),
    );
  }
  return result;
}
