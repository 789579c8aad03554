// Settling an invoice: the one rule for every path that learns an invoice was paid (a session's
// opening proof, a credit's first burn, the wallet's report to the worker or the try-it poll). The
// invoice turns settled at most once, and the transaction that turns it writes `invoice.settled`
// (lib/events) with it, so the event exists exactly when the settlement does.
// Its batched twin is the SQL of lib/payments/redeem-proof.ts (`settled` and `settledEventSql`):
// per_request claims settle and write the same event in their claim statement, one round trip per
// call or per batch. A change to the rule here is a change there too.
import type { OutboxWriter } from "@/lib/events/enqueue-event.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import type { InvoiceSettledData } from "@/lib/events/outbox.ts";

/** Which invoice turns settled, how we learned of it, and the transaction that records it. */
export type SettleInvoiceOptions = {
  /** The caller's transaction: the settlement commits with whatever it makes (a session, a credit). */
  tx: OutboxWriter;
  paymentHash: string;
  /**
   * Only this tenant's invoice (a proof's, whose macaroon names the tenant); omitted by the wallet
   * poller, which found the invoice by its hash in the tenant's own wallet.
   */
  tenantId?: string;
  /** When it settled, as the wallet reports it; a proof settles it at the database's now(). */
  settledAt?: Date;
  /** How we learned of it: the first valid proof at the gateway, or the wallet. */
  source: InvoiceSettledData["source"];
};

type SettledRow = Omit<InvoiceSettledData, "settledAt" | "source"> & { tenantId: string; settledAt: Date };

/**
 * Marks the invoice settled and enqueues `invoice.settled`, unless it was settled before (by a
 * proof, the wallet or another gateway instance): true when this call settled it.
 */
export async function settleInvoice(options: SettleInvoiceOptions): Promise<boolean> {
  const { tx, paymentHash, source } = options;
  const tenantId = options.tenantId ?? null;
  // An instant with its zone (ISO 8601, Z): the same timestamptz in any session.
  const settledAt = options.settledAt?.toISOString() ?? null;
  const rows = await tx.$queryRaw<SettledRow[]>`
    UPDATE "Invoice" SET "status" = 'settled', "settledAt" = COALESCE(${settledAt}::timestamptz, now())
    WHERE "paymentHash" = ${paymentHash} AND (${tenantId}::text IS NULL OR "tenantId" = ${tenantId}::text) AND "status" <> 'settled'
    RETURNING "tenantId", "paymentHash", "amountSats", "purpose"::text AS "purpose", "endpointId", "settledAt"`;
  const invoice = rows[0];
  if (!invoice) return false;
  const data: InvoiceSettledData = {
    paymentHash: invoice.paymentHash,
    amountSats: invoice.amountSats,
    purpose: invoice.purpose,
    endpointId: invoice.endpointId,
    settledAt: invoice.settledAt.toISOString(),
    source,
  };
  await enqueueEvent(tx, { tenantId: invoice.tenantId, type: "invoice.settled", data });
  return true;
}
