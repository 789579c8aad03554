// Deletes a subscription; its deliveries go with it (cascade), pending ones are never sent.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";

/** Scoped by tenant in the query itself. */
export type DeleteWebhookOptions = { prisma: PrismaClient; tenantId: string; webhookId: string };

/** 404 when the id is not one of this workspace's subscriptions. */
export async function deleteWebhook({ prisma, tenantId, webhookId }: DeleteWebhookOptions): Promise<void> {
  const { count } = await prisma.webhookSubscription.deleteMany({ where: { id: webhookId, tenantId } });
  if (count === 0) throw new AppError("not_found", "Webhook not found");
}
