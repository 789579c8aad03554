// phoenixd's HTTP API (https://phoenix.acinq.co/server/api): `POST /payinvoice` form-encoded
// `invoice=<bolt11>` with HTTP Basic auth (empty user, the http-password) -> `{recipientAmountSat,
// routingFeeSat, paymentId, paymentHash, paymentPreimage}`; failures answer a non-2xx or a body
// with `reason`.
import { normalizePreimage, type L402Wallet } from "../wallet.ts";
import { baseUrl, DEFAULT_PAY_TIMEOUT_MS, field, walletCall } from "./http-wallet.ts";

export type PhoenixdWalletOptions = {
  /** phoenixd's address, e.g. `http://127.0.0.1:9740`. */
  url: string;
  /** `http-password` from phoenix.conf (the limited-access password cannot pay). */
  password: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

/** A wallet paying through phoenixd. */
export function phoenixdWallet(options: PhoenixdWalletOptions): L402Wallet {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return {
    name: "phoenixd",
    async pay({ invoice }) {
      const res = await walletCall(
        "phoenixd",
        doFetch,
        `${baseUrl(options.url)}/payinvoice`,
        {
          method: "POST",
          headers: { authorization: `Basic ${btoa(`:${options.password}`)}`, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ invoice }).toString(),
        },
        options.timeoutMs ?? DEFAULT_PAY_TIMEOUT_MS,
      );
      if (!res.ok) throw new Error(`phoenixd: ${res.status} ${res.text.slice(0, 200)}`);
      const reason = field(res.json, "reason");
      if (typeof reason === "string") throw new Error(`phoenixd: ${reason}`);
      const fee = field(res.json, "routingFeeSat");
      return { preimage: normalizePreimage(field(res.json, "paymentPreimage"), "phoenixd"), ...(typeof fee === "number" ? { feeSats: fee } : {}) };
    },
  };
}
