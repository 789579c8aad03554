// Issues a new workspace API key; only its hash is stored, the key is returned once.
import type { PrismaClient } from "@/lib/db/client.ts";
import { newApiKey } from "@/lib/tenants/create-tenant.ts";

export type CreateApiKeyOptions = { prisma: PrismaClient; tenantId: string; name: string };

export type CreatedApiKey = { id: string; name: string; prefix: string; key: string; createdAt: Date };

/** Stores the hash of a fresh key under the workspace and returns the key (shown once). */
export async function createApiKey({ prisma, tenantId, name }: CreateApiKeyOptions): Promise<CreatedApiKey> {
  const { key, prefix, keyHash } = newApiKey();
  const row = await prisma.apiKey.create({ data: { tenantId, name, prefix, keyHash } });
  return { id: row.id, name: row.name, prefix: row.prefix, key, createdAt: row.createdAt };
}
