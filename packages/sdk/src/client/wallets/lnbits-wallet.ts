// LNbits' payment API (lnbits/core/views/payment_api.py): `POST /api/v1/payments {out: true,
// bolt11}` with `X-Api-Key: <admin key>` -> 201. LNbits 1.x answers with the Payment model
// (`preimage` set once paid); older versions answer `{payment_hash, checking_id}` only, so the
// preimage is then read from `GET /api/v1/payments/{payment_hash}` (`{paid, preimage}`).
import { normalizePreimage, type L402Wallet } from "../wallet.ts";
import { baseUrl, DEFAULT_PAY_TIMEOUT_MS, field, walletCall } from "./http-wallet.ts";

export type LnbitsWalletOptions = {
  /** The LNbits instance, e.g. `https://legend.lnbits.com`. */
  url: string;
  /** The wallet's admin key (the invoice key cannot pay). */
  adminKey: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
};

/** LNbits reports a pending payment's preimage as 64 zeros. */
const NO_PREIMAGE = /^0{64}$/;

function usablePreimage(value: unknown): string | null {
  return typeof value === "string" && value !== "" && !NO_PREIMAGE.test(value) ? value : null;
}

/** A wallet paying through an LNbits wallet. */
export function lnbitsWallet(options: LnbitsWalletOptions): L402Wallet {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PAY_TIMEOUT_MS;
  const headers = { "content-type": "application/json", "x-api-key": options.adminKey };
  return {
    name: "lnbits",
    async pay({ invoice }) {
      const res = await walletCall(
        "lnbits",
        doFetch,
        `${baseUrl(options.url)}/api/v1/payments`,
        { method: "POST", headers, body: JSON.stringify({ out: true, bolt11: invoice }) },
        timeoutMs,
      );
      if (!res.ok) throw new Error(`lnbits: ${res.status} ${String(field(res.json, "detail") ?? res.text.slice(0, 200))}`);
      if (field(res.json, "status") === "failed") throw new Error("lnbits: the payment failed");
      const direct = usablePreimage(field(res.json, "preimage"));
      if (direct) return { preimage: normalizePreimage(direct, "lnbits") };
      const paymentHash = field(res.json, "payment_hash");
      if (typeof paymentHash !== "string" || !/^[0-9a-fA-F]{64}$/.test(paymentHash)) throw new Error("lnbits: the answer names no payment hash");
      const status = await walletCall("lnbits", doFetch, `${baseUrl(options.url)}/api/v1/payments/${paymentHash}`, { headers }, timeoutMs);
      if (!status.ok) throw new Error(`lnbits: ${status.status} looking the payment up`);
      const preimage = usablePreimage(field(status.json, "preimage")) ?? usablePreimage(field(field(status.json, "details"), "preimage"));
      if (field(status.json, "paid") !== true || !preimage) throw new Error("lnbits: the payment is not complete");
      return { preimage: normalizePreimage(preimage, "lnbits") };
    },
  };
}
