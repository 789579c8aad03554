// The wallet interface the gateway and worker need (owned by its consumers, Aperture style).
// Implementations: dev node (lib/lightning/dev-node.ts) now; LND REST, NWC, LNbits, phoenixd later.

export type CreateInvoiceRequest = {
  amountSats: number;
  description: string;
  expirySeconds: number;
};

export type CreatedInvoice = {
  paymentRequest: string;
  /** 32-byte payment hash, lowercase hex. */
  paymentHash: string;
  expiresAt: Date;
};

export type InvoiceState = "open" | "settled" | "expired" | "canceled";

export type InvoiceLookup = {
  paymentHash: string;
  state: InvoiceState;
  settledAt: Date | null;
  amountSats: number;
  /**
   * The preimage (lowercase hex) of a settled invoice, when the wallet reports it; null otherwise.
   * Only the settlement endpoint reads it (a QR payer's browser finishing its call); callers must
   * check sha256(preimage) == paymentHash themselves rather than trust the wallet.
   */
  preimage?: string | null;
};

/** A provider's receiving wallet. Never asked to authorize a request: the preimage is the proof. */
export interface WalletBackend {
  readonly type: "dev" | "lnd" | "nwc" | "lnbits" | "phoenixd";
  createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice>;
  lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null>;
  /** The node's public key (hex), shown in the directory as walletPubkey; null when unknown. */
  getNodePubkey(): Promise<string | null>;
}

/** A wallet failure with a stable kind the gateway can map (503 when no invoice can be made). */
export class WalletError extends Error {
  constructor(
    readonly kind: "unreachable" | "timeout" | "unauthorized" | "rejected" | "invalid_response",
    message: string,
  ) {
    super(message);
    this.name = "WalletError";
  }
}
