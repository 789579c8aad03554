// Recent deliveries of one subscription for the dashboard (spec 4.5): newest first, a page at a
// time. The cursor is the last delivery id of the previous page, so new deliveries arriving between
// pages never shift what "older" means.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { toDeliveryView } from "./delivery-view.ts";

/** `limit` is already bounded by deliveriesQuerySchema; `before` is an earlier page's `nextCursor`. */
export type ListDeliveriesOptions = { prisma: PrismaClient; tenantId: string; webhookId: string; limit: number; before?: string };

/** 404 when the subscription (or the cursor's delivery) is not this workspace's. */
export async function listDeliveries({ prisma, tenantId, webhookId, limit, before }: ListDeliveriesOptions) {
  const subscription = await prisma.webhookSubscription.findFirst({ where: { id: webhookId, tenantId }, select: { id: true } });
  if (!subscription) throw new AppError("not_found", "Webhook not found");
  let olderThan = {};
  if (before) {
    const cursor = await prisma.webhookDelivery.findFirst({
      where: { id: before, subscriptionId: webhookId, tenantId },
      select: { id: true, createdAt: true },
    });
    if (!cursor) throw new AppError("not_found", "No such delivery for this webhook (before)");
    // Strictly after the cursor in (createdAt desc, id desc) order.
    olderThan = { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] };
  }
  // One extra row tells whether another page exists without a count query.
  const rows = await prisma.webhookDelivery.findMany({
    where: { subscriptionId: webhookId, tenantId, ...olderThan },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { deliveries: page.map(toDeliveryView), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}
