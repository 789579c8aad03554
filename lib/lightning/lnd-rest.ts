// LND over its REST proxy (https://lightning.engineering/api-docs/api/lnd/rest-endpoints):
//   POST /v1/invoices {value: "<sats>", memo, expiry: "<seconds>"} -> {r_hash (base64), payment_request, add_index}
//   GET  /v1/invoice/{r_hash_hex}  -> {state: OPEN|SETTLED|CANCELED|ACCEPTED, settle_date, value, creation_date, expiry}
//                                     404 {code: 5, message: "unable to locate invoice"} -> null (a bare 404 is a wrong URL)
//   GET  /v1/getinfo               -> {identity_pubkey}            (needs info:read)
//   GET  /v1/channels              -> {channels: [{active, capacity, remote_balance, ...}]} (needs offchain:read)
// Every request carries `Grpc-Metadata-macaroon: <hex>`. LND reports macaroon failures as gRPC Unknown
// errors (HTTP 500, "verification failed: …", "permission denied", "expected 1 macaroon, got 0"), so those
// messages map to "unauthorized" whatever the status. A plain invoice.macaroon cannot call getinfo or
// channels: getNodePubkey then answers with the key that signed our invoices (or null before the first),
// and getCapacity fails "unauthorized"; bake `invoices:read invoices:write info:read offchain:read` for both.
// A self-signed node certificate (LND's default tls.cert) is trusted through tlsCertPem (undici Agent `ca`).
// int64 fields arrive as JSON strings, bytes as base64, as grpc-gateway renders them. Every call goes
// through this backend's pinned dispatcher (wallet-network.ts); LND's error texts are read to classify,
// never repeated.
import type { Agent } from "undici";
import { z } from "zod";
import type { LndCredentials } from "./credentials.ts";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest, type InvoiceLookup, type InvoiceState, type WalletBackend } from "./types.ts";
import { DEFAULT_WALLET_TIMEOUT_MS, type WalletCapabilities, type WalletCapacity } from "./wallet-capabilities.ts";
import { WalletHttpClient, walletHttpError, type WalletHttpResponse } from "./wallet-http.ts";
import { walletDispatcher, type TargetPolicy } from "./wallet-network.ts";
import { assertInvoiceRequest, checkCreatedInvoice, isPaymentHash, parseWalletResponse } from "./wallet-response.ts";

const BACKEND = "LND";

/** What an LND backend needs: validated credentials, the address rules and, optionally, a per-call timeout. */
export type LndRestBackendOptions = {
  credentials: LndCredentials;
  /** Which addresses the node may be at (walletTargetPolicy), checked at every connection. */
  targetPolicy: TargetPolicy;
  timeoutMs?: number;
  /** Injectable clock for expiry decisions (tests). */
  now?: () => Date;
};

/** An int64/uint64 as grpc-gateway renders it (decimal string; numbers from older proxies), as a number. */
const int64 = z
  .union([z.string().regex(/^\d{1,19}$/, "must be a decimal integer"), z.number().int().nonnegative()])
  .transform(Number)
  .refine(Number.isSafeInteger, "is too large");

const addInvoiceResponse = z.looseObject({
  r_hash: z.string().min(1),
  payment_request: z.string().min(1),
  add_index: int64.optional(),
});

const invoiceResponse = z.looseObject({
  state: z.enum(["OPEN", "SETTLED", "CANCELED", "ACCEPTED"]),
  // Older REST proxies omitted zero values, so every number defaults to 0.
  value: int64.default(0),
  value_msat: int64.optional(),
  settle_date: int64.default(0),
  creation_date: int64.default(0),
  expiry: int64.default(0),
  /** base64 bytes; LND reports it for open invoices too, so it is only passed on once settled. */
  r_preimage: z.string().nullish(),
});

const getInfoResponse = z.looseObject({
  identity_pubkey: z.string().regex(/^0[23][0-9a-fA-F]{64}$/, "must be a compressed public key"),
});

const channelsResponse = z.looseObject({
  channels: z
    .array(
      z.looseObject({
        active: z.boolean().default(false),
        remote_pubkey: z.string().default(""),
        capacity: int64.default(0),
        remote_balance: int64.default(0),
        remote_chan_reserve_sat: int64.default(0),
      }),
    )
    .default([]),
});

/** LND's error body: `{code, message, details}` (grpc-gateway). */
const errorBody = z.looseObject({ code: z.number().optional(), message: z.string().optional() });

/** Messages of LND's macaroon interceptor and bakery: bad or insufficient credentials. */
const MACAROON_FAILURE = /verification failed|permission denied|expected 1 macaroon|macaroon|root key|invalid ID/i;

/** Messages LND uses for an unknown hash (NotFound since 0.15; older versions sent them as code 2). */
const INVOICE_NOT_FOUND = /unable to locate invoice|there are no existing invoices/i;

/** True for LND's "no such invoice" answer, which must not be confused with a 404 from a wrong URL. */
function isInvoiceNotFound(response: WalletHttpResponse): boolean {
  if (response.status < 400) return false;
  const parsed = errorBody.safeParse(response.json);
  if (!parsed.success) return false;
  return (response.status === 404 && parsed.data.code === 5) || INVOICE_NOT_FOUND.test(parsed.data.message ?? "");
}

/** LND as a WalletBackend, with channel capacity from ListChannels. */
export class LndRestBackend implements WalletBackend, Pick<WalletCapabilities, "getCapacity" | "close"> {
  readonly type = "lnd" as const;
  private readonly http: WalletHttpClient;
  private readonly agent: Agent;
  private closing: Promise<void> | null = null;
  private readonly now: () => Date;
  /** identity_pubkey from getinfo, once known. */
  private identityPubkey: string | null = null;
  /** The key that signed the invoices we created: the node's key, known without info:read. */
  private invoiceSigner: string | null = null;

  constructor(options: LndRestBackendOptions) {
    const { credentials } = options;
    this.now = options.now ?? (() => new Date());
    const timeoutMs = options.timeoutMs ?? DEFAULT_WALLET_TIMEOUT_MS;
    // Pinned to allowed addresses; trusting only the node's own certificate when one is given.
    this.agent = walletDispatcher(options.targetPolicy, { ca: credentials.tlsCertPem, connectTimeoutMs: timeoutMs });
    this.http = new WalletHttpClient({
      backend: BACKEND,
      baseUrl: credentials.restUrl,
      timeoutMs,
      headers: { "grpc-metadata-macaroon": credentials.macaroonHex },
      dispatcher: this.agent,
    });
  }

  /** AddInvoice, then checks the returned invoice is for our amount and its hash is r_hash. */
  async createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice> {
    assertInvoiceRequest(request);
    const response = await this.http.send("POST", "/v1/invoices", {
      json: { value: String(request.amountSats), memo: request.description, expiry: String(request.expirySeconds) },
    });
    const body = parseWalletResponse(BACKEND, "AddInvoice", addInvoiceResponse, this.ok(response, "invoice creation"));
    const rHash = Buffer.from(body.r_hash, "base64");
    if (rHash.length !== 32) throw new WalletError("invalid_response", `${BACKEND} returned an r_hash that is not 32 bytes`);
    const checked = checkCreatedInvoice(BACKEND, request, body.payment_request, rHash.toString("hex"));
    this.invoiceSigner = checked.payeeNodeKey;
    return { paymentRequest: checked.paymentRequest, paymentHash: checked.paymentHash, expiresAt: checked.expiresAt };
  }

  /** LookupInvoice by hex hash; null when LND does not know the hash. */
  async lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null> {
    if (!isPaymentHash(paymentHash)) return null;
    const hash = paymentHash.toLowerCase();
    const response = await this.http.send("GET", `/v1/invoice/${hash}`);
    if (isInvoiceNotFound(response)) return null;
    const invoice = parseWalletResponse(BACKEND, "LookupInvoice", invoiceResponse, this.ok(response, "invoice lookup"));
    const expired = invoice.expiry > 0 && this.now().getTime() >= (invoice.creation_date + invoice.expiry) * 1000;
    let state: InvoiceState;
    if (invoice.state === "SETTLED") state = "settled";
    // LND cancels expired invoices itself; a CANCELED invoice past its expiry simply expired.
    else if (invoice.state === "CANCELED") state = expired ? "expired" : "canceled";
    // ACCEPTED (a held HTLC) is not money yet: it still counts as open.
    else state = expired && invoice.state === "OPEN" ? "expired" : "open";
    return {
      paymentHash: hash,
      state,
      settledAt: state === "settled" && invoice.settle_date > 0 ? new Date(invoice.settle_date * 1000) : null,
      amountSats: invoice.value_msat !== undefined && invoice.value_msat > 0 ? Math.floor(invoice.value_msat / 1000) : invoice.value,
      preimage: state === "settled" && invoice.r_preimage ? Buffer.from(invoice.r_preimage, "base64").toString("hex") : null,
    };
  }

  /** identity_pubkey from getinfo; without info:read, the signer of our invoices (null before the first). */
  async getNodePubkey(): Promise<string | null> {
    if (this.identityPubkey) return this.identityPubkey;
    try {
      const response = await this.http.send("GET", "/v1/getinfo");
      const info = parseWalletResponse(BACKEND, "GetInfo", getInfoResponse, this.ok(response, "getinfo"));
      this.identityPubkey = info.identity_pubkey.toLowerCase();
      return this.identityPubkey;
    } catch (err) {
      if (err instanceof WalletError && err.kind === "unauthorized") return this.invoiceSigner;
      throw err;
    }
  }

  /** Channel liquidity from ListChannels: inbound is remote balance above the peer's reserve. */
  async getCapacity(): Promise<WalletCapacity> {
    const response = await this.http.send("GET", "/v1/channels");
    const { channels } = parseWalletResponse(BACKEND, "ListChannels", channelsResponse, this.ok(response, "channel listing"));
    const active = channels.filter((channel) => channel.active);
    return {
      activeChannels: active.length,
      totalChannels: channels.length,
      receivingCapacitySat: active.reduce((sum, c) => sum + Math.max(0, c.remote_balance - c.remote_chan_reserve_sat), 0),
      totalCapacitySat: channels.reduce((sum, c) => sum + c.capacity, 0),
      peersOnline: new Set(active.map((channel) => channel.remote_pubkey)).size,
    };
  }

  /** Closes this backend's connections (again: nothing more to do). */
  async close(): Promise<void> {
    this.closing ??= this.agent.close();
    await this.closing;
  }

  /** Returns the JSON body of a 2xx answer, or throws the WalletError LND's error body means. */
  private ok(response: WalletHttpResponse, what: string): unknown {
    if (response.status >= 200 && response.status < 300) {
      if (response.json === undefined) throw new WalletError("invalid_response", `${BACKEND} answered ${what} with a body that is not JSON`);
      return response.json;
    }
    // LND's message only classifies the failure; it is not repeated (the URL may not lead to LND at all).
    const parsed = errorBody.safeParse(response.json);
    const message = parsed.success ? parsed.data.message : response.text.slice(0, 200);
    if (message && MACAROON_FAILURE.test(message)) {
      throw new WalletError("unauthorized", `${BACKEND} refused the macaroon for ${what} (HTTP ${response.status})`);
    }
    throw walletHttpError(BACKEND, what, response.status);
  }
}
