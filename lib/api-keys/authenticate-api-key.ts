// Workspace API key check: keys are stored as SHA-256 hashes, so a lookup by hash is the check.
import { hashToken } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";

/** lastUsedAt is written at most this often per key, so a busy key costs no write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type AuthenticateApiKeyOptions = {
  prisma: PrismaClient;
  /** The key exactly as presented in `Authorization: Bearer <key>`. */
  key: string;
  now?: Date;
};

export type AuthenticatedApiKey = { apiKeyId: string; tenantId: string };

/** Resolves a presented key to its workspace; null when the key is unknown or revoked. */
export async function authenticateApiKey({ prisma, key, now = new Date() }: AuthenticateApiKeyOptions): Promise<AuthenticatedApiKey | null> {
  const row = await prisma.apiKey.findUnique({
    where: { keyHash: hashToken(key) },
    select: { id: true, tenantId: true, revokedAt: true, lastUsedAt: true },
  });
  if (!row || row.revokedAt) return null;
  const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!row.lastUsedAt || row.lastUsedAt < staleBefore) {
    // Conditional update: concurrent requests racing past the check above write once, not N times.
    await prisma.apiKey.updateMany({
      where: { id: row.id, revokedAt: null, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
      data: { lastUsedAt: now },
    });
  }
  return { apiKeyId: row.id, tenantId: row.tenantId };
}
