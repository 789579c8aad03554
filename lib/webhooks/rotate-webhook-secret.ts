// Replaces a subscription's secret on explicit request (for providers whose secret leaked). The new
// secret signs every attempt from now on, retries of older deliveries included.
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { generateWebhookSecret } from "./sign.ts";

/** Scoped by tenant in the query itself; appSecret seals the new secret at rest. */
export type RotateWebhookSecretOptions = { prisma: PrismaClient; appSecret: string; tenantId: string; webhookId: string };

/** Returns the new secret, shown this one time. */
export async function rotateWebhookSecret({ prisma, appSecret, tenantId, webhookId }: RotateWebhookSecretOptions) {
  const secret = generateWebhookSecret();
  const { count } = await prisma.webhookSubscription.updateMany({ where: { id: webhookId, tenantId }, data: { secretEnc: sealSecret(appSecret, secret) } });
  if (count === 0) throw new AppError("not_found", "Webhook not found");
  return { id: webhookId, secret };
}
