// Reads one workspace by id (the caller has already been authorized for it).
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";

export type GetTenantOptions = { prisma: PrismaClient; tenantId: string };

/** The tenant row, or 404 not_found. */
export async function getTenant({ prisma, tenantId }: GetTenantOptions) {
  const tenant = await prisma.tenant.findUnique({ where: { id: tenantId } });
  if (!tenant) throw new AppError("not_found", "Workspace not found");
  return tenant;
}
