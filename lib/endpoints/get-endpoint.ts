// Reads one endpoint of a workspace, scoped by tenant in the query itself.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { EndpointRow } from "./columns.ts";

export type GetEndpointOptions = { prisma: PrismaClient; tenantId: string; endpointId: string };

/** One endpoint of the tenant, or 404 (an id of another tenant is indistinguishable from none). */
export async function getEndpoint({ prisma, tenantId, endpointId }: GetEndpointOptions): Promise<EndpointRow> {
  const endpoint = await prisma.endpoint.findFirst({ where: { id: endpointId, tenantId } });
  if (!endpoint) throw new AppError("not_found", "Endpoint not found");
  return endpoint;
}
