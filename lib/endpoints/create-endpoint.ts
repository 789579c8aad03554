// Creates an endpoint; publishing the first active priced endpoint starts the workspace's trial.
import { isUniqueViolation, type PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { startTrialIfUnset } from "@/lib/tenants/start-trial.ts";
import { duplicateEndpointMessage, toEndpointColumns, type EndpointRow } from "./columns.ts";
import type { EndpointConfig } from "./schemas.ts";

export type CreateEndpointOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  tenantId: string;
  /** Already validated by endpointCreateSchema. */
  endpoint: EndpointConfig;
  now?: Date;
};

/** Inserts the endpoint (409 on a duplicate method + path) and notifies the gateways. */
export async function createEndpoint({ prisma, store, tenantId, endpoint, now = new Date() }: CreateEndpointOptions): Promise<EndpointRow> {
  let row: EndpointRow;
  try {
    row = await prisma.$transaction(async (tx) => {
      const created = await tx.endpoint.create({ data: { ...toEndpointColumns(endpoint), tenantId } });
      if (created.isActive && created.pricingModel) await startTrialIfUnset({ tx, tenantId, now });
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", duplicateEndpointMessage(endpoint), { fields: ["method", "path"] });
    throw err;
  }
  await publishConfigChanged({ store, tenantId });
  return row;
}
