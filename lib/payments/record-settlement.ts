// Learning of settlement from the wallet (not from a proof): the worker polls pending invoices
// and records each settlement once, with its invoice.settled event, in one transaction.
import type { PrismaClient } from "../db/client.ts";
import type { InvoiceLookup, WalletBackend } from "../lightning/types.ts";
import { enqueueEvent } from "../webhooks/enqueue-event.ts";
import type { InvoiceSettledData } from "./outbox.ts";

/** Marks an invoice settled and enqueues invoice.settled, unless a proof or another worker did first. */
export async function recordInvoiceSettled(options: { prisma: PrismaClient; paymentHash: string; settledAt: Date }): Promise<boolean> {
  return options.prisma.$transaction(async (tx) => {
    const updated = await tx.invoice.updateManyAndReturn({
      where: { paymentHash: options.paymentHash, status: { not: "settled" } },
      data: { status: "settled", settledAt: options.settledAt },
    });
    const invoice = updated[0];
    if (!invoice) return false;
    const data: InvoiceSettledData = {
      paymentHash: invoice.paymentHash,
      amountSats: invoice.amountSats,
      purpose: invoice.purpose,
      endpointId: invoice.endpointId,
      settledAt: options.settledAt.toISOString(),
      source: "wallet",
    };
    await enqueueEvent(tx, { tenantId: invoice.tenantId, type: "invoice.settled", data });
    return true;
  });
}

export type PollSettlementsOptions = {
  prisma: PrismaClient;
  /**
   * Returns the wallet of a tenant, or null when it has none or it is not reachable from here.
   * Backends holding connections are closed when the pass ends.
   */
  walletFor: (tenantId: string) => Promise<(WalletBackend & { close?(): Promise<void> }) | null>;
  batchSize?: number;
  now?: Date;
};

/**
 * One pass over pending invoices: settled ones are recorded, lapsed ones marked expired.
 * Returns how many settlements were recorded.
 */
export async function pollInvoiceSettlements(options: PollSettlementsOptions): Promise<number> {
  const now = options.now ?? new Date();
  const { prisma } = options;
  // Invoices whose expiry passed more than a minute ago cannot settle any more.
  await prisma.invoice.updateMany({
    where: { status: "pending", expiresAt: { lt: new Date(now.getTime() - 60_000) } },
    data: { status: "expired" },
  });
  const pending = await prisma.invoice.findMany({
    where: { status: "pending", purpose: { not: "billing" } },
    orderBy: { createdAt: "desc" },
    take: options.batchSize ?? 500,
    select: { paymentHash: true, tenantId: true },
  });
  type Backend = (WalletBackend & { close?(): Promise<void> }) | null;
  const wallets = new Map<string, Promise<Backend>>();
  const walletOf = (tenantId: string) => {
    let wallet = wallets.get(tenantId);
    if (!wallet) {
      wallet = options.walletFor(tenantId).catch(() => null);
      wallets.set(tenantId, wallet);
    }
    return wallet;
  };
  let recorded = 0;
  try {
    for (const invoice of pending) {
      const backend = await walletOf(invoice.tenantId);
      if (!backend) continue;
      let lookup: InvoiceLookup | null;
      try {
        lookup = await backend.lookupInvoice(invoice.paymentHash);
      } catch {
        continue; // the wallet is down; the next pass retries
      }
      if (lookup?.state === "settled" && (await recordInvoiceSettled({ prisma, paymentHash: invoice.paymentHash, settledAt: lookup.settledAt ?? now }))) {
        recorded += 1;
      }
    }
  } finally {
    await Promise.allSettled([...wallets.values()].map(async (w) => (await w)?.close?.()));
  }
  return recorded;
}
