// Directory quality numbers (spec 2.4 `quality`) from the worker's HealthSample rows.
//
// Rule (docs/decisions.md):
// - Only samples of active endpoints from the last 7 days count.
// - uptimePercentage = ok samples / all samples * 100, one decimal; null when there are none.
// - avgResponseTimeMs = mean latency of successful samples, whole ms; null when there are none
//   (a failed probe's latency is usually the timeout and says nothing about response time).
// - isHealthy = no active endpoint's latest sample failed. An endpoint not probed yet does not
//   count against it, so a freshly listed API is healthy until a probe says otherwise; pages tell
//   the two apart through uptimePercentage === null ("not checked yet").
import { Prisma, type PrismaClient } from "../db/client.ts";
import type { HealthQuality } from "./schemas.ts";

export const qualityWindowMs = 7 * 24 * 60 * 60 * 1000;

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
  // Columns are timestamp without time zone holding UTC; a text literal cast to timestamp drops
  // the trailing Z, so the comparison is UTC to UTC whatever the session time zone is.
  const since = new Date(now.getTime() - qualityWindowMs).toISOString();
  const rows = await prisma.$queryRaw<StatsRow[]>(Prisma.sql`
    WITH recent AS (
      SELECT s."tenantId", s."endpointId", s."ok", s."latencyMs", s."checkedAt", s."id"
      FROM "HealthSample" s
      JOIN "Endpoint" e ON e."id" = s."endpointId" AND e."isActive" = true
      WHERE s."tenantId" IN (${Prisma.join(tenantIds)})
        AND s."checkedAt" >= CAST(${since} AS timestamp)
    ),
    stats AS (
      SELECT r."tenantId",
        count(*)::int AS "total",
        (count(*) FILTER (WHERE r."ok"))::int AS "ok",
        (avg(r."latencyMs") FILTER (WHERE r."ok" AND r."latencyMs" IS NOT NULL))::float8 AS "avgOkLatencyMs"
      FROM recent r
      GROUP BY r."tenantId"
    ),
    latest AS (
      SELECT DISTINCT ON ("endpointId") "tenantId", "ok"
      FROM recent
      ORDER BY "endpointId", "checkedAt" DESC, "id" DESC
    ),
    failing AS (
      SELECT "tenantId", (count(*) FILTER (WHERE NOT "ok"))::int AS "failingEndpoints"
      FROM latest
      GROUP BY "tenantId"
    )
    -- One pass over the window's samples for both aggregates (a correlated subquery per tenant
    -- would rescan them once per tenant on a 50-API page).
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
