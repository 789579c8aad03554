// Reads a workspace's origin-protection secrets (spec 5.4) for its members, decrypted.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { readOriginSecrets, tenantSecretColumnsSelect, type OriginSecrets } from "./secrets.ts";

export type GetOriginSecretsOptions = {
  prisma: PrismaClient;
  appSecret: string;
  tenantId: string;
  now?: Date;
};

/** Current secrets, plus the previous pair while its grace period lasts. */
export async function getOriginSecrets({ prisma, appSecret, tenantId, now = new Date() }: GetOriginSecretsOptions): Promise<OriginSecrets> {
  const row = await prisma.tenant.findUnique({
    where: { id: tenantId },
    select: tenantSecretColumnsSelect,
  });
  if (!row) throw new AppError("not_found", "Workspace not found");
  return readOriginSecrets(appSecret, row, now);
}
