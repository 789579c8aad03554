// Nostr Wallet Connect (NIP-47, https://github.com/nostr-protocol/nips/blob/master/47.md) over one
// relay connection (NIP-01 over `ws`) per backend instance, to the first relay of the connection URI:
// - on connect: subscribe to responses (kind 23195, author = wallet, `p` = our key) and notifications
//   (kinds 23196/23197), and read the wallet's info event (kind 13194) once: its `encryption` tag
//   ("nip44_v2 nip04") picks the scheme, nip44_v2 when offered, else nip04; no tag means nip04.
// - each call publishes a request (kind 23194, `p` = wallet, `encryption` tag when nip44, NIP-40
//   `expiration`), signed and encrypted with the URI's secret, and waits for the response whose `e` tag
//   is the request id, within timeoutMs (connect included), else WalletError("timeout").
//   make_invoice {amount (msat), description, expiry} -> {invoice, payment_hash, expires_at}
//   lookup_invoice {payment_hash} -> {settled_at?, state?, amount, expires_at, invoice}; NOT_FOUND -> null
//   get_info -> {pubkey}; when the connection may not call it, the signer of our invoices (or null).
// - NIP-47 error codes map to WalletError kinds (NIP47_ERROR_KINDS); a relay refusing the request
//   (["OK", id, false, reason]) is "rejected"; a dropped connection fails pending calls "unreachable"
//   and is reopened by the next call, or at once (with backoff) while payment listeners exist.
// - payment_received notifications feed onPaymentReceived. They are best effort (sent only while we
//   are connected, ephemeral on the relay), so polling lookup_invoice stays the fallback.
// - the relay connection goes through the address rules (wallet-network.ts), and neither the wallet's
//   error messages nor the relay's reasons are repeated in ours (codes only, from the NIP-47 list).
// Not supported: NIP-42 relay AUTH, and publishing to several relays at once.
import * as nip04 from "nostr-tools/nip04";
import * as nip44 from "nostr-tools/nip44";
import { finalizeEvent, getPublicKey, verifyEvent, type NostrEvent } from "nostr-tools/pure";
import WebSocket from "ws";
import { z } from "zod";
import { parseNwcConnectionUri, type NwcCredentials } from "./credentials.ts";
import { WalletError, type CreatedInvoice, type CreateInvoiceRequest, type InvoiceLookup, type InvoiceState, type WalletBackend } from "./types.ts";
import { DEFAULT_WALLET_TIMEOUT_MS, PaymentReceivedListeners, type PaymentReceivedListener, type WalletCapabilities } from "./wallet-capabilities.ts";
import { blockedTarget, blockedWalletMessage, openWalletWebSocket, type TargetPolicy } from "./wallet-network.ts";
import { assertInvoiceRequest, checkCreatedInvoice, decodeWalletInvoice, isPaymentHash, parseWalletResponse } from "./wallet-response.ts";

const BACKEND = "NWC wallet";

/** NIP-47 event kinds. */
const KIND_INFO = 13194;
const KIND_REQUEST = 23194;
const KIND_RESPONSE = 23195;
const KIND_NOTIFICATION_NIP04 = 23196;
const KIND_NOTIFICATION_NIP44 = 23197;

const RESPONSES_SUBSCRIPTION = "nwc-responses";
const INFO_SUBSCRIPTION = "nwc-info";
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 30_000;
/** Seconds added to a request's NIP-40 expiration beyond our timeout, for clock skew between us and the wallet. */
const EXPIRATION_SLACK_SECONDS = 30;
/** How many notified payment hashes we remember, to report a payment once when both kinds arrive. */
const NOTIFIED_MEMORY = 1000;

/** The encryption schemes NIP-47 defines. */
export type NwcEncryption = "nip44_v2" | "nip04";

/** What a NIP-47 error code means for the gateway (codes not listed are "rejected"). */
export const NIP47_ERROR_KINDS: Readonly<Record<string, WalletError["kind"]>> = {
  UNAUTHORIZED: "unauthorized", // this key has no wallet connected
  RESTRICTED: "unauthorized", // the connection lacks the permission: a credentials problem
  RATE_LIMITED: "rejected",
  QUOTA_EXCEEDED: "rejected",
  INSUFFICIENT_BALANCE: "rejected",
  NOT_IMPLEMENTED: "rejected",
  UNSUPPORTED_ENCRYPTION: "rejected",
  PAYMENT_FAILED: "rejected",
  NOT_FOUND: "rejected",
  INTERNAL: "rejected",
  OTHER: "rejected",
};

/**
 * Picks the encryption from the wallet's info event: nip44_v2 when offered, else nip04. A missing
 * event or tag means a wallet from before the tag existed, which speaks nip04 only.
 */
export function chooseNwcEncryption(infoEvent: Pick<NostrEvent, "tags"> | null): NwcEncryption {
  const tag = infoEvent?.tags.find((t) => t[0] === "encryption");
  if (!tag) return "nip04";
  const offered = (tag[1] ?? "").split(/\s+/).filter(Boolean);
  if (offered.includes("nip44_v2")) return "nip44_v2";
  if (offered.includes("nip04")) return "nip04";
  throw new WalletError("rejected", `${BACKEND} offers no encryption we support (we speak nip44_v2 and nip04)`);
}

/** What an NWC backend needs: validated credentials, the address rules and, optionally, a per-call timeout. */
export type NwcBackendOptions = {
  credentials: NwcCredentials;
  /** Which addresses the relay may be at (walletTargetPolicy), checked at every connection. */
  targetPolicy: TargetPolicy;
  timeoutMs?: number;
  /** Injectable clock for expiry decisions (tests); Nostr timestamps always use the real clock. */
  now?: () => Date;
};

const responseEnvelope = z.looseObject({
  result_type: z.string(),
  error: z.looseObject({ code: z.string(), message: z.string().optional() }).nullish(),
  result: z.unknown(),
});

const makeInvoiceResult = z.looseObject({
  invoice: z.string().min(1),
  payment_hash: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be a 32-byte hex hash")
    .optional(),
});

const lookupInvoiceResult = z.looseObject({
  invoice: z.string().min(1).nullish(),
  state: z.string().nullish(),
  amount: z.number().nonnegative().nullish(),
  expires_at: z.number().nullish(),
  settled_at: z.number().nullish(),
  preimage: z.string().nullish(),
});

const getInfoResult = z.looseObject({
  pubkey: z.string().regex(/^0[23][0-9a-fA-F]{64}$/, "must be a compressed public key"),
});

const notificationEnvelope = z.looseObject({
  notification_type: z.string(),
  notification: z.looseObject({ payment_hash: z.string().regex(/^[0-9a-fA-F]{64}$/) }),
});

/** A refusal the wallet sent as a NIP-47 error; `code` is its error code (e.g. NOT_FOUND, RESTRICTED). */
export class Nip47Error extends WalletError {
  /** The code as we name it in messages: one of NIP-47's, else OTHER (the wallet's text is never repeated). */
  static codeForMessage(code: string): string {
    return Object.hasOwn(NIP47_ERROR_KINDS, code) ? code : "OTHER";
  }

  constructor(
    readonly code: string,
    message: string,
  ) {
    super(NIP47_ERROR_KINDS[code] ?? "rejected", message);
    this.name = "Nip47Error";
  }
}

/** A request waiting for its response event. */
type PendingRequest = { resolve(event: NostrEvent): void; reject(error: WalletError): void };

/** One open relay connection and the subscription waiters on it. */
type RelayConnection = {
  socket: WebSocket;
  eoseWaiters: Map<string, { resolve(): void; reject(error: WalletError): void }>;
  infoEvents: NostrEvent[];
};

const secondsNow = () => Math.floor(Date.now() / 1000);

/** An NWC wallet as a WalletBackend, with payment_received notifications. */
export class NwcBackend implements WalletBackend, Pick<WalletCapabilities, "onPaymentReceived" | "close"> {
  readonly type = "nwc" as const;
  private readonly relayUrl: string;
  private readonly targetPolicy: TargetPolicy;
  private readonly walletPubkey: string;
  private readonly secretKey: Uint8Array;
  private readonly clientPubkey: string;
  private readonly conversationKey: Uint8Array;
  private readonly timeoutMs: number;
  private readonly now: () => Date;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly listeners = new PaymentReceivedListeners();
  private readonly notified = new Set<string>();
  private connection: RelayConnection | null = null;
  private connecting: Promise<RelayConnection> | null = null;
  private encryption: Promise<NwcEncryption> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private reconnectDelay = RECONNECT_MIN_MS;
  private closed = false;
  private nodePubkey: string | null = null;
  private invoiceSigner: string | null = null;

  constructor(options: NwcBackendOptions) {
    const connection = parseNwcConnectionUri(options.credentials.connectionUri);
    this.relayUrl = connection.relayUrls[0];
    this.targetPolicy = options.targetPolicy;
    this.walletPubkey = connection.walletPubkey;
    this.secretKey = new Uint8Array(Buffer.from(connection.secretHex, "hex"));
    this.clientPubkey = getPublicKey(this.secretKey);
    this.conversationKey = nip44.v2.utils.getConversationKey(this.secretKey, this.walletPubkey);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_WALLET_TIMEOUT_MS;
    this.now = options.now ?? (() => new Date());
  }

  /** make_invoice (amount in msat), then checks the invoice against the request. */
  async createInvoice(request: CreateInvoiceRequest): Promise<CreatedInvoice> {
    assertInvoiceRequest(request);
    const result = await this.call("make_invoice", {
      amount: request.amountSats * 1000,
      description: request.description,
      expiry: request.expirySeconds,
    });
    const invoice = parseWalletResponse(BACKEND, "make_invoice", makeInvoiceResult, result);
    const checked = checkCreatedInvoice(BACKEND, request, invoice.invoice, invoice.payment_hash);
    this.invoiceSigner = checked.payeeNodeKey;
    return { paymentRequest: checked.paymentRequest, paymentHash: checked.paymentHash, expiresAt: checked.expiresAt };
  }

  /** lookup_invoice by payment hash; null when the wallet answers NOT_FOUND. */
  async lookupInvoice(paymentHash: string): Promise<InvoiceLookup | null> {
    if (!isPaymentHash(paymentHash)) return null;
    const hash = paymentHash.toLowerCase();
    let result: unknown;
    try {
      result = await this.call("lookup_invoice", { payment_hash: hash });
    } catch (err) {
      if (err instanceof Nip47Error && err.code === "NOT_FOUND") return null;
      throw err;
    }
    const invoice = parseWalletResponse(BACKEND, "lookup_invoice", lookupInvoiceResult, result);
    const decoded = invoice.invoice ? decodeWalletInvoice(BACKEND, invoice.invoice) : null;
    const amountSats = invoice.amount ? Math.floor(invoice.amount / 1000) : decoded?.amountMsat ? Number(decoded.amountMsat / 1000n) : 0;
    if ((invoice.settled_at && invoice.settled_at > 0) || invoice.state === "settled") {
      const settledAt = invoice.settled_at && invoice.settled_at > 0 ? new Date(invoice.settled_at * 1000) : this.now();
      return { paymentHash: hash, state: "settled", settledAt, amountSats, preimage: invoice.preimage?.toLowerCase() ?? null };
    }
    const expiresAt = invoice.expires_at ? new Date(invoice.expires_at * 1000) : (decoded?.expiresAt ?? null);
    let state: InvoiceState = "open";
    if (invoice.state === "expired" || (expiresAt && this.now().getTime() >= expiresAt.getTime())) state = "expired";
    else if (invoice.state === "failed") state = "canceled";
    return { paymentHash: hash, state, settledAt: null, amountSats, preimage: null };
  }

  /** get_info's pubkey; the signer of our invoices when the connection may not call get_info. */
  async getNodePubkey(): Promise<string | null> {
    if (this.nodePubkey) return this.nodePubkey;
    try {
      const info = parseWalletResponse(BACKEND, "get_info", getInfoResult, await this.call("get_info", {}));
      this.nodePubkey = info.pubkey.toLowerCase();
      return this.nodePubkey;
    } catch (err) {
      if (err instanceof Nip47Error && (err.code === "RESTRICTED" || err.code === "NOT_IMPLEMENTED")) return this.invoiceSigner;
      throw err;
    }
  }

  /** Subscribes to payment_received notifications; keeps the relay connection open meanwhile. */
  onPaymentReceived(listener: PaymentReceivedListener): () => void {
    if (this.closed) throw new WalletError("unreachable", `${BACKEND} backend is closed`);
    const remove = this.listeners.add(listener);
    if (!this.connection && !this.connecting) this.connect().catch(() => this.scheduleReconnect());
    return remove;
  }

  /** Closes the relay connection, fails pending calls and forgets listeners. */
  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.failPending(new WalletError("unreachable", `${BACKEND} backend was closed`));
    const socket = this.connection?.socket;
    this.connection = null;
    socket?.terminate();
  }

  /** Sends one NIP-47 request and returns its `result`, or throws the WalletError its error means. */
  private async call(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (this.closed) throw new WalletError("unreachable", `${BACKEND} backend is closed`);
    let requestId: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WalletError("timeout", `${BACKEND} did not answer ${method} within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    const exchange = (async () => {
      const connection = await this.connect();
      const encryption = await this.negotiateEncryption(connection);
      const tags = [
        ["p", this.walletPubkey],
        ["expiration", String(secondsNow() + Math.ceil(this.timeoutMs / 1000) + EXPIRATION_SLACK_SECONDS)],
      ];
      if (encryption === "nip44_v2") tags.push(["encryption", "nip44_v2"]);
      const content = this.encrypt(encryption, JSON.stringify({ method, params }));
      const request = finalizeEvent({ kind: KIND_REQUEST, created_at: secondsNow(), tags, content }, this.secretKey);
      requestId = request.id;
      // The connection may have dropped while we negotiated; its close already failed pending calls.
      if (connection.socket.readyState !== WebSocket.OPEN) throw new WalletError("unreachable", `${BACKEND} relay connection dropped`);
      const response = new Promise<NostrEvent>((resolve, reject) => this.pending.set(request.id, { resolve, reject }));
      connection.socket.send(JSON.stringify(["EVENT", request]));
      return this.readResponse(method, await response);
    })();
    exchange.catch(() => {}); // after a timeout nobody awaits it; its rejection is expected
    try {
      return await Promise.race([exchange, deadline]);
    } finally {
      clearTimeout(timer);
      if (requestId) this.pending.delete(requestId);
    }
  }

  /** Decrypts and unwraps a response event. */
  private readResponse(method: string, event: NostrEvent): unknown {
    let plaintext: string;
    try {
      plaintext = this.decrypt(event.content);
    } catch (err) {
      throw new WalletError("invalid_response", `${BACKEND} sent a ${method} response we cannot decrypt: ${(err as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(plaintext);
    } catch {
      throw new WalletError("invalid_response", `${BACKEND} sent a ${method} response that is not JSON`);
    }
    const envelope = parseWalletResponse(BACKEND, method, responseEnvelope, json);
    if (envelope.error) {
      const { code } = envelope.error;
      throw new Nip47Error(code, `${BACKEND} refused ${method} (${Nip47Error.codeForMessage(code)})`);
    }
    if (envelope.result_type !== method) {
      throw new WalletError("invalid_response", `${BACKEND} answered ${method} with a ${envelope.result_type} result`);
    }
    if (envelope.result === null || typeof envelope.result !== "object") {
      throw new WalletError("invalid_response", `${BACKEND} answered ${method} without a result`);
    }
    return envelope.result;
  }

  private encrypt(encryption: NwcEncryption, plaintext: string): string {
    return encryption === "nip44_v2" ? nip44.v2.encrypt(plaintext, this.conversationKey) : nip04.encrypt(this.secretKey, this.walletPubkey, plaintext);
  }

  /** Decrypts either scheme: NIP-04 payloads are recognisable by their `?iv=` suffix. */
  private decrypt(payload: string): string {
    return payload.includes("?iv=") ? nip04.decrypt(this.secretKey, this.walletPubkey, payload) : nip44.v2.decrypt(payload, this.conversationKey);
  }

  /** Reads the info event once per backend (again only if reading it failed). */
  private negotiateEncryption(connection: RelayConnection): Promise<NwcEncryption> {
    this.encryption ??= (async () => {
      await this.request(connection, INFO_SUBSCRIPTION, [{ kinds: [KIND_INFO], authors: [this.walletPubkey], limit: 1 }]);
      connection.socket.send(JSON.stringify(["CLOSE", INFO_SUBSCRIPTION]));
      const newest = connection.infoEvents.sort((a, b) => b.created_at - a.created_at)[0] ?? null;
      return chooseNwcEncryption(newest);
    })().catch((err: unknown) => {
      this.encryption = null;
      throw err;
    });
    return this.encryption;
  }

  /** Sends a REQ and resolves at its EOSE; fails if the relay sends none within timeoutMs or drops. */
  private request(connection: RelayConnection, subscriptionId: string, filters: object[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        connection.eoseWaiters.delete(subscriptionId);
        reject(new WalletError("timeout", `${BACKEND} relay did not finish sending stored events within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      connection.eoseWaiters.set(subscriptionId, {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      connection.socket.send(JSON.stringify(["REQ", subscriptionId, ...filters]));
    });
  }

  /** The open connection, opening it (once, shared by concurrent callers) when needed. */
  private connect(): Promise<RelayConnection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= this.open().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private open(): Promise<RelayConnection> {
    return new Promise<RelayConnection>((resolve, reject) => {
      const socket = openWalletWebSocket(this.relayUrl, this.targetPolicy, { handshakeTimeout: this.timeoutMs });
      const connection: RelayConnection = { socket, eoseWaiters: new Map(), infoEvents: [] };
      let opened = false;
      socket.on("open", () => {
        if (this.closed) {
          socket.terminate();
          return;
        }
        opened = true;
        this.connection = connection;
        this.reconnectDelay = RECONNECT_MIN_MS;
        const since = secondsNow() - 60;
        socket.send(
          JSON.stringify([
            "REQ",
            RESPONSES_SUBSCRIPTION,
            { kinds: [KIND_RESPONSE], authors: [this.walletPubkey], "#p": [this.clientPubkey], since },
            { kinds: [KIND_NOTIFICATION_NIP04, KIND_NOTIFICATION_NIP44], authors: [this.walletPubkey], "#p": [this.clientPubkey], since: secondsNow() },
          ]),
        );
        resolve(connection);
      });
      socket.on("message", (data) => this.receive(connection, data.toString()));
      socket.on("error", (err: Error & { code?: string }) => {
        if (opened) return; // "close" follows and handles it
        const host = new URL(this.relayUrl).host;
        const blocked = blockedTarget(err);
        if (blocked) return reject(new WalletError("unreachable", blockedWalletMessage(`${BACKEND} relay`, host, blocked)));
        const timedOut = /handshake has timed out/i.test(err.message);
        reject(new WalletError(timedOut ? "timeout" : "unreachable", `${BACKEND} relay ${host} is unreachable: ${err.code ?? err.message}`));
      });
      socket.on("close", () => {
        if (!opened) {
          reject(new WalletError("unreachable", `${BACKEND} relay ${new URL(this.relayUrl).host} closed the connection`));
          return;
        }
        if (this.connection === connection) this.connection = null;
        const dropped = new WalletError("unreachable", `${BACKEND} relay connection dropped`);
        for (const waiter of connection.eoseWaiters.values()) waiter.reject(dropped);
        connection.eoseWaiters.clear();
        this.failPending(new WalletError("unreachable", `${BACKEND} relay connection dropped before the answer arrived`));
        this.scheduleReconnect();
      });
    });
  }

  private scheduleReconnect(): void {
    if (this.closed || this.listeners.size === 0 || this.reconnectTimer || this.connection || this.connecting) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
  }

  private failPending(error: WalletError): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }

  /** Handles one relay message (NIP-01). */
  private receive(connection: RelayConnection, raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      return; // not NIP-01; nothing we could act on
    }
    if (!Array.isArray(message)) return;
    const [verb, first, second] = message as unknown[];
    if (verb === "EOSE" && typeof first === "string") {
      connection.eoseWaiters.get(first)?.resolve();
      connection.eoseWaiters.delete(first);
    } else if (verb === "OK" && typeof first === "string" && second === false) {
      const pending = this.pending.get(first);
      // The relay's reason is its own text: the kind says enough.
      pending?.reject(new WalletError("rejected", `${BACKEND} relay refused the request`));
    } else if (verb === "CLOSED" && typeof first === "string") {
      // The relay ended a subscription (auth required, rate limit): without it no answer can arrive.
      connection.eoseWaiters.get(first)?.reject(new WalletError("rejected", `${BACKEND} relay closed the subscription`));
      connection.eoseWaiters.delete(first);
      if (first === RESPONSES_SUBSCRIPTION) connection.socket.terminate();
    } else if (verb === "EVENT" && typeof first === "string" && second && typeof second === "object") {
      this.onEvent(connection, first, second as NostrEvent);
    }
  }

  private onEvent(connection: RelayConnection, subscriptionId: string, event: NostrEvent): void {
    // Only the wallet's own, correctly signed events count: a relay could inject anything else.
    if (event.pubkey !== this.walletPubkey || !verifyEvent(event)) return;
    if (subscriptionId === INFO_SUBSCRIPTION && event.kind === KIND_INFO) {
      connection.infoEvents.push(event);
      return;
    }
    if (event.kind === KIND_RESPONSE) {
      const requestId = event.tags.find((tag) => tag[0] === "e")?.[1];
      if (requestId) this.pending.get(requestId)?.resolve(event);
      return;
    }
    if ((event.kind === KIND_NOTIFICATION_NIP04 || event.kind === KIND_NOTIFICATION_NIP44) && this.listeners.size > 0) {
      this.onNotification(event);
    }
  }

  private onNotification(event: NostrEvent): void {
    let parsed: z.infer<typeof notificationEnvelope>;
    try {
      const plaintext =
        event.kind === KIND_NOTIFICATION_NIP44
          ? nip44.v2.decrypt(event.content, this.conversationKey)
          : nip04.decrypt(this.secretKey, this.walletPubkey, event.content);
      parsed = notificationEnvelope.parse(JSON.parse(plaintext));
    } catch {
      return; // a notification we cannot read is one we cannot act on; polling still finds the payment
    }
    if (parsed.notification_type !== "payment_received") return;
    const hash = parsed.notification.payment_hash.toLowerCase();
    // Wallets may send the same notification as both 23196 and 23197: report it once.
    if (this.notified.has(hash)) return;
    this.notified.add(hash);
    if (this.notified.size > NOTIFIED_MEMORY) this.notified.delete(this.notified.values().next().value!);
    this.listeners.emit(hash);
  }
}
