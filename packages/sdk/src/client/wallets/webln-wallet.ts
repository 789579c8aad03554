// WebLN (https://www.webln.guide/): a browser extension's `window.webln`, or any provider object
// with `enable()` and `sendPayment(paymentRequest)` -> `{preimage}` (e.g. `requestProvider()` of
// the `webln` package, or the site's dev-wallet shim).
import { normalizePreimage, type L402Wallet } from "../wallet.ts";

/** The part of a WebLN provider the client uses. */
export type WebLnProviderLike = {
  enable(): Promise<unknown>;
  sendPayment(paymentRequest: string): Promise<{ preimage: string }>;
};

/** A wallet paying through WebLN; `provider` defaults to `window.webln`. */
export function weblnWallet(provider?: WebLnProviderLike): L402Wallet {
  let enabled: Promise<unknown> | null = null;
  return {
    name: "webln",
    async pay({ invoice }) {
      const webln = provider ?? (globalThis as { webln?: WebLnProviderLike }).webln;
      if (!webln) throw new Error("webln: no WebLN provider (install a WebLN wallet extension or pass a provider)");
      // enable() asks the user once; a refusal is retried on the next payment.
      enabled ??= webln.enable().catch((err: unknown) => {
        enabled = null;
        throw err;
      });
      await enabled;
      const { preimage } = await webln.sendPayment(invoice);
      return { preimage: normalizePreimage(preimage, "webln") };
    },
  };
}
