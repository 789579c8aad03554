// The Lightning node behind every fake wallet (LND, LNbits, phoenixd, NWC wallet service): a random
// node key signing REAL regtest BOLT11 invoices exactly as the dev node does (lib/lightning/dev-node.ts),
// an in-memory invoice book, and `markPaid`, the test's stand-in for a payer. Test-only code.
import { createHash, randomBytes } from "node:crypto";
import { encode as encodeBolt11, sign as signBolt11 } from "bolt11";
import { getPublicKey, utils as secpUtils } from "@noble/secp256k1";

/** bitcoinjs-style regtest parameters; bolt11 derives the `lnbcrt` prefix from them. */
const REGTEST = { bech32: "bcrt", pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] };

/** One invoice a fake node issued, with everything a fake API needs to describe it. */
export type FakeInvoice = {
  paymentHash: string;
  preimage: string;
  paymentRequest: string;
  amountMsat: bigint;
  description: string;
  /** Whole seconds, as encoded in the invoice. */
  createdAt: Date;
  expirySeconds: number;
  expiresAt: Date;
  settledAt: Date | null;
  /** 1-based creation order (LND's add_index). */
  addIndex: number;
  /** 1-based settlement order, 0 while open (LND's settle_index). */
  settleIndex: number;
};

/** What a fake API asks its node for; amounts in msat because NIP-47 speaks msat. */
export type FakeInvoiceRequest = { amountMsat: bigint; description: string; expirySeconds: number };

/** A fake node: signs invoices with its own key, remembers them, and settles them on request. */
export class FakeLightningNode {
  /** 33-byte compressed node key (hex), what decoders recover from the invoices' signatures. */
  readonly nodePubkey: string;
  private readonly secretKeyHex: string;
  private readonly invoices = new Map<string, FakeInvoice>();
  private readonly settledListeners = new Set<(invoice: FakeInvoice) => void>();
  private settled = 0;

  constructor(private readonly now: () => Date = () => new Date()) {
    const secretKey = secpUtils.randomSecretKey();
    this.secretKeyHex = Buffer.from(secretKey).toString("hex");
    this.nodePubkey = Buffer.from(getPublicKey(secretKey, true)).toString("hex");
  }

  /** Signs a regtest invoice for the amount with a fresh preimage and records it as open. */
  issue(request: FakeInvoiceRequest): FakeInvoice {
    const preimage = randomBytes(32);
    const paymentHash = createHash("sha256").update(preimage).digest("hex");
    const timestamp = Math.floor(this.now().getTime() / 1000);
    const unsigned = encodeBolt11(
      {
        network: REGTEST,
        millisatoshis: request.amountMsat.toString(),
        timestamp,
        tags: [
          { tagName: "payment_hash", data: paymentHash },
          { tagName: "payment_secret", data: randomBytes(32).toString("hex") },
          { tagName: "description", data: request.description },
          { tagName: "expire_time", data: request.expirySeconds },
          { tagName: "min_final_cltv_expiry", data: 18 },
          {
            tagName: "feature_bits",
            data: { word_length: 4, var_onion_optin: { required: true }, payment_secret: { required: true } },
          },
        ],
      },
      false,
    );
    const paymentRequest = signBolt11(unsigned, this.secretKeyHex).paymentRequest;
    if (!paymentRequest) throw new Error("bolt11 returned no payment request");
    const invoice: FakeInvoice = {
      paymentHash,
      preimage: preimage.toString("hex"),
      paymentRequest,
      amountMsat: request.amountMsat,
      description: request.description,
      createdAt: new Date(timestamp * 1000),
      expirySeconds: request.expirySeconds,
      expiresAt: new Date((timestamp + request.expirySeconds) * 1000),
      settledAt: null,
      addIndex: this.invoices.size + 1,
      settleIndex: 0,
    };
    this.invoices.set(paymentHash, invoice);
    return invoice;
  }

  /** The invoice with this payment hash (any case), or undefined when this node never issued it. */
  get(paymentHash: string): FakeInvoice | undefined {
    return this.invoices.get(paymentHash.toLowerCase());
  }

  /** The invoice with this exact payment request, or undefined (NIP-47 lookup_invoice by invoice). */
  findByPaymentRequest(paymentRequest: string): FakeInvoice | undefined {
    for (const invoice of this.invoices.values()) {
      if (invoice.paymentRequest === paymentRequest) return invoice;
    }
    return undefined;
  }

  /** True once the invoice's expiry has passed on the node's clock. */
  isExpired(invoice: FakeInvoice): boolean {
    return this.now().getTime() >= invoice.expiresAt.getTime();
  }

  /** Settles an invoice as if a payer had paid it; throws for unknown or already settled invoices. */
  markPaid(paymentHash: string): FakeInvoice {
    const invoice = this.get(paymentHash);
    if (!invoice) throw new Error(`fake node: unknown invoice ${paymentHash}`);
    if (invoice.settledAt) throw new Error(`fake node: invoice ${paymentHash} is already settled`);
    // Whole seconds, like every real backend reports settlement times.
    invoice.settledAt = new Date(Math.floor(this.now().getTime() / 1000) * 1000);
    invoice.settleIndex = ++this.settled;
    for (const listener of this.settledListeners) listener(invoice);
    return invoice;
  }

  /** Subscribes to settlements (the fakes' push channels); returns the unsubscribe function. */
  onSettled(listener: (invoice: FakeInvoice) => void): () => void {
    this.settledListeners.add(listener);
    return () => {
      this.settledListeners.delete(listener);
    };
  }
}
