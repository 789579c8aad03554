// Creates a workspace with its owner, origin secrets and a first API key, in one transaction.
import { refuseListingSlug } from "./listing-slugs.ts";
import { hashToken, randomToken } from "@/lib/crypto/secret-box.ts";
import { AppError } from "@/lib/errors/index.ts";
import { isUniqueViolation, type PrismaClient } from "@/lib/db/client.ts";
import { newSealedSecretPair } from "./secrets.ts";

export type CreateTenantInput = {
  slug: string;
  name: string;
  ownerEmail: string;
  description?: string;
  tags?: string[];
  originUrl?: string | null;
  listed?: boolean;
  /** Days of free trial once the first endpoint is published (default 30; 0 = billed from then on). */
  trialDays?: number;
};

export type CreatedTenant = { tenantId: string; slug: string; apiKey: string };

/** Generates a workspace API key: returns the key (shown once) and what to store. */
export function newApiKey(): { key: string; prefix: string; keyHash: string } {
  const key = randomToken("hub_sk_");
  return { key, prefix: key.slice(0, 11), keyHash: hashToken(key) };
}

export async function createTenant(prisma: PrismaClient, appSecret: string, input: CreateTenantInput): Promise<CreatedTenant> {
  await refuseListingSlug(prisma, input.slug);
  const apiKey = newApiKey();
  const email = input.ownerEmail.trim().toLowerCase();
  try {
    const tenant = await prisma.$transaction(async (tx) => {
      const user = await tx.user.upsert({ where: { email }, create: { email }, update: {} });
      return tx.tenant.create({
        data: {
          slug: input.slug,
          name: input.name,
          description: input.description ?? "",
          tags: input.tags ?? [],
          originUrl: input.originUrl ?? null,
          listed: input.listed ?? true,
          trialDays: input.trialDays ?? 30,
          ...newSealedSecretPair(appSecret),
          memberships: { create: { userId: user.id, role: "owner" } },
          apiKeys: { create: { name: "Default key", prefix: apiKey.prefix, keyHash: apiKey.keyHash } },
        },
      });
    });
    return { tenantId: tenant.id, slug: tenant.slug, apiKey: apiKey.key };
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError("conflict", `The slug "${input.slug}" is already taken`, { field: "slug" });
    }
    throw err;
  }
}
