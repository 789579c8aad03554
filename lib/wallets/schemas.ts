// Receiving wallet resource (non-custodial: the provider's own node). Credentials go in, never out.
import { z } from "zod";
import { walletCredentialsSchema } from "@/lib/lightning/credentials.ts";
import { CAPACITY_REASONS } from "@/lib/events/catalogue.ts";

/** Every backend the schema knows (Prisma enum WalletType). */
export const WALLET_TYPES = ["dev", "lnd", "nwc", "lnbits", "phoenixd"] as const;
export type WalletType = (typeof WALLET_TYPES)[number];

/**
 * PUT /api/tenants/:tenantId/wallet: `{type:"dev"}`, `{type:"lnd", restUrl, macaroonHex, tlsCertPem?}`,
 * `{type:"nwc", connectionUri}`, `{type:"lnbits", url, invoiceKey}`, `{type:"phoenixd", url, password}`.
 */
export const walletConnectSchema = walletCredentialsSchema;
export type WalletConnect = z.output<typeof walletConnectSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** A connected wallet as its workspace sees it: no credentials. */
export const walletResponseSchema = z.object({
  type: z.enum(WALLET_TYPES),
  /** Where it is, without secrets: e.g. "LND at node.example.com:8080". */
  label: z.string(),
  host: z.string().nullable(),
  nodePubkey: z.string().nullable(),
  connectedAt: isoDate,
  /** The newest invoice issued through this wallet: the gateway's, or the connection's test invoice. */
  lastInvoiceAt: isoDate.nullable(),
  /**
   * The node capacity monitor's latest verdict (lib/webhooks/capacity-monitor.ts), for backends that
   * report channels (dev node, LND); null until it has checked. `reason` names a degradation.
   */
  capacity: z
    .object({
      status: z.enum(["ok", "degraded"]),
      reason: z.enum(CAPACITY_REASONS).nullable(),
      checkedAt: isoDate,
    })
    .nullable(),
});
export type WalletResponse = z.output<typeof walletResponseSchema>;
