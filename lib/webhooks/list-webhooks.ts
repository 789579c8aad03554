// Lists a workspace's subscriptions (the response schema drops the sealed secret).
import type { PrismaClient } from "@/lib/db/client.ts";

/** Scoped by tenant in the query itself. */
export type ListWebhooksOptions = { prisma: PrismaClient; tenantId: string };

/** Oldest first, so a dashboard list stays stable as subscriptions are added. */
export async function listWebhooks({ prisma, tenantId }: ListWebhooksOptions) {
  return prisma.webhookSubscription.findMany({ where: { tenantId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}
