// Changes a subscription's url, events or isActive. Never touches the secret (spec 2.6): rotation is
// its own explicit route.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { WebhookUpdate } from "./schemas.ts";
import { assertWebhookUrl, type TargetPolicy } from "@/lib/origin/ssrf.ts";

/** Patch already validated by webhookUpdateSchema; a new url is checked against policy. */
export type UpdateWebhookOptions = {
  prisma: PrismaClient;
  policy: TargetPolicy;
  tenantId: string;
  webhookId: string;
  patch: WebhookUpdate;
};

/** 404 for another workspace's id; a new URL is checked exactly like on creation. */
export async function updateWebhook({ prisma, policy, tenantId, webhookId, patch }: UpdateWebhookOptions) {
  if (patch.url !== undefined) await assertWebhookUrl(patch.url, policy);
  const data = { url: patch.url, events: patch.events, isActive: patch.isActive };
  const updated = await prisma.webhookSubscription.updateManyAndReturn({ where: { id: webhookId, tenantId }, data });
  if (!updated[0]) throw new AppError("not_found", "Webhook not found");
  return updated[0];
}
