// Dev wallet pay API (the stand-in for paying over the Lightning network in development and tests).
import { z } from "zod";

/** POST /api/dev/lightning/pay */
export const devPaySchema = z.strictObject({
  invoice: z.string().trim().min(1, "must be a bolt11 payment request").max(4096),
});
export type DevPay = z.output<typeof devPaySchema>;

/** What a paying wallet learns: the preimage is the proof of payment. */
export const devPaymentResponseSchema = z.object({
  preimage: z.string(),
  paymentHash: z.string(),
  amountSats: z.number(),
});
export type DevPaymentResponse = z.output<typeof devPaymentResponseSchema>;
