// LNbits (https://demo.lnbits.com/docs, lnbits/core/views/payment_api.py), with the wallet's invoice key:
//   POST /api/v1/payments {out: false, amount: <sats>, memo, expiry, unit: "sat"}, header `X-Api-Key`
//        -> 201 {payment_hash, payment_request} (before 1.0) or the Payment model with `bolt11` (1.x)
//        401/403 -> "unauthorized"
//   GET  /api/v1/payments/{payment_hash} -> {paid, details: {amount (msat), bolt11, expiry, status, updated_at, ...}}
//        404 {"detail": "Payment does not exist."} -> null (a 404 with another detail is a wrong URL)
// LNbits answers this GET even without a valid key, but then leaves out `details`; a missing `details`
// therefore means the key does not belong to the wallet, reported as "unauthorized".
// LNbits exposes no node key to an invoice key: getNodePubkey answers with the key that signed the
// invoices we created (the funding node's), or null before the first. Settlement time is `updated_at`
// of a paid 1.x payment; older versions do not record it, so it is then the time we first saw it paid.
// Every call goes through this backend's pinned dispatcher (wallet-network.ts); LNbits' error texts
// are read to classify, never repeated.
import type { Agent } from "undici";
import { z } from "zod";
import type { LnbitsCredentials } from "./credentials.ts";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest, type InvoiceLookup, type WalletBackend } from "./types.ts";
import { DEFAULT_WALLET_TIMEOUT_MS, type WalletCapabilities } from "./wallet-capabilities.ts";
import { WalletHttpClient, walletHttpError, type WalletHttpResponse } from "./wallet-http.ts";
import { walletDispatcher, type TargetPolicy } from "./wallet-network.ts";
import { assertInvoiceRequest, checkCreatedInvoice, decodeWalletInvoice, isPaymentHash, parseWalletResponse } from "./wallet-response.ts";

const BACKEND = "LNbits";

/** What an LNbits backend needs: validated credentials, the address rules and, optionally, a per-call timeout. */
export type LnbitsBackendOptions = {
  credentials: LnbitsCredentials;
  /** Which addresses the instance may be at (walletTargetPolicy), checked at every connection. */
  targetPolicy: TargetPolicy;
  timeoutMs?: number;
  /** Injectable clock for expiry decisions and legacy settlement times (tests). */
  now?: () => Date;
};

const createResponse = z
  .looseObject({
    payment_hash: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be a 32-byte hex hash"),
    payment_request: z.string().min(1).optional(),
    bolt11: z.string().min(1).optional(),
  })
  .refine((body) => body.payment_request !== undefined || body.bolt11 !== undefined, "must carry payment_request or bolt11");

/** A time LNbits may send as unix seconds (pre-1.0) or an ISO date (1.x). */
const lnbitsTime = z.union([z.number(), z.string()]).nullish();

const paymentResponse = z.looseObject({
  paid: z.boolean(),
  /** Top level in every LNbits version; a zero filler before payment, hence read only when paid. */
  preimage: z.string().nullish(),
  details: z
    .looseObject({
      amount: z.number().optional(),
      bolt11: z.string().optional(),
      status: z.string().optional(),
      updated_at: lnbitsTime,
    })
    .optional(),
});

/** FastAPI's error body: a string, or a list of validation problems. */
const errorBody = z.looseObject({ detail: z.union([z.string(), z.array(z.looseObject({ msg: z.string().optional() }))]) });

/** Reads an LNbits time field into a Date; null when absent or unreadable. */
function readTime(value: number | string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The text of an LNbits error answer, when it has one (to classify it; never shown). */
function errorDetail(response: WalletHttpResponse): string | undefined {
  const parsed = errorBody.safeParse(response.json);
  if (!parsed.success) return response.text.slice(0, 200) || undefined;
  const { detail } = parsed.data;
  return typeof detail === "string"
    ? detail
    : detail
        .map((problem) => problem.msg)
        .filter(Boolean)
        .join("; ");
}

/** An LNbits wallet as a WalletBackend. */
export class LnbitsBackend implements WalletBackend, Pick<WalletCapabilities, "close"> {
  readonly type = "lnbits" as const;
  private readonly http: WalletHttpClient;
  private readonly agent: Agent;
  private closing: Promise<void> | null = null;
  private readonly now: () => Date;
  private invoiceSigner: string | null = null;

  constructor(options: LnbitsBackendOptions) {
    this.now = options.now ?? (() => new Date());
    const timeoutMs = options.timeoutMs ?? DEFAULT_WALLET_TIMEOUT_MS;
    this.agent = walletDispatcher(options.targetPolicy, { connectTimeoutMs: timeoutMs });
    this.http = new WalletHttpClient({
      backend: BACKEND,
      baseUrl: options.credentials.url,
      timeoutMs,
      headers: { "x-api-key": options.credentials.invoiceKey },
      dispatcher: this.agent,
    });
  }

  /** Creates an incoming payment and checks the invoice LNbits returned. */
  async createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice> {
    assertInvoiceRequest(request);
    const response = await this.http.send("POST", "/api/v1/payments", {
      json: { out: false, amount: request.amountSats, memo: request.description, expiry: request.expirySeconds, unit: "sat" },
    });
    const body = parseWalletResponse(BACKEND, "invoice creation", createResponse, this.ok(response, "invoice creation"));
    const checked = checkCreatedInvoice(BACKEND, request, body.payment_request ?? body.bolt11, body.payment_hash);
    this.invoiceSigner = checked.payeeNodeKey;
    return { paymentRequest: checked.paymentRequest, paymentHash: checked.paymentHash, expiresAt: checked.expiresAt };
  }

  /** Reads the payment; null when LNbits says it does not exist. */
  async lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null> {
    if (!isPaymentHash(paymentHash)) return null;
    const hash = paymentHash.toLowerCase();
    const response = await this.http.send("GET", `/api/v1/payments/${hash}`);
    if (response.status === 404 && errorDetail(response) === "Payment does not exist.") return null;
    const payment = parseWalletResponse(BACKEND, "payment lookup", paymentResponse, this.ok(response, "payment lookup"));
    if (!payment.details) {
      throw new WalletError("unauthorized", `${BACKEND} withheld the payment details: the invoice key does not belong to this wallet`);
    }
    const { details } = payment;
    const invoice = details.bolt11 ? decodeWalletInvoice(BACKEND, details.bolt11) : null;
    const amountSats =
      details.amount !== undefined ? Math.floor(Math.abs(details.amount) / 1000) : invoice?.amountMsat ? Number(invoice.amountMsat / 1000n) : 0;
    if (payment.paid) {
      const settledAt = (details.status === "success" ? readTime(details.updated_at) : null) ?? this.now();
      return { paymentHash: hash, state: "settled", settledAt, amountSats, preimage: payment.preimage?.toLowerCase() ?? null };
    }
    const expired = invoice !== null && this.now().getTime() >= invoice.expiresAt.getTime();
    // LNbits 1.x marks an invoice "failed" once it expired; failed before expiry means it was dropped.
    const state = expired ? "expired" : details.status === "failed" ? "canceled" : "open";
    return { paymentHash: hash, state, settledAt: null, amountSats, preimage: null };
  }

  /** The signer of the invoices we created (LNbits exposes no node key to an invoice key). */
  async getNodePubkey(): Promise<string | null> {
    return this.invoiceSigner;
  }

  /** Closes this backend's connections (again: nothing more to do). */
  async close(): Promise<void> {
    this.closing ??= this.agent.close();
    await this.closing;
  }

  /** Returns the JSON body of a 2xx answer, or throws the WalletError the status means. */
  private ok(response: WalletHttpResponse, what: string): unknown {
    if (response.status >= 200 && response.status < 300) {
      if (response.json === undefined) throw new WalletError("invalid_response", `${BACKEND} answered ${what} with a body that is not JSON`);
      return response.json;
    }
    throw walletHttpError(BACKEND, what, response.status);
  }
}
