// A fake LNbits wallet API (FastAPI), built from LNbits' payment API (lnbits/core/views/payment_api.py):
//   POST /api/v1/payments {out: false, amount, memo, expiry, unit} with `X-Api-Key: <invoice or admin key>`
//        201 -> legacy: {payment_hash, payment_request, checking_id, lnurl_response}
//               v1.x:   the Payment model {payment_hash, bolt11, checking_id, amount (msat), status, ...}
//        bad or missing key -> 401 {"detail": "Invoice (or Admin) key required."}
//   GET  /api/v1/payments/{payment_hash} (the key is optional, as in LNbits)
//   POST /api/v1/payments {out: true, bolt11} with the admin key: pays over `network` (SDK payer tests)
//        -> {paid, preimage, details} with a key of the owning wallet; {paid, preimage} without one
//        unknown hash (or another wallet's, when a valid key is given) -> 404 {"detail": "Payment does not exist."}
// Request validation errors are FastAPI's 422 `{"detail": [{loc, msg, type}]}`. Test-only code.
import { randomBytes } from "node:crypto";
import { FakeWalletApi, type FakeOutgoingPayment } from "./fake-wallet-api.ts";
import { FakeHttpServer, jsonBody, type FakeReply, type RecordedRequest } from "./fake-http-server.ts";
import type { FakeInvoice } from "./fake-invoices.ts";

/** Which LNbits generation to imitate: pre-1.0 field names, or the 1.x Payment model. */
export type LnbitsApiStyle = "legacy" | "v1";

/** Options of a fake LNbits: response style and clock. */
export type FakeLnbitsOptions = { style?: LnbitsApiStyle; now?: () => Date };

/** LNbits' memo limit (CreateInvoice.memo max_length). */
const MAX_MEMO_LENGTH = 640;

const detail = (status: number, message: string): FakeReply => ({ status, body: { detail: message } });
const unprocessable = (field: string, msg: string): FakeReply => ({ status: 422, body: { detail: [{ loc: ["body", field], msg, type: "value_error" }] } });
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const unix = (date: Date) => Math.floor(date.getTime() / 1000);

/** A running fake LNbits with one wallet, and its test controls. */
export class FakeLnbits extends FakeWalletApi {
  /** The wallet's invoice/read key. */
  readonly invoiceKey = randomBytes(16).toString("hex");
  /** The wallet's admin key (also accepted for invoices, as in LNbits). */
  readonly adminKey = randomBytes(16).toString("hex");
  private readonly walletId = randomBytes(16).toString("hex");
  private readonly checkingIds = new Map<string, string>();
  private readonly outgoing = new Map<string, FakeOutgoingPayment>();

  private constructor(
    private readonly style: LnbitsApiStyle,
    now: () => Date,
  ) {
    super(now);
  }

  /** Starts a fake LNbits on 127.0.0.1. */
  static async start(options: FakeLnbitsOptions = {}): Promise<FakeLnbits> {
    const fake = new FakeLnbits(options.style ?? "v1", options.now ?? (() => new Date()));
    fake.server = await FakeHttpServer.start((request, url) => fake.route(request, url));
    return fake;
  }

  private keyOf(request: RecordedRequest, url: URL): string | null {
    const header = request.headers["x-api-key"];
    return (typeof header === "string" ? header : null) ?? url.searchParams.get("api-key");
  }

  private isWalletKey(key: string | null): boolean {
    return key === this.invoiceKey || key === this.adminKey;
  }

  private route(request: RecordedRequest, url: URL): FakeReply | Promise<FakeReply> {
    const payment = /^\/api\/v1\/payments\/([^/]+)$/.exec(url.pathname);
    if (request.method === "POST" && url.pathname === "/api/v1/payments" && jsonBody(request)?.out === true) return this.payInvoice(request, url);
    if (request.method === "POST" && url.pathname === "/api/v1/payments") return this.createInvoice(request, url);
    if (request.method === "GET" && payment) return this.getPayment(payment[1], this.keyOf(request, url));
    return detail(404, "Not Found");
  }

  /** An outgoing payment (`out: true`, admin key only): legacy answers `{payment_hash, checking_id}`, 1.x the Payment model. */
  private async payInvoice(request: RecordedRequest, url: URL): Promise<FakeReply> {
    if (this.keyOf(request, url) !== this.adminKey) return detail(401, "Admin key required.");
    const bolt11 = jsonBody(request)?.bolt11;
    if (typeof bolt11 !== "string" || bolt11 === "") return unprocessable("bolt11", "field required");
    const sent = await this.sendPayment(bolt11);
    if (!sent.ok) return detail(520, `Payment failed: ${sent.message}`);
    this.outgoing.set(sent.paymentHash, sent);
    if (this.style === "legacy") return { status: 201, body: { payment_hash: sent.paymentHash, checking_id: sent.paymentHash } };
    return {
      status: 201,
      body: {
        checking_id: sent.paymentHash,
        payment_hash: sent.paymentHash,
        wallet_id: this.walletId,
        amount: -sent.amountSat * 1000,
        fee: 0,
        bolt11: sent.invoice,
        status: "success",
        preimage: sent.preimage,
        memo: "",
        time: new Date().toISOString(),
      },
    };
  }

  private createInvoice(request: RecordedRequest, url: URL): FakeReply {
    if (!this.isWalletKey(this.keyOf(request, url))) return detail(401, "Invoice (or Admin) key required.");
    const body = jsonBody(request);
    if (!body) return { status: 422, body: { detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] } };
    if (body.out !== false) return detail(401, "Invoice (or Admin) key required.");
    if (body.unit !== undefined && body.unit !== "sat") return unprocessable("unit", "this fake only prices in sat");
    if (typeof body.amount !== "number" || !Number.isInteger(body.amount) || body.amount <= 0)
      return unprocessable("amount", "ensure this value is greater than 0");
    const memo = body.memo === undefined || body.memo === null ? "LNbits" : body.memo;
    if (typeof memo !== "string" || memo.length > MAX_MEMO_LENGTH) return unprocessable("memo", `ensure this value has at most ${MAX_MEMO_LENGTH} characters`);
    const expiry = body.expiry === undefined || body.expiry === null ? 3600 : body.expiry;
    if (typeof expiry !== "number" || !Number.isInteger(expiry) || expiry <= 0) return unprocessable("expiry", "ensure this value is greater than 0");

    const invoice = this.node.issue({ amountMsat: BigInt(body.amount) * 1000n, description: memo, expirySeconds: expiry });
    const checkingId = this.style === "legacy" ? invoice.paymentHash : `fake_${randomBytes(8).toString("hex")}`;
    this.checkingIds.set(invoice.paymentHash, checkingId);
    if (this.style === "legacy") {
      return {
        status: 201,
        body: { payment_hash: invoice.paymentHash, payment_request: invoice.paymentRequest, checking_id: checkingId, lnurl_response: null },
      };
    }
    return { status: 201, body: this.paymentModel(invoice) };
  }

  private getPayment(paymentHash: string, key: string | null): FakeReply {
    const outgoing = this.outgoing.get(paymentHash.toLowerCase());
    if (outgoing)
      return {
        status: 200,
        body: {
          paid: true,
          status: "success",
          preimage: outgoing.preimage,
          details: { payment_hash: outgoing.paymentHash, bolt11: outgoing.invoice, amount: -outgoing.amountSat * 1000, preimage: outgoing.preimage },
        },
      };
    const invoice = this.node.get(paymentHash);
    // With or without a key this fake has one wallet, so "another wallet's payment" cannot occur.
    if (!invoice) return detail(404, "Payment does not exist.");
    const paid = invoice.settledAt !== null;
    const withDetails = this.isWalletKey(key);
    if (this.style === "legacy") {
      const details = {
        checking_id: this.checkingIds.get(invoice.paymentHash),
        pending: !paid,
        amount: Number(invoice.amountMsat),
        fee: 0,
        memo: invoice.description,
        time: unix(invoice.createdAt),
        bolt11: invoice.paymentRequest,
        preimage: paid ? invoice.preimage : "0".repeat(64),
        payment_hash: invoice.paymentHash,
        expiry: unix(invoice.expiresAt),
        extra: {},
        wallet_id: this.walletId,
        webhook: null,
        webhook_status: null,
      };
      return { status: 200, body: { paid, preimage: paid ? invoice.preimage : null, ...(withDetails ? { details } : {}) } };
    }
    const model = this.paymentModel(invoice);
    return { status: 200, body: { paid, status: model.status, preimage: model.preimage, ...(withDetails ? { details: model } : {}) } };
  }

  /** LNbits 1.x's Payment model for an incoming payment. */
  private paymentModel(invoice: FakeInvoice) {
    const status = invoice.settledAt ? "success" : this.node.isExpired(invoice) ? "failed" : "pending";
    return {
      checking_id: this.checkingIds.get(invoice.paymentHash),
      payment_hash: invoice.paymentHash,
      wallet_id: this.walletId,
      amount: Number(invoice.amountMsat),
      fee: 0,
      bolt11: invoice.paymentRequest,
      fiat_provider: null,
      status,
      memo: invoice.description,
      expiry: iso(invoice.expiresAt),
      webhook: null,
      webhook_status: null,
      preimage: invoice.settledAt ? invoice.preimage : null,
      tag: null,
      extension: null,
      time: iso(invoice.createdAt),
      created_at: iso(invoice.createdAt),
      updated_at: iso(invoice.settledAt ?? invoice.createdAt),
      extra: {},
    };
  }
}
