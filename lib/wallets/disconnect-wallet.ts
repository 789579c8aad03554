// Disconnects a workspace's receiving wallet: the sealed credentials are deleted and the gateways
// told, so priced endpoints answer 503 ("no wallet") instead of issuing invoices nobody can receive.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";

export type DisconnectWalletOptions = { prisma: PrismaClient; store: KeyValueStore; tenantId: string };

/** 404 when no wallet is connected. Invoices already issued stay recorded (they belong to the workspace). */
export async function disconnectWallet({ prisma, store, tenantId }: DisconnectWalletOptions): Promise<void> {
  const { count } = await prisma.wallet.deleteMany({ where: { tenantId } });
  if (count === 0) throw new AppError("not_found", "No wallet connected");
  await publishConfigChanged({ store, tenantId });
}
