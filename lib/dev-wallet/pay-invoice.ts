// Pays an invoice of the dev Lightning node (dev wallets, the WebLN shim, tests). Only exists
// while the dev node is on; its refusals keep their stable code in `details.reason`.
import { AppError, type ErrorCode } from "@/lib/errors/index.ts";
import { DevPaymentError, type DevLightningNode, type DevPayment, type DevPaymentErrorCode } from "@/lib/lightning/index.ts";

export type PayDevInvoiceOptions = { devNode: DevLightningNode | null; invoice: string };

/** How each refusal maps onto the platform's error codes. */
const REFUSALS: Record<DevPaymentErrorCode, ErrorCode> = {
  invalid_invoice: "bad_request",
  unknown_invoice: "not_found",
  already_paid: "conflict",
  // Gone: an expired invoice can never be paid; the client must request a fresh challenge.
  expired: "gone",
};

/** Pays through the dev node; 404 when it is off, refusals mapped by REFUSALS. */
export async function payDevInvoice({ devNode, invoice }: PayDevInvoiceOptions): Promise<DevPayment> {
  if (!devNode) throw new AppError("not_found", "The dev Lightning node is off on this server");
  try {
    return await devNode.pay(invoice);
  } catch (err) {
    if (err instanceof DevPaymentError) throw new AppError(REFUSALS[err.code], err.message, { reason: err.code });
    throw err;
  }
}
