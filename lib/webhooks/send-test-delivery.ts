// POST …/webhooks/:id/test: a synthetic invoice.settled delivery to ONE subscription, through the
// same queue, envelope, signing and retries as real events.
import type { Prisma, PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { toDeliveryView } from "./delivery-view.ts";
import type { EventData } from "@/lib/events/catalogue.ts";

/** Marks test deliveries: no real invoice has an all-zero payment hash. */
export const TEST_PAYMENT_HASH = "0".repeat(64);

/** Scoped by tenant in the query itself; `now` stamps the synthetic event. */
export type SendTestDeliveryOptions = { prisma: PrismaClient; tenantId: string; webhookId: string; now?: Date };

/**
 * Writes an already-dispatched outbox event (so it fans out to no other subscription) and its one
 * delivery, in one transaction. 404 for another workspace's id; 409 while the webhook is inactive.
 */
export async function sendTestDelivery({ prisma, tenantId, webhookId, now = new Date() }: SendTestDeliveryOptions) {
  const subscription = await prisma.webhookSubscription.findFirst({ where: { id: webhookId, tenantId }, select: { id: true, isActive: true } });
  if (!subscription) throw new AppError("not_found", "Webhook not found");
  if (!subscription.isActive) throw new AppError("conflict", "The webhook is inactive; activate it (PATCH isActive: true) to send a test event");
  const data: EventData<"invoice.settled"> = {
    paymentHash: TEST_PAYMENT_HASH,
    amountSats: 1,
    purpose: "per_request",
    endpointId: null,
    settledAt: now.toISOString(),
    source: "proof",
  };
  const row = await prisma.$transaction(async (tx) => {
    const event = await tx.outboxEvent.create({
      data: { tenantId, type: "invoice.settled", data: data as Prisma.InputJsonValue, createdAt: now, dispatchedAt: now },
    });
    return tx.webhookDelivery.create({
      data: { subscriptionId: subscription.id, eventId: event.id, tenantId, eventType: event.type, status: "pending", nextAttemptAt: now, createdAt: now },
    });
  });
  return toDeliveryView(row);
}
