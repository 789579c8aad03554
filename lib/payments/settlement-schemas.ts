// The challenge settlement resource (`POST /api/l402/settlement`): how a browser that showed a
// challenge's invoice as a QR code learns that a phone wallet paid it, and gets the preimage to
// finish its call. Route handler, try-it client and tests share these shapes.
import { z } from "zod";
import { MAX_MACAROON_LENGTH } from "@/lib/l402/macaroon.ts";

/** POST /api/l402/settlement: the macaroon of the 402 the caller received (its capability). */
export const settlementQuerySchema = z.strictObject({
  macaroon: z.string().trim().min(1, "must be the macaroon of a 402 challenge").max(MAX_MACAROON_LENGTH),
});
export type SettlementQuery = z.output<typeof settlementQuerySchema>;

/** Where the challenge's invoice stands; the preimage is present only once it is settled. */
export const settlementStateSchema = z.enum(["open", "settled", "expired", "canceled"]);
export type SettlementState = z.infer<typeof settlementStateSchema>;

export const settlementResponseSchema = z.object({
  state: settlementStateSchema,
  paymentHash: z.string(),
  /**
   * The preimage (hex) when settled and the wallet reports it; null while unpaid, or when the
   * wallet does not report preimages (then the payer's own wallet shows it).
   */
  preimage: z.string().nullable(),
});
export type SettlementResponse = z.infer<typeof settlementResponseSchema>;
