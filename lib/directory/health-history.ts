// The 7-day health history of one API for its page's sparkline: uptime per 6-hour bucket from the
// worker's HealthSample rows (active endpoints only, as in ./quality.ts). Oldest bucket first.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { qualityWindowDays } from "./quality.ts";

/** Hours per bucket: 28 bars over 7 days, readable at sparkline size. */
export const historyBucketHours = 6;

/** One bucket: its start, and the share of successful probes (null when nothing was probed). */
export type HealthBucket = { start: Date; uptimePercentage: number | null; samples: number };

/** Uptime per bucket over the quality window ending at `now`, always 28 buckets. */
export async function loadHealthHistory({
  prisma,
  tenantId,
  now = new Date(),
}: {
  prisma: PrismaClient;
  tenantId: string;
  now?: Date;
}): Promise<HealthBucket[]> {
  const bucketMs = historyBucketHours * 3_600_000;
  const count = Math.round((qualityWindowDays * 86_400_000) / bucketMs);
  const end = Math.ceil(now.getTime() / bucketMs) * bucketMs;
  const start = end - count * bucketMs;
  const rows = await prisma.$queryRaw<{ bucket: number; total: number; ok: number }[]>(Prisma.sql`
    SELECT floor((extract(epoch FROM s."checkedAt") * 1000 - ${start}) / ${bucketMs})::int AS "bucket",
      count(*)::int AS "total", (count(*) FILTER (WHERE s."ok"))::int AS "ok"
    FROM "HealthSample" s
    JOIN "Endpoint" e ON e."id" = s."endpointId" AND e."isActive" = true
    WHERE s."tenantId" = ${tenantId}
      AND s."checkedAt" >= CAST(${new Date(start).toISOString()} AS timestamptz)
      AND s."checkedAt" < CAST(${new Date(end).toISOString()} AS timestamptz)
    GROUP BY 1`);
  const byBucket = new Map(rows.map((r) => [Number(r.bucket), r]));
  return Array.from({ length: count }, (_, i) => {
    const row = byBucket.get(i);
    const total = Number(row?.total ?? 0);
    return {
      start: new Date(start + i * bucketMs),
      samples: total,
      uptimePercentage: total ? Math.round((Number(row!.ok) / total) * 1000) / 10 : null,
    };
  });
}
