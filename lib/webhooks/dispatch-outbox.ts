// Fan-out: each undispatched outbox event becomes one WebhookDelivery per matching active
// subscription of its tenant. One statement per batch: the events are claimed with SKIP LOCKED, the
// deliveries inserted (unique per subscription and event, so a re-dispatch after a crash adds
// nothing twice) and the events marked dispatched, all or nothing. A new delivery is due at the
// database's now(), the clock its claims compare with.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { receivesSql } from "@/lib/events/enqueue-event.ts";

/** Batch bounds and clock of one fan-out pass. */
export type DispatchOutboxOptions = {
  prisma: PrismaClient;
  /** Injectable clock for the deliveries' createdAt (tests order pages by it); the database's now() by default. */
  now?: () => Date;
  batchSize?: number;
  /** Stop after this many batches in one call, so a huge backlog cannot starve the sender. */
  maxBatches?: number;
};

/** Dispatches until the outbox is empty (or maxBatches); returns { events, deliveries } created. */
export async function dispatchOutbox(options: DispatchOutboxOptions): Promise<{ events: number; deliveries: number }> {
  const { prisma } = options;
  const batchSize = options.batchSize ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  const total = { events: 0, deliveries: 0 };
  for (let i = 0; i < maxBatches; i += 1) {
    const createdAt = options.now?.() ?? null;
    const rows = await prisma.$queryRaw<{ events: number; deliveries: number }[]>`
      WITH batch AS (
        SELECT "id", "tenantId", "type" FROM "OutboxEvent"
        WHERE "dispatchedAt" IS NULL
        ORDER BY "createdAt", "id"
        LIMIT ${batchSize}
        FOR UPDATE SKIP LOCKED
      ),
      inserted AS (
        INSERT INTO "WebhookDelivery" ("id", "subscriptionId", "eventId", "tenantId", "eventType", "status", "attempts", "nextAttemptAt", "createdAt", "updatedAt")
        SELECT gen_random_uuid()::text, s."id", b."id", b."tenantId", b."type", 'pending', 0, now(), coalesce(${createdAt}, now()), now()
        FROM batch b
        JOIN "WebhookSubscription" s ON s."tenantId" = b."tenantId" AND ${Prisma.raw(receivesSql("s", 'b."type"'))}
        ON CONFLICT ("subscriptionId", "eventId") DO NOTHING
        RETURNING 1
      ),
      marked AS (
        UPDATE "OutboxEvent" o SET "dispatchedAt" = now() FROM batch WHERE o."id" = batch."id"
        RETURNING 1
      )
      SELECT (SELECT count(*)::int FROM marked) AS events, (SELECT count(*)::int FROM inserted) AS deliveries`;
    const { events, deliveries } = rows[0] ?? { events: 0, deliveries: 0 };
    total.events += events;
    total.deliveries += deliveries;
    if (events < batchSize) break;
  }
  return total;
}
