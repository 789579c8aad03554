// Manual retry of a failed delivery (spec 3.4 rule 2): it is queued for one immediate attempt with
// the same id and body; if that fails too it is failed again and can be retried again. It is due
// at the database's now(), the clock the worker's claims compare with.
import type { PrismaClient } from "@/lib/db/client.ts";
import type { WebhookDelivery } from "@/lib/db/generated/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { toDeliveryView } from "./delivery-view.ts";

/** Scoped by tenant in the query itself. */
export type RetryDeliveryOptions = { prisma: PrismaClient; tenantId: string; deliveryId: string };

/** 404 for another workspace's delivery; 409 unless it is failed and its subscription active. */
export async function retryDelivery({ prisma, tenantId, deliveryId }: RetryDeliveryOptions) {
  const updated = await prisma.$queryRaw<WebhookDelivery[]>`
    UPDATE "WebhookDelivery" d SET "status" = 'pending', "nextAttemptAt" = now(), "lockedUntil" = NULL, "updatedAt" = now()
    FROM "WebhookSubscription" s
    WHERE d."id" = ${deliveryId} AND d."tenantId" = ${tenantId} AND d."status" = 'failed' AND s."id" = d."subscriptionId" AND s."isActive"
    RETURNING d.*`;
  if (updated[0]) return toDeliveryView(updated[0]);
  const existing = await prisma.webhookDelivery.findFirst({
    where: { id: deliveryId, tenantId },
    select: { status: true, subscription: { select: { isActive: true } } },
  });
  if (!existing) throw new AppError("not_found", "Delivery not found");
  if (existing.status !== "failed")
    throw new AppError("conflict", `Only failed deliveries can be retried; this one is ${existing.status}`, { status: existing.status });
  throw new AppError("conflict", "The webhook is inactive; activate it (PATCH isActive: true) before retrying its deliveries");
}
