// Recent deliveries of one subscription for the dashboard (spec 4.5): newest first, bounded.
import type { PrismaClient } from "../db/client.ts";
import { AppError } from "../errors/index.ts";
import { toDeliveryView } from "./delivery-view.ts";

/** `limit` is already bounded by deliveriesQuerySchema. */
export type ListDeliveriesOptions = { prisma: PrismaClient; tenantId: string; webhookId: string; limit: number };

/** 404 when the subscription is not this workspace's. */
export async function listDeliveries({ prisma, tenantId, webhookId, limit }: ListDeliveriesOptions) {
  const subscription = await prisma.webhookSubscription.findFirst({ where: { id: webhookId, tenantId }, select: { id: true } });
  if (!subscription) throw new AppError("not_found", "Webhook not found");
  const rows = await prisma.webhookDelivery.findMany({
    where: { subscriptionId: webhookId, tenantId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit,
  });
  return rows.map(toDeliveryView);
}
