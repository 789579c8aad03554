// Receiving wallet resource (non-custodial: the provider's own node). Credentials go in, never out.
import { z } from "zod";

/** Every backend the schema knows (Prisma enum WalletType). */
export const WALLET_TYPES = ["dev", "lnd", "nwc", "lnbits", "phoenixd"] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

/** Backends this server can connect today; the others are refused with 422 until implemented. */
export const SUPPORTED_WALLET_TYPES: readonly WalletType[] = ["dev"];

/** PUT /api/tenants/:tenantId/wallet. The dev wallet takes no credentials. */
export const walletConnectSchema = z.strictObject({
  type: z.enum(WALLET_TYPES),
});
export type WalletConnect = z.output<typeof walletConnectSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** A connected wallet as its workspace sees it: no credentials. */
export const walletResponseSchema = z.object({
  type: z.enum(WALLET_TYPES),
  nodePubkey: z.string().nullable(),
  connectedAt: isoDate,
  lastInvoiceAt: isoDate.nullable(),
});
export type WalletResponse = z.output<typeof walletResponseSchema>;
