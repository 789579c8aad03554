// Reads a workspace's connected wallet (without credentials), with what the dashboard shows about
// it: the last invoice issued through it and the capacity monitor's latest verdict.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { describeWallet } from "@/lib/lightning/credentials.ts";
import { readWalletCredentials } from "./open-wallet.ts";

export type GetWalletOptions = { prisma: PrismaClient; appSecret: string; tenantId: string };

/** 404 when no wallet is connected yet. */
export async function getWallet({ prisma, appSecret, tenantId }: GetWalletOptions) {
  const wallet = await prisma.wallet.findUnique({
    where: { tenantId },
    select: {
      type: true,
      credentialsEnc: true,
      nodePubkey: true,
      connectedAt: true,
      lastInvoiceAt: true,
      capacityStatus: true,
      capacityReason: true,
      capacityCheckedAt: true,
    },
  });
  if (!wallet) throw new AppError("not_found", "No wallet connected; PUT /api/tenants/:tenantId/wallet connects one");
  // The gateway records every invoice it issues; those since the connection came from this wallet
  // (the row's own lastInvoiceAt is the connection's test invoice).
  const latest = await prisma.invoice.findFirst({
    where: { tenantId, createdAt: { gte: wallet.connectedAt } },
    orderBy: { createdAt: "desc" },
    select: { createdAt: true },
  });
  const { credentialsEnc: _sealed, capacityStatus, capacityReason, capacityCheckedAt, lastInvoiceAt, ...visible } = wallet;
  const newest = [lastInvoiceAt, latest?.createdAt ?? null].filter((d): d is Date => d !== null).sort((a, b) => b.getTime() - a.getTime())[0] ?? null;
  return {
    ...visible,
    lastInvoiceAt: newest,
    capacity: capacityStatus && capacityCheckedAt ? { status: capacityStatus, reason: capacityReason, checkedAt: capacityCheckedAt } : null,
    ...describeWallet(readWalletCredentials(appSecret, wallet)),
  };
}
