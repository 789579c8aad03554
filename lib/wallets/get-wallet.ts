// Reads a workspace's connected wallet (without credentials).
import type { PrismaClient } from "../db/client.ts";
import { AppError } from "../errors/index.ts";

export type GetWalletOptions = { prisma: PrismaClient; tenantId: string };

/** 404 when no wallet is connected yet. */
export async function getWallet({ prisma, tenantId }: GetWalletOptions) {
  const wallet = await prisma.wallet.findUnique({
    where: { tenantId },
    select: { type: true, nodePubkey: true, connectedAt: true, lastInvoiceAt: true },
  });
  if (!wallet) throw new AppError("not_found", "No wallet connected; PUT /api/tenants/:tenantId/wallet connects one");
  return wallet;
}
