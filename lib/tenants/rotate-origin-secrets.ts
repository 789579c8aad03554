// Rotates a workspace's origin-protection secrets: the current pair becomes "previous" for the
// grace period (origins accept both meanwhile), a new pair is generated, gateways are told.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "./config-events.ts";
import { readOriginSecrets, rotatedSecretColumns, type OriginSecrets } from "./secrets.ts";

export type RotateOriginSecretsOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  appSecret: string;
  tenantId: string;
  /** SECRET_ROTATION_GRACE_HOURS. */
  graceHours: number;
  now?: Date;
};

/** Returns the new secrets with the previous pair and its validUntil. */
export async function rotateOriginSecrets(options: RotateOriginSecretsOptions): Promise<OriginSecrets> {
  const { prisma, store, appSecret, tenantId, graceHours, now = new Date() } = options;
  const row = await prisma.tenant.findUnique({ where: { id: tenantId }, select: { gatewaySecretEnc: true, hmacSecretEnc: true } });
  if (!row) throw new AppError("not_found", "Workspace not found");
  const columns = rotatedSecretColumns(appSecret, row, graceHours, now);
  // Compare-and-set on the pair we read: two simultaneous rotations must not both "win", or the
  // pair shown to one caller would never have been valid.
  const updated = await prisma.tenant.updateMany({
    where: { id: tenantId, gatewaySecretEnc: row.gatewaySecretEnc, hmacSecretEnc: row.hmacSecretEnc },
    data: columns,
  });
  if (updated.count === 0) throw new AppError("conflict", "The secrets were rotated by another request at the same time; read them again");
  await publishConfigChanged({ store, tenantId });
  return readOriginSecrets(appSecret, columns, now);
}
