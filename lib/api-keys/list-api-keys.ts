// Lists a workspace's API keys, revoked ones included (so a provider can see what was cut off).
import type { PrismaClient } from "@/lib/db/client.ts";

export type ListApiKeysOptions = { prisma: PrismaClient; tenantId: string };

/** Newest first; never selects the hash. */
export async function listApiKeys({ prisma, tenantId }: ListApiKeysOptions) {
  return prisma.apiKey.findMany({
    where: { tenantId },
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}
