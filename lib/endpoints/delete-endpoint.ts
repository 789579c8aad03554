// Deletes an endpoint, unless consumers still hold paid sessions on it (their balances would go
// with it: PaymentSession rows cascade). Deactivating (isActive false) is the way out then.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";

export type DeleteEndpointOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  tenantId: string;
  endpointId: string;
  now?: Date;
};

/** 404 if the tenant has no such endpoint; 409 while unexpired paid sessions exist. */
export async function deleteEndpoint({ prisma, store, tenantId, endpointId, now = new Date() }: DeleteEndpointOptions): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const endpoint = await tx.endpoint.findFirst({ where: { id: endpointId, tenantId }, select: { id: true } });
    if (!endpoint) throw new AppError("not_found", "Endpoint not found");
    const liveSessions = await tx.paymentSession.count({ where: { endpointId, tenantId, expiresAt: { gt: now } } });
    if (liveSessions > 0) {
      throw new AppError(
        "conflict",
        `${liveSessions} paid session(s) on this endpoint have not expired yet; deactivate it (isActive: false) instead, or delete it after they expire`,
        { activeSessions: liveSessions },
      );
    }
    await tx.endpoint.deleteMany({ where: { id: endpointId, tenantId } });
  });
  await publishConfigChanged({ store, tenantId });
}
