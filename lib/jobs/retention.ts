// Data retention: rows that only grow are trimmed in small batches so no statement holds locks
// for long (docs/decisions.md, Platform). What stays: invoices, proofs and sessions (the money
// ledger: a deleted proof could be redeemed again), usage counters and the daily health rollups.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";

export const retention = {
  /** Finished webhook deliveries (succeeded or failed for good) stay in the delivery log this long. */
  deliveryDays: 30,
  /** Raw health samples: the 7-day sparkline needs a week; totals live on in EndpointHealthDay. */
  healthSampleDays: 8,
  /** Rows per DELETE statement. */
  batchSize: 5_000,
  /** Most batches per table per pass, so one pass stays short; the next pass continues. */
  maxBatches: 20,
};

export type RetentionResult = { deliveries: number; events: number; healthSamples: number };

/** One pass: deletes what is past retention, in batches. */
export async function trimRetainedData(options: { prisma: PrismaClient; now?: Date; limits?: Partial<typeof retention> }): Promise<RetentionResult> {
  const { prisma } = options;
  const limits = { ...retention, ...options.limits };
  const now = options.now ?? new Date();
  // ISO 8601 with its zone, cast to timestamptz: the same instant in any session time zone.
  const before = (days: number) => Prisma.sql`CAST(${new Date(now.getTime() - days * 86_400_000).toISOString()} AS timestamptz)`;

  const deliveries = await inBatches(limits, (batch) =>
    prisma.$executeRaw(Prisma.sql`
      DELETE FROM "WebhookDelivery" WHERE "id" IN (
        SELECT "id" FROM "WebhookDelivery"
        WHERE "status" IN ('succeeded', 'failed')
          AND GREATEST("updatedAt", COALESCE("lastAttemptAt", "updatedAt")) < ${before(limits.deliveryDays)}
        LIMIT ${batch})`),
  );
  // An event goes once it is fanned out, old enough, and none of its deliveries is still in the log
  // (so a pending or recent delivery never loses its event, and the log never shows orphans).
  const events = await inBatches(limits, (batch) =>
    prisma.$executeRaw(Prisma.sql`
      DELETE FROM "OutboxEvent" WHERE "id" IN (
        SELECT o."id" FROM "OutboxEvent" o
        WHERE o."dispatchedAt" IS NOT NULL AND o."createdAt" < ${before(limits.deliveryDays)}
          AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d WHERE d."eventId" = o."id")
        LIMIT ${batch})`),
  );
  const healthSamples = await inBatches(limits, (batch) =>
    prisma.$executeRaw(Prisma.sql`
      DELETE FROM "HealthSample" WHERE "id" IN (
        SELECT "id" FROM "HealthSample" WHERE "checkedAt" < ${before(limits.healthSampleDays)} LIMIT ${batch})`),
  );
  return { deliveries, events, healthSamples };
}

async function inBatches(limits: typeof retention, deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < limits.maxBatches; i++) {
    const deleted = await deleteBatch(limits.batchSize);
    total += deleted;
    if (deleted < limits.batchSize) break;
  }
  return total;
}
