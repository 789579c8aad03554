// The payer the L402 client needs (owned here, implemented in ./wallets): pay a bolt11 invoice and
// hand back the preimage, the proof of payment the gateway checks against the macaroon.

/** What a wallet learned from paying: the 32-byte preimage as lowercase hex. */
export type WalletPayment = { preimage: string; feeSats?: number };

/**
 * What the client tells the wallet about the payment it asks for. Adapters that pay at once need
 * only the invoice; a payer that waits on a person (a QR code, a confirm button) uses the rest.
 */
export type WalletPayRequest = {
  invoice: string;
  amountSats: number;
  /**
   * The challenge's macaroon: lets a payer whose invoice is paid elsewhere (a phone scanning a QR
   * code) ask the issuer whether it settled, e.g. this hub's `POST /api/l402/settlement`.
   */
  macaroon?: string;
  /** The payment hash the gateway's 402 body named (hex), when it did. */
  paymentHash?: string | null;
  /** The prepaid credit this invoice buys, when it buys credit. */
  creditSats?: number | null;
  /** Aborts with the request: a payer still waiting stops waiting (a payment already sent stays sent). */
  signal?: AbortSignal;
};

/** A wallet adapter: dev node, NWC, LND REST, LNbits, phoenixd or WebLN (./wallets). */
export interface L402Wallet {
  /** Short name for logs and tool results (e.g. "dev", "nwc"). */
  readonly name: string;
  /** Pays the invoice; resolves with the preimage, rejects when the payment failed. */
  pay(request: WalletPayRequest): Promise<WalletPayment>;
  /** Releases connections (NWC relays); optional. */
  close?(): Promise<void> | void;
}

const PREIMAGE_HEX = /^[0-9a-f]{64}$/;

/** Lowercase hex of a preimage given as hex or (as LND and some wallets return it) base64. */
export function normalizePreimage(value: unknown, wallet: string): string {
  if (typeof value !== "string" || value.length === 0) throw new Error(`${wallet}: the wallet returned no preimage`);
  const lower = value.trim().toLowerCase();
  if (PREIMAGE_HEX.test(lower)) return lower;
  try {
    const binary = atob(value.trim().replace(/-/g, "+").replace(/_/g, "/"));
    if (binary.length === 32) {
      return Array.from(binary, (c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
    }
  } catch {
    // fall through to the error below
  }
  throw new Error(`${wallet}: the wallet returned a preimage that is not 32 bytes of hex or base64`);
}

/** sha256(preimage) as hex, with WebCrypto (browsers and Node): checks a wallet's answer. */
export async function paymentHashOf(preimageHex: string): Promise<string> {
  const bytes = new Uint8Array(preimageHex.match(/../g)!.map((b) => parseInt(b, 16)));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
