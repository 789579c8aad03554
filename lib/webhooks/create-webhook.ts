// Creates a subscription: the URL passes the SSRF check, a fresh `whsec_` secret is sealed at rest
// and returned to the caller this one time.
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { WebhookCreate } from "./schemas.ts";
import { generateWebhookSecret } from "./sign.ts";
import { assertWebhookUrl, type TargetPolicy } from "@/lib/origin/ssrf.ts";

/** Input already validated by webhookCreateSchema; policy decides which addresses are allowed. */
export type CreateWebhookOptions = {
  prisma: PrismaClient;
  appSecret: string;
  policy: TargetPolicy;
  tenantId: string;
  input: WebhookCreate;
};

/** Returns the stored subscription plus its plaintext secret (never readable again). */
export async function createWebhook({ prisma, appSecret, policy, tenantId, input }: CreateWebhookOptions) {
  await assertWebhookUrl(input.url, policy);
  const secret = generateWebhookSecret();
  const row = await prisma.webhookSubscription.create({
    data: { tenantId, url: input.url, events: input.events, secretEnc: sealSecret(appSecret, secret) },
  });
  return { ...row, secret };
}
