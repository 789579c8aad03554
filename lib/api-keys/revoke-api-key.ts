// Revokes a workspace API key. Every request looks the key up, so revocation is immediate.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";

export type RevokeApiKeyOptions = { prisma: PrismaClient; tenantId: string; apiKeyId: string; now?: Date };

/** Idempotent: revoking a revoked key keeps its first revocation time. 404 for another tenant's key. */
export async function revokeApiKey({ prisma, tenantId, apiKeyId, now = new Date() }: RevokeApiKeyOptions): Promise<void> {
  const revoked = await prisma.apiKey.updateMany({ where: { id: apiKeyId, tenantId, revokedAt: null }, data: { revokedAt: now } });
  if (revoked.count > 0) return;
  const exists = await prisma.apiKey.count({ where: { id: apiKeyId, tenantId } });
  if (!exists) throw new AppError("not_found", "API key not found");
}
