// Lists a workspace's endpoints (not paginated: a workspace has tens of endpoints, not thousands).
import type { PrismaClient } from "@/lib/db/client.ts";
import type { EndpointRow } from "./columns.ts";

export type ListEndpointsOptions = { prisma: PrismaClient; tenantId: string };

/** All endpoints of the tenant, ordered by path then method. */
export async function listEndpoints({ prisma, tenantId }: ListEndpointsOptions): Promise<EndpointRow[]> {
  return prisma.endpoint.findMany({ where: { tenantId }, orderBy: [{ path: "asc" }, { method: "asc" }] });
}
