// Updates a workspace's profile (name, description, tags, origin, listing) and tells the gateways.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { assertOriginUrl } from "@/lib/origin/origin-policy.ts";
import { publishConfigChanged } from "./config-events.ts";
import type { TenantUpdate } from "./schemas.ts";

export type UpdateTenantOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  tenantId: string;
  changes: TenantUpdate;
  /** ORIGIN_ALLOW_PRIVATE: a new originUrl is checked by lib/origin/origin-policy.ts. */
  originAllowPrivate: boolean;
};

/** Applies the given fields (omitted ones stay as they are) and returns the updated row. */
export async function updateTenant({ prisma, store, tenantId, changes, originAllowPrivate }: UpdateTenantOptions) {
  if (changes.originUrl) await assertOriginUrl(changes.originUrl, { originAllowPrivate });
  const data = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as TenantUpdate;
  const updated = await prisma.tenant.updateMany({ where: { id: tenantId }, data });
  if (updated.count === 0) throw new AppError("not_found", "Workspace not found");
  await publishConfigChanged({ store, tenantId });
  return prisma.tenant.findUniqueOrThrow({ where: { id: tenantId } });
}
