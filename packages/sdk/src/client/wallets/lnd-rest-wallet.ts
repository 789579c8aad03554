// LND's REST API (https://lightning.engineering/api-docs/api/lnd/lightning/send-payment-sync):
// `POST /v1/channels/transactions {payment_request}` with `Grpc-Metadata-macaroon: <hex>` (a
// macaroon allowed offchain:write, e.g. admin.macaroon) -> `{payment_error, payment_preimage
// (base64), payment_hash, payment_route}`. A non-empty payment_error means nothing was paid.
import { normalizePreimage, type L402Wallet } from "../wallet.ts";
import { baseUrl, DEFAULT_PAY_TIMEOUT_MS, field, walletCall } from "./http-wallet.ts";

export type LndRestWalletOptions = {
  /** REST address, e.g. `https://127.0.0.1:8080`. */
  url: string;
  /** A macaroon with offchain:write permission, hex encoded. */
  macaroonHex: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

/** A wallet paying through an LND node's REST API. */
export function lndRestWallet(options: LndRestWalletOptions): L402Wallet {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return {
    name: "lnd",
    async pay({ invoice }) {
      const res = await walletCall(
        "lnd",
        doFetch,
        `${baseUrl(options.url)}/v1/channels/transactions`,
        {
          method: "POST",
          headers: { "content-type": "application/json", "grpc-metadata-macaroon": options.macaroonHex },
          body: JSON.stringify({ payment_request: invoice }),
        },
        options.timeoutMs ?? DEFAULT_PAY_TIMEOUT_MS,
      );
      // grpc-gateway errors: {code, message, details}.
      if (!res.ok) throw new Error(`lnd: ${res.status} ${String(field(res.json, "message") ?? res.text.slice(0, 200))}`);
      const paymentError = field(res.json, "payment_error");
      if (typeof paymentError === "string" && paymentError !== "") throw new Error(`lnd: ${paymentError}`);
      return { preimage: normalizePreimage(field(res.json, "payment_preimage"), "lnd") };
    },
  };
}
