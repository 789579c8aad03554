// Building blocks for the seed, the tests and the e2e suite: real domain functions, sensible
// defaults, every field overridable.
import { randomBytes } from "node:crypto";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Prisma } from "@/lib/db/generated/client.ts";
import { createTenant, type CreateTenantInput, type CreatedTenant } from "@/lib/tenants/create-tenant.ts";
import { generateWebhookSecret } from "@/lib/webhooks/sign.ts";

/** A tenant with owner and API key; the slug is random unless given. */
export async function tenantFactory(prisma: PrismaClient, appSecret: string, input: Partial<CreateTenantInput> = {}): Promise<CreatedTenant> {
  const slug = input.slug ?? `t-${randomBytes(4).toString("hex")}`;
  return createTenant(prisma, appSecret, {
    slug,
    name: input.name ?? `Tenant ${slug}`,
    ownerEmail: input.ownerEmail ?? `owner+${slug}@example.com`,
    description: input.description ?? "",
    tags: input.tags ?? [],
    originUrl: input.originUrl ?? null,
    listed: input.listed,
  });
}

/** Connects the dev node as a tenant's wallet (what PUT /wallet {type:"dev"} stores). */
export async function devWalletFactory(prisma: PrismaClient, appSecret: string, tenantId: string, nodePubkey: string) {
  return prisma.wallet.upsert({
    where: { tenantId },
    create: { tenantId, type: "dev", credentialsEnc: sealSecret(appSecret, "{}"), nodePubkey },
    update: { type: "dev", credentialsEnc: sealSecret(appSecret, "{}"), nodePubkey },
  });
}

/** An endpoint; defaults to a free GET. */
export async function endpointFactory(prisma: PrismaClient, tenantId: string, data: Partial<Omit<Prisma.EndpointUncheckedCreateInput, "tenantId">> = {}) {
  return prisma.endpoint.create({
    data: {
      method: "GET",
      path: `/v1/${randomBytes(3).toString("hex")}`,
      title: "Test endpoint",
      ...data,
      tenantId,
    },
  });
}

/**
 * A webhook subscription (every event by default), stored as createWebhook stores one. Events are
 * written only for tenants with a subscription that receives them, so a test that reads a
 * tenant's outbox subscribes it first. The default URL is on `.invalid`, which never resolves.
 */
export async function webhookSubscriptionFactory(
  prisma: PrismaClient,
  appSecret: string,
  tenantId: string,
  data: { events?: string[]; url?: string; isActive?: boolean } = {},
) {
  return prisma.webhookSubscription.create({
    data: {
      tenantId,
      url: data.url ?? "https://receiver.invalid/hooks",
      events: data.events ?? ["*"],
      isActive: data.isActive ?? true,
      secretEnc: sealSecret(appSecret, generateWebhookSecret()),
    },
  });
}
