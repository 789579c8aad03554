// The dev wallet: pays invoices of an install's dev Lightning node through its pay API
// (`POST {api_url}/dev/lightning/pay {invoice}` -> `{preimage, paymentHash, amountSats}`,
// app/api/dev/lightning/pay/route.ts). Only works where the dev node is on; never a real payment.
import { normalizePreimage, type L402Wallet } from "../wallet.ts";

export type DevWalletOptions = {
  /** The pay route, e.g. `http://localhost:3000/api/dev/lightning/pay`. */
  url: string;
  fetch?: typeof fetch;
};

/** A wallet paying through the dev node's pay API. */
export function devWallet({ url, fetch: doFetch = globalThis.fetch.bind(globalThis) }: DevWalletOptions): L402Wallet {
  return {
    name: "dev",
    async pay({ invoice }) {
      const res = await doFetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice }) });
      const text = await res.text();
      let body: { preimage?: unknown; error?: { message?: string } } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // reported below with the status
      }
      if (!res.ok) throw new Error(`dev wallet: ${res.status} ${body.error?.message ?? text.slice(0, 200)}`);
      return { preimage: normalizePreimage(body.preimage, "dev wallet") };
    },
  };
}
