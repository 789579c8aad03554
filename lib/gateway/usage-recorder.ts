// Usage counting for analytics (UsageCounter, one row per endpoint and UTC hour). The request path
// only bumps numbers in memory; a timer writes them as one additive upsert per flush, so counting
// costs the hot path no database round trip and several gateway instances add up correctly.
// Counts are best effort by design (a crash loses at most one flush interval); money is not here:
// earnings are the settled invoices themselves (lib/analytics/usage.ts).
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";

/** What one request adds to its endpoint's hour. */
export type UsageDelta = {
  requests: number;
  paidRequests: number;
  servedRequests: number;
  refunds: number;
  upstreamErrors: number;
};

const counterFields = ["requests", "paidRequests", "servedRequests", "refunds", "upstreamErrors"] as const satisfies readonly (keyof UsageDelta)[];

type Pending = UsageDelta & { tenantId: string; endpointId: string; hour: number };

export type UsageRecorderOptions = {
  prisma: PrismaClient;
  log: Logger;
  /** How often pending counts are written. */
  flushIntervalMs?: number;
  /** Rows kept while the database is unreachable; beyond it the oldest hours are dropped (and logged). */
  maxPendingRows?: number;
  /** Rows per INSERT statement. */
  batchSize?: number;
  clock?: () => number;
};

const HOUR_MS = 3_600_000;

export class UsageRecorder {
  private pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private readonly maxPendingRows: number;
  private readonly batchSize: number;
  private readonly clock: () => number;

  constructor(private readonly options: UsageRecorderOptions) {
    this.maxPendingRows = options.maxPendingRows ?? 50_000;
    this.batchSize = options.batchSize ?? 500;
    this.clock = options.clock ?? Date.now;
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 2_000);
    this.timer.unref();
  }

  /**
   * Adds one request's counts to its endpoint's current hour (memory only). `hour` is given only
   * when a row that failed to write is put back under its own hour.
   */
  record(tenantId: string, endpointId: string, delta: Partial<UsageDelta>, hour = Math.floor(this.clock() / HOUR_MS) * HOUR_MS): void {
    const key = `${endpointId}\u0000${hour}`;
    let row = this.pending.get(key);
    if (!row) {
      if (this.pending.size >= this.maxPendingRows) this.dropOldest();
      row = { tenantId, endpointId, hour, requests: 0, paidRequests: 0, servedRequests: 0, refunds: 0, upstreamErrors: 0 };
      this.pending.set(key, row);
    }
    for (const field of counterFields) row[field] += delta[field] ?? 0;
  }

  /** Writes everything pending; concurrent callers share one flush. Failed rows stay pending. */
  flush(): Promise<void> {
    this.flushing ??= this.writePending().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  /** Stops the timer and writes what is left (gateway shutdown). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    // A flush that was already running when close began may have left rows recorded meanwhile.
    if (this.pending.size > 0) await this.flush();
  }

  private async writePending() {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()];
    this.pending = new Map();
    for (let i = 0; i < rows.length; i += this.batchSize) {
      const batch = rows.slice(i, i + this.batchSize);
      try {
        await this.options.prisma.$executeRaw(upsertSql(batch));
      } catch (error) {
        this.options.log.warn("usage counters not written; retrying at the next flush", { rows: batch.length, error });
        for (const row of batch) this.record(row.tenantId, row.endpointId, row, row.hour);
      }
    }
  }

  private dropOldest() {
    let oldest: string | null = null;
    let oldestHour = Infinity;
    for (const [key, row] of this.pending) {
      if (row.hour < oldestHour) {
        oldestHour = row.hour;
        oldest = key;
      }
    }
    if (oldest) {
      this.pending.delete(oldest);
      this.options.log.warn("usage counter dropped: too many rows pending while the database is unreachable", { hour: new Date(oldestHour).toISOString() });
    }
  }
}

/**
 * One additive upsert for a batch. Rows of endpoints deleted meanwhile are skipped by the join
 * (a foreign-key error would otherwise fail the whole batch, forever). The same statement adds the
 * served requests to the tenant's BillableUsage hour (what the platform fee counts, which must
 * outlive a deleted endpoint): one statement, so a retried batch never counts either side twice.
 */
function upsertSql(rows: Pending[]): Prisma.Sql {
  const values = rows.map(
    (r) =>
      Prisma.sql`(${r.endpointId}, ${r.tenantId}, CAST(${new Date(r.hour).toISOString()} AS timestamptz), ${r.requests}::int, ${r.paidRequests}::int, ${r.servedRequests}::int, ${r.refunds}::int, ${r.upstreamErrors}::int)`,
  );
  return Prisma.sql`
    WITH v AS (
      SELECT * FROM (VALUES ${Prisma.join(values)}) AS v("endpointId", "tenantId", "hour", "requests", "paidRequests", "servedRequests", "refunds", "upstreamErrors")
    ), billable AS (
      INSERT INTO "BillableUsage" ("tenantId", "hour", "servedRequests")
      SELECT v."tenantId", v."hour", SUM(v."servedRequests")::int FROM v JOIN "Tenant" t ON t."id" = v."tenantId"
      WHERE v."servedRequests" > 0
      GROUP BY v."tenantId", v."hour"
      ON CONFLICT ("tenantId", "hour") DO UPDATE SET "servedRequests" = "BillableUsage"."servedRequests" + EXCLUDED."servedRequests"
    )
    INSERT INTO "UsageCounter" ("endpointId", "tenantId", "hour", "requests", "paidRequests", "servedRequests", "refunds", "upstreamErrors")
    SELECT v.* FROM v
    JOIN "Endpoint" e ON e."id" = v."endpointId" AND e."tenantId" = v."tenantId"
    ON CONFLICT ("endpointId", "hour") DO UPDATE SET
      "requests" = "UsageCounter"."requests" + EXCLUDED."requests",
      "paidRequests" = "UsageCounter"."paidRequests" + EXCLUDED."paidRequests",
      "servedRequests" = "UsageCounter"."servedRequests" + EXCLUDED."servedRequests",
      "refunds" = "UsageCounter"."refunds" + EXCLUDED."refunds",
      "upstreamErrors" = "UsageCounter"."upstreamErrors" + EXCLUDED."upstreamErrors"`;
}
