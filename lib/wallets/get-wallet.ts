// Reads a workspace's connected wallet (without credentials).
import type { PrismaClient } from "../db/client.ts";
import { AppError } from "../errors/index.ts";
import { describeWallet } from "../lightning/credentials.ts";
import { readWalletCredentials } from "./open-wallet.ts";

export type GetWalletOptions = { prisma: PrismaClient; appSecret: string; tenantId: string };

/** 404 when no wallet is connected yet. */
export async function getWallet({ prisma, appSecret, tenantId }: GetWalletOptions) {
  const wallet = await prisma.wallet.findUnique({
    where: { tenantId },
    select: { type: true, credentialsEnc: true, nodePubkey: true, connectedAt: true, lastInvoiceAt: true },
  });
  if (!wallet) throw new AppError("not_found", "No wallet connected; PUT /api/tenants/:tenantId/wallet connects one");
  const { credentialsEnc: _sealed, ...visible } = wallet;
  return { ...visible, ...describeWallet(readWalletCredentials(appSecret, wallet)) };
}
