// session.expired, exactly once per session (spec 3.3 rule 2, 6.1): the worker's `session-expiry`
// job marks ended sessions with one conditional UPDATE … SET "expiredEventAt" … WHERE
// "expiredEventAt" IS NULL … RETURNING and writes their events in the same transaction, so an
// event exists exactly when its mark does, and two workers (or two passes) never write it twice.
// "Ended" is the database's judgement (now()), the same clock that refuses the session's calls.
import type { PrismaClient } from "@/lib/db/client.ts";
import type { SessionModel } from "@/lib/pricing/quote.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";

/** One pass of the session-expiry job. */
export type ExpireSessionsOptions = {
  prisma: PrismaClient;
  /** Sessions marked per transaction; the pass repeats until none are left. */
  batchSize?: number;
};

type Ended = { id: string; tenantId: string; endpointId: string; model: SessionModel; balance: number | null; expiresAt: Date };

/** Writes session.expired for every session whose time has ended; returns how many. */
export async function expireSessions(options: ExpireSessionsOptions): Promise<number> {
  const { prisma } = options;
  const batchSize = options.batchSize ?? 500;
  let total = 0;
  for (;;) {
    const count = await prisma.$transaction(async (tx) => {
      const ended = await tx.$queryRaw<Ended[]>`
        UPDATE "PaymentSession" SET "expiredEventAt" = now()
        WHERE "id" IN (
            SELECT "id" FROM "PaymentSession"
            WHERE "expiresAt" <= now() AND "expiredEventAt" IS NULL
            ORDER BY "expiresAt" LIMIT ${batchSize}
            FOR UPDATE SKIP LOCKED)
          AND "expiredEventAt" IS NULL
        RETURNING "id", "tenantId", "endpointId", "model"::text AS "model", "balance", "expiresAt"`;
      for (const session of ended) {
        await enqueueEvent(tx, {
          tenantId: session.tenantId,
          type: "session.expired",
          data: {
            sessionId: session.id,
            endpointId: session.endpointId,
            model: session.model,
            remainingBalance: session.balance === null ? null : Math.max(0, session.balance),
            expiredAt: session.expiresAt.toISOString(),
          },
        });
      }
      return ended.length;
    });
    total += count;
    if (count < batchSize) return total;
  }
}
