// The wallet try-it hands the SDK's L402 client: its pay() puts the invoice on screen and resolves
// with the first preimage from any way the visitor pays: WebLN (tried at once when the page has a
// provider), a phone wallet scanning the QR code (learned by polling POST /api/l402/settlement
// with the challenge's macaroon), the dev wallet, or a pasted preimage. Browser-safe; the I/O is
// injectable so tests drive it.
import type { L402Wallet, WalletPayment, WalletPayRequest } from "@l402-hub/sdk/client";
import { devWallet, weblnWallet, type WebLnProviderLike } from "@l402-hub/sdk/client";
import { pollSettlement, type PollSettlementOptions } from "./poll-settlement.ts";

/** The invoice being paid, as the invoice panel shows it. */
export type InvoiceToPay = { invoice: string; amountSats: number; paymentHash: string | null; creditSats: number | null };

/** What is happening with the payment right now. */
export type PaymentChannel =
  | { kind: "waiting" }
  | { kind: "webln" }
  | { kind: "dev" }
  | { kind: "failed"; via: "webln" | "dev" | "settlement"; message: string; canPaste: boolean }
  | { kind: "paid" };

/** What the page shows of a payment: the invoice and how paying it goes. */
export type VisitorPayment = { invoice: InvoiceToPay; channel: PaymentChannel };

export type VisitorWalletOptions = {
  /** Called whenever what the visitor should see changes; null once no invoice is open (canceled). */
  onChange: (payment: VisitorPayment | null) => void;
  /** The page's WebLN provider, looked up at each payment (extensions inject it late); default `window.webln`. */
  webln?: () => WebLnProviderLike | undefined;
  /** The dev node's pay route when the dev node is on (`/api/dev/lightning/pay`), else null. */
  devPayUrl?: string | null;
  /** Settlement polling's address, timing and I/O (tests make it instant). */
  settlement?: Omit<PollSettlementOptions, "macaroon" | "signal">;
  /** The dev wallet's fetch; default the global one. */
  fetch?: typeof fetch;
};

/** The L402 wallet plus the ways the invoice panel lets the visitor pay the open invoice. */
export interface VisitorWallet extends L402Wallet {
  /** Pays through WebLN (the button, after a refusal or when the provider appeared late). */
  payWithWebln(): void;
  /** Pays through the dev node's pay route. */
  payWithDevWallet(): void;
  /** Finishes with a preimage the visitor pasted; the panel checks it against the payment hash first. */
  acceptPreimage(preimage: string): void;
}

/** The invoice on screen and how to end it. */
type OpenPayment = {
  invoice: InvoiceToPay;
  channel: PaymentChannel;
  settle: (preimage: string) => void;
  abandon: (reason: unknown) => void;
};

/** A wallet that pays by whichever way the visitor pays first; one invoice is open at a time. */
export function createVisitorWallet(options: VisitorWalletOptions): VisitorWallet {
  const findWebln = options.webln ?? (() => (globalThis as { webln?: WebLnProviderLike }).webln);
  const dev = options.devPayUrl ? devWallet({ url: options.devPayUrl, fetch: options.fetch }) : null;
  let open: OpenPayment | null = null;

  const setChannel = (payment: OpenPayment, channel: PaymentChannel) => {
    if (open !== payment) return;
    payment.channel = channel;
    options.onChange({ invoice: payment.invoice, channel });
  };

  /** Pays the open invoice through one of the in-browser wallets; a failure leaves the invoice open. */
  async function payThrough(via: "webln" | "dev", wallet: L402Wallet | null, explain: (message: string) => string) {
    const payment = open;
    if (!payment) return;
    setChannel(payment, { kind: via });
    try {
      if (!wallet) throw new Error("not available here");
      const { preimage } = await wallet.pay({ invoice: payment.invoice.invoice, amountSats: payment.invoice.amountSats });
      payment.settle(preimage);
    } catch (err) {
      const message = err instanceof Error && err.message ? err.message : "the wallet did not pay";
      setChannel(payment, { kind: "failed", via, message: explain(message), canPaste: false });
    }
  }

  const payWithWebln = () =>
    void payThrough(
      "webln",
      weblnWallet(findWebln()),
      (message) => `Your WebLN wallet did not pay (${message}). Scan the QR code with another wallet, or send again.`,
    );

  return {
    name: "try-it",
    pay(request: WalletPayRequest): Promise<WalletPayment> {
      return new Promise<WalletPayment>((resolve, reject) => {
        const signal = request.signal;
        const polling = new AbortController();
        const onAbort = () => payment.abandon(signal?.reason ?? new Error("aborted"));
        /** Ends this payment once: the panel shows `last` (or nothing), polling stops. */
        const close = (last: PaymentChannel | null, outcome: () => void) => {
          if (open !== payment) return;
          open = null;
          polling.abort();
          signal?.removeEventListener("abort", onAbort);
          options.onChange(last ? { invoice: payment.invoice, channel: last } : null);
          outcome();
        };
        const payment: OpenPayment = {
          invoice: {
            invoice: request.invoice,
            amountSats: request.amountSats,
            paymentHash: request.paymentHash ?? null,
            creditSats: request.creditSats ?? null,
          },
          channel: { kind: "waiting" },
          settle: (preimage) => close({ kind: "paid" }, () => resolve({ preimage: preimage.toLowerCase() })),
          abandon: (reason) => close(null, () => reject(reason)),
        };
        open?.abandon(new Error("a newer payment replaced this one"));
        if (signal?.aborted) return reject(signal.reason);
        open = payment;
        signal?.addEventListener("abort", onAbort, { once: true });
        options.onChange({ invoice: payment.invoice, channel: payment.channel });
        // The QR path runs all along: a phone may pay while the other options are on screen.
        if (request.macaroon) {
          void pollSettlement({ ...options.settlement, macaroon: request.macaroon, signal: polling.signal }).then((result) => {
            if (result.ok) payment.settle(result.preimage);
            else if (result.reason !== "aborted")
              setChannel(payment, { kind: "failed", via: "settlement", message: result.message, canPaste: result.reason === "no_preimage" });
          });
        }
        if (findWebln()) payWithWebln();
      });
    },
    payWithWebln,
    payWithDevWallet: () => void payThrough("dev", dev, (message) => `The dev wallet could not pay (${message}).`),
    acceptPreimage: (preimage) => open?.settle(preimage),
  };
}
