// phoenixd (https://phoenix.acinq.co/server/api), HTTP Basic auth with an empty user and the http-password:
//   POST /createinvoice (form: description, amountSat, expirySeconds) -> {amountSat, paymentHash, serialized}
//   GET  /payments/incoming/{paymentHash} -> {isPaid, completedAt (epoch ms), invoice, receivedSat, ...}
//        404 -> null. phoenixd answers every 404 with the same "Unknown endpoint" page, so a wrong URL
//        also reads as "unknown invoice" here; createInvoice (called when connecting) catches that case.
//   GET  /getinfo -> {nodeId}
//   GET  /websocket (same Basic auth) -> {"type": "payment_received", amountSat, paymentHash, ...} events,
//        exposed through onPaymentReceived; the socket is open only while listeners exist and reconnects
//        with backoff. Events sent while disconnected are lost: polling lookupInvoice stays the truth.
// phoenixd refuses descriptions over 128 characters, so longer ones are shortened (with "…") before sending.
// HTTP calls and the websocket go through the address rules (wallet-network.ts); phoenixd's own error
// texts are never repeated (a wallet URL may lead to any internal page).
import type { Agent } from "undici";
import type WebSocket from "ws";
import { z } from "zod";
import type { PhoenixdCredentials } from "./credentials.ts";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest, type InvoiceLookup, type WalletBackend } from "./types.ts";
import { DEFAULT_WALLET_TIMEOUT_MS, PaymentReceivedListeners, type PaymentReceivedListener, type WalletCapabilities } from "./wallet-capabilities.ts";
import { WalletHttpClient, walletHttpError, walletUrl, type WalletHttpResponse } from "./wallet-http.ts";
import { openWalletWebSocket, walletDispatcher, type TargetPolicy } from "./wallet-network.ts";
import { assertInvoiceRequest, checkCreatedInvoice, decodeWalletInvoice, isPaymentHash, parseWalletResponse } from "./wallet-response.ts";

const BACKEND = "phoenixd";

/** phoenixd's limit on invoice descriptions (characters, as Kotlin counts them: UTF-16 units). */
export const PHOENIXD_MAX_DESCRIPTION_LENGTH = 128;

/** Websocket reconnect delays: first retry quickly, then back off to at most this. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 30_000;

/** What a phoenixd backend needs: validated credentials, the address rules and, optionally, a per-call timeout. */
export type PhoenixdBackendOptions = {
  credentials: PhoenixdCredentials;
  /** Which addresses phoenixd may be at (walletTargetPolicy), checked at every connection. */
  targetPolicy: TargetPolicy;
  timeoutMs?: number;
  /** Injectable clock for expiry decisions (tests). */
  now?: () => Date;
};

const createResponse = z.looseObject({
  amountSat: z.number().int().optional(),
  paymentHash: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be a 32-byte hex hash"),
  serialized: z.string().min(1),
});

const incomingResponse = z.looseObject({
  isPaid: z.boolean(),
  invoice: z.string().min(1).optional(),
  receivedSat: z.number().optional(),
  completedAt: z.number().nullish(),
  preimage: z.string().nullish(),
});

const getInfoResponse = z.looseObject({
  nodeId: z.string().regex(/^0[23][0-9a-fA-F]{64}$/, "must be a compressed public key"),
});

const paymentReceivedEvent = z.looseObject({
  type: z.literal("payment_received"),
  paymentHash: z.string().regex(/^[0-9a-fA-F]{64}$/),
});

/** Shortens a description to phoenixd's limit without splitting a surrogate pair. */
export function phoenixdDescription(description: string): string {
  if (description.length <= PHOENIXD_MAX_DESCRIPTION_LENGTH) return description;
  let cut = PHOENIXD_MAX_DESCRIPTION_LENGTH - 1;
  const code = description.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // a high surrogate must keep its low half
  return `${description.slice(0, cut)}…`;
}

/** A phoenixd node as a WalletBackend, with payment_received over its websocket. */
export class PhoenixdBackend implements WalletBackend, Pick<WalletCapabilities, "onPaymentReceived" | "close"> {
  readonly type = "phoenixd" as const;
  private readonly http: WalletHttpClient;
  private readonly agent: Agent;
  private readonly targetPolicy: TargetPolicy;
  private readonly authorization: string;
  private readonly websocketUrl: string;
  private readonly now: () => Date;
  private readonly listeners = new PaymentReceivedListeners();
  private socket: WebSocket | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay = RECONNECT_MIN_MS;
  private closed = false;
  private nodeId: string | null = null;

  constructor(options: PhoenixdBackendOptions) {
    const { credentials } = options;
    this.now = options.now ?? (() => new Date());
    this.authorization = `Basic ${Buffer.from(`:${credentials.password}`, "utf8").toString("base64")}`;
    const url = walletUrl(credentials.url, "/websocket");
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    this.websocketUrl = url.toString();
    this.targetPolicy = options.targetPolicy;
    const timeoutMs = options.timeoutMs ?? DEFAULT_WALLET_TIMEOUT_MS;
    this.agent = walletDispatcher(options.targetPolicy, { connectTimeoutMs: timeoutMs });
    this.http = new WalletHttpClient({
      backend: BACKEND,
      baseUrl: credentials.url,
      timeoutMs,
      headers: { authorization: this.authorization },
      dispatcher: this.agent,
    });
  }

  /** Creates a bolt11 invoice and checks it against the request. */
  async createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice> {
    assertInvoiceRequest(request);
    const response = await this.http.send("POST", "/createinvoice", {
      form: {
        description: phoenixdDescription(request.description),
        amountSat: String(request.amountSats),
        expirySeconds: String(request.expirySeconds),
      },
    });
    const body = parseWalletResponse(BACKEND, "createinvoice", createResponse, this.ok(response, "invoice creation"));
    const checked = checkCreatedInvoice(BACKEND, request, body.serialized, body.paymentHash);
    return { paymentRequest: checked.paymentRequest, paymentHash: checked.paymentHash, expiresAt: checked.expiresAt };
  }

  /** Reads the incoming payment; null on 404. */
  async lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null> {
    if (!isPaymentHash(paymentHash)) return null;
    const hash = paymentHash.toLowerCase();
    const response = await this.http.send("GET", `/payments/incoming/${hash}`);
    if (response.status === 404) return null;
    const payment = parseWalletResponse(BACKEND, "incoming payment", incomingResponse, this.ok(response, "payment lookup"));
    const invoice = payment.invoice ? decodeWalletInvoice(BACKEND, payment.invoice) : null;
    const amountSats = invoice?.amountMsat ? Number(invoice.amountMsat / 1000n) : (payment.receivedSat ?? 0);
    if (payment.isPaid) {
      const settledAt = payment.completedAt ? new Date(payment.completedAt) : this.now();
      return { paymentHash: hash, state: "settled", settledAt, amountSats, preimage: payment.preimage?.toLowerCase() ?? null };
    }
    const expired = invoice !== null && this.now().getTime() >= invoice.expiresAt.getTime();
    return { paymentHash: hash, state: expired ? "expired" : "open", settledAt: null, amountSats, preimage: null };
  }

  /** nodeId from /getinfo (cached: a node's identity does not change). */
  async getNodePubkey(): Promise<string | null> {
    if (this.nodeId) return this.nodeId;
    const response = await this.http.send("GET", "/getinfo");
    const info = parseWalletResponse(BACKEND, "getinfo", getInfoResponse, this.ok(response, "getinfo"));
    this.nodeId = info.nodeId.toLowerCase();
    return this.nodeId;
  }

  /** Subscribes to payment_received; the websocket is opened for the first listener, closed after the last. */
  onPaymentReceived(listener: PaymentReceivedListener): () => void {
    if (this.closed) throw new WalletError("unreachable", `${BACKEND} backend is closed`);
    const remove = this.listeners.add(listener);
    this.ensureSocket();
    return () => {
      remove();
      if (this.listeners.size === 0) this.stopSocket();
    };
  }

  /** Closes the websocket and the HTTP connections, and forgets every listener (again: nothing more to do). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.stopSocket();
    await this.agent.close();
  }

  private ensureSocket(): void {
    if (this.socket || this.reconnectTimer || this.closed || this.listeners.size === 0) return;
    const socket = openWalletWebSocket(this.websocketUrl, this.targetPolicy, { headers: { authorization: this.authorization } });
    this.socket = socket;
    socket.on("open", () => {
      this.reconnectDelay = RECONNECT_MIN_MS;
    });
    socket.on("message", (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return; // not an event we understand; phoenixd only sends JSON
      }
      const event = paymentReceivedEvent.safeParse(parsed);
      if (event.success) this.listeners.emit(event.data.paymentHash);
    });
    // Errors (refused, 401) are followed by "close", where reconnecting is decided.
    socket.on("error", () => {});
    socket.on("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.listeners.size === 0 || this.reconnectTimer) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.ensureSocket();
    }, delay);
  }

  private stopSocket(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.terminate();
    this.reconnectDelay = RECONNECT_MIN_MS;
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
