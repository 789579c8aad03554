// Learning of settlement from the wallet (not from a proof): the worker polls pending invoices
// and records each settlement once, with its invoice.settled event, in one transaction.
import type { PrismaClient } from "@/lib/db/client.ts";
import type { InvoiceLookup, WalletBackend } from "@/lib/lightning/types.ts";
import { settleInvoice } from "./settle-invoice.ts";

/**
 * Marks an invoice settled and enqueues invoice.settled, unless a proof or another worker did first
 * (lib/payments/settle-invoice.ts, at the time the wallet reports).
 */
export async function recordInvoiceSettled(options: { prisma: PrismaClient; paymentHash: string; settledAt: Date }): Promise<boolean> {
  const { paymentHash, settledAt } = options;
  return options.prisma.$transaction((tx) => settleInvoice({ tx, paymentHash, settledAt, source: "wallet" }));
}

/**
 * Where the next pass starts: after the last invoice the previous pass looked at, in the order
 * (expiresAt, paymentHash); null starts from the invoice that expires first.
 */
export type SettlementCursor = { expiresAt: string; paymentHash: string } | null;

export type PollSettlementsOptions = {
  prisma: PrismaClient;
  /**
   * Returns the wallet of a tenant, or null when it has none or it is not reachable from here.
   * Asked once per tenant per pass; the caller owns what it returns (the pass never closes it), so
   * a caller keeps live backends across passes (the worker's WalletBackendCache).
   */
  walletFor: (tenantId: string) => Promise<WalletBackend | null>;
  /** Invoices looked at per pass (bounded work per tick). */
  pageSize?: number;
  /** The previous pass's `next`. */
  after?: SettlementCursor;
};

/** What one pass did, and where the next one starts. */
export type SettlementPass = { recorded: number; expired: number; next: SettlementCursor };

type PendingInvoice = { paymentHash: string; tenantId: string; expiresAt: Date; lapsed: boolean };

/**
 * One pass over a page of pending invoices, soonest expiry first, continuing after the previous
 * pass's cursor and starting over after the last page: however many are pending (a flood of
 * challenges), each is looked at once per round of passes. Settled ones are recorded. An invoice is
 * marked expired only after its wallet was asked (a minute past its expiry, by the database's
 * clock) and did not report it settled, so a paid invoice is never written off unseen; when the
 * tenant has no wallet to ask, lapsed invoices are marked expired as they come.
 */
export async function pollInvoiceSettlements(options: PollSettlementsOptions): Promise<SettlementPass> {
  const { prisma } = options;
  const pageSize = options.pageSize ?? 500;
  const after = options.after ?? null;
  // The cursor's instant goes as ISO 8601 with its zone, the same timestamptz in any session.
  const page = await prisma.$queryRaw<PendingInvoice[]>`
    SELECT "paymentHash", "tenantId", "expiresAt", "expiresAt" < now() - interval '1 minute' AS "lapsed"
    FROM "Invoice"
    WHERE "status" = 'pending' AND "purpose" <> 'billing'
      AND (${after?.expiresAt ?? null}::timestamptz IS NULL
        OR ("expiresAt", "paymentHash") > (${after?.expiresAt ?? null}::timestamptz, ${after?.paymentHash ?? ""}))
    ORDER BY "expiresAt", "paymentHash"
    LIMIT ${pageSize}`;
  const wallets = new Map<string, Promise<WalletBackend | null>>();
  const walletOf = (tenantId: string) => {
    let wallet = wallets.get(tenantId);
    if (!wallet) {
      wallet = options.walletFor(tenantId).catch(() => null);
      wallets.set(tenantId, wallet);
    }
    return wallet;
  };
  // A wallet that failed once in this pass is not asked again until the next round: a dead
  // node costs one timeout per pass, not one per invoice.
  const unreachable = new Set<string>();
  const lapsed: string[] = [];
  let recorded = 0;
  for (const invoice of page) {
    if (unreachable.has(invoice.tenantId)) continue;
    const backend = await walletOf(invoice.tenantId);
    if (!backend) {
      if (invoice.lapsed) lapsed.push(invoice.paymentHash);
      continue;
    }
    let lookup: InvoiceLookup | null;
    try {
      lookup = await backend.lookupInvoice(invoice.paymentHash);
    } catch {
      unreachable.add(invoice.tenantId);
      continue;
    }
    if (lookup?.state === "settled") {
      if (await recordInvoiceSettled({ prisma, paymentHash: invoice.paymentHash, settledAt: lookup.settledAt ?? new Date() })) recorded += 1;
    } else if (invoice.lapsed) {
      lapsed.push(invoice.paymentHash);
    }
  }
  // Conditional: a proof may have settled one since we read it.
  const expired = lapsed.length
    ? await prisma.invoice.updateMany({ where: { paymentHash: { in: lapsed }, status: "pending" }, data: { status: "expired" } })
    : { count: 0 };
  const last = page.at(-1);
  const next = page.length === pageSize && last ? { expiresAt: last.expiresAt.toISOString(), paymentHash: last.paymentHash } : null;
  return { recorded, expired: expired.count, next };
}
