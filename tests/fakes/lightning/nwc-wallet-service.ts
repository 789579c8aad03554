// A fake NIP-47 wallet service (https://github.com/nostr-protocol/nips/blob/master/47.md). It is an
// ordinary Nostr client of a relay (nostr-tools' AbstractRelay over `ws`, independent of our backend's
// own client code), like Alby Hub or Mutiny's service:
// - publishes its info event (kind 13194): content = supported methods, `encryption` tag listing the
//   schemes ("nip44_v2 nip04"; no tag means the legacy nip04-only behaviour), `notifications` tag;
// - answers requests (kind 23194, `p` = its pubkey) with responses (kind 23195, `p` = client, `e` =
//   request id), encrypted with the scheme the request named in its `encryption` tag (none: nip04);
//   ignores requests past their NIP-40 `expiration` tag;
// - implements make_invoice (amount in msat; REAL signed regtest invoices), lookup_invoice (NOT_FOUND
//   for unknown hashes), get_info and pay_invoice (paid over `network`, for the SDK's payer tests), and refuses with the NIP-47 error codes: UNAUTHORIZED for an
//   unknown client key, RESTRICTED for a method the connection may not use, NOT_IMPLEMENTED for unknown
//   methods, UNSUPPORTED_ENCRYPTION for a scheme it does not offer, OTHER for bad parameters;
// - on `markPaid`, sends payment_received notifications: kind 23197 (nip44) and/or 23196 (nip04).
// Test controls: error next, malformed answer next, silence (timeouts). Test-only code.
import { AbstractRelay } from "nostr-tools/abstract-relay";
import * as nip04 from "nostr-tools/nip04";
import * as nip44 from "nostr-tools/nip44";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type NostrEvent } from "nostr-tools/pure";
import WebSocket from "ws";
import { FakeLightningNode, type FakeInvoice } from "./fake-invoices.ts";

/** Encryption schemes NIP-47 defines. */
export type Nip47Encryption = "nip44_v2" | "nip04";

/** Options of a fake wallet service. */
export type FakeNwcWalletServiceOptions = {
  relayUrl: string;
  /** Schemes advertised in the info event's `encryption` tag; null publishes no tag (nip04-only wallets). */
  encryption?: Nip47Encryption[] | null;
  /** Whether it advertises and sends payment_received notifications. */
  notifications?: boolean;
  now?: () => Date;
};

/** A request the service received, decrypted, for assertions. */
export type ReceivedNwcRequest = { clientPubkey: string; method: string; params: Record<string, unknown>; encryption: Nip47Encryption; tags: string[][] };

type Nip47Error = { code: string; message: string };

/** Methods this fake implements. */
const METHODS = ["make_invoice", "lookup_invoice", "get_info", "pay_invoice"];

const unix = (date: Date) => Math.floor(date.getTime() / 1000);
const secondsNow = () => Math.floor(Date.now() / 1000);

/** A running fake NIP-47 wallet service and its controls. */
export class FakeNwcWalletService {
  /** The node whose key signs the invoices; `markPaid` settles them. */
  readonly node: FakeLightningNode;
  /** The service's Nostr public key (x-only hex), named in connection URIs. */
  readonly walletPubkey: string;
  /** Every request received (after decryption), oldest first. */
  readonly requests: ReceivedNwcRequest[] = [];
  /** Where pay_invoice payments go (the test's Lightning network); null: they fail with PAYMENT_FAILED. */
  network: ((invoice: string) => Promise<{ preimage: string }>) | null = null;
  /** Invoices paid through pay_invoice, oldest first. */
  readonly paid: string[] = [];

  private readonly walletSecret = generateSecretKey();
  private readonly clients = new Map<string, { methods: string[] }>();
  private readonly encryption: Nip47Encryption[] | null;
  private readonly notifications: boolean;
  private readonly now: () => Date;
  private relay: AbstractRelay | null = null;
  private readyPromise: Promise<void> | null = null;
  private failures: Nip47Error[] = [];
  private malformed = 0;
  private silent = false;
  private closed = false;

  private constructor(private readonly options: FakeNwcWalletServiceOptions) {
    this.walletPubkey = getPublicKey(this.walletSecret);
    this.encryption = options.encryption === undefined ? ["nip44_v2", "nip04"] : options.encryption;
    this.notifications = options.notifications ?? true;
    this.now = options.now ?? (() => new Date());
    this.node = new FakeLightningNode(this.now);
    this.node.onSettled((invoice) => void this.notifyPaymentReceived(invoice));
  }

  /** Connects to the relay, publishes the info event and listens for requests. */
  static async start(options: FakeNwcWalletServiceOptions): Promise<FakeNwcWalletService> {
    const service = new FakeNwcWalletService(options);
    await service.ready();
    return service;
  }

  /** Resolves once connected and subscribed (again, after a relay drop). */
  ready(): Promise<void> {
    this.readyPromise ??= this.connect().catch((err: unknown) => {
      this.readyPromise = null;
      throw err;
    });
    return this.readyPromise;
  }

  /** A connection URI for a new authorized client key, allowed the given methods (all by default). */
  connectionUri(methods: string[] = METHODS): string {
    const secret = generateSecretKey();
    this.clients.set(getPublicKey(secret), { methods });
    return this.uriFor(secret);
  }

  /** A well-formed connection URI whose key this service does not know (wrong-credentials tests). */
  unknownClientUri(): string {
    return this.uriFor(generateSecretKey());
  }

  /** Settles an invoice as if it had been paid, then notifies every client. */
  markPaid(paymentHash: string): FakeInvoice {
    return this.node.markPaid(paymentHash);
  }

  /** The next request is answered with this NIP-47 error. */
  failNext(code: string, message = `fake ${code}`): void {
    this.failures.push({ code, message });
  }

  /** The next request is answered with a payload that decrypts to something other than JSON. */
  malformNext(): void {
    this.malformed += 1;
  }

  /** Stops answering requests (they are still recorded) until `resume()`. */
  hang(): void {
    this.silent = true;
  }

  /** Answers requests again after `hang()`. */
  resume(): void {
    this.silent = false;
  }

  /** Disconnects from the relay for good. */
  async close(): Promise<void> {
    this.closed = true;
    this.relay?.close();
    this.relay = null;
  }

  private uriFor(secret: Uint8Array): string {
    const secretHex = Buffer.from(secret).toString("hex");
    return `nostr+walletconnect://${this.walletPubkey}?relay=${encodeURIComponent(this.options.relayUrl)}&secret=${secretHex}`;
  }

  private async connect(): Promise<void> {
    const relay = new AbstractRelay(this.options.relayUrl, {
      verifyEvent,
      websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket,
    });
    relay.onnotice = () => {};
    await relay.connect();
    this.relay = relay;
    relay.onclose = () => {
      if (this.relay !== relay) return;
      this.relay = null;
      this.readyPromise = null;
      // Reconnect like a real always-on service, shortly, until closed.
      if (!this.closed) setTimeout(() => void this.ready().catch(() => {}), 50);
    };

    const tags: string[][] = [];
    if (this.encryption) tags.push(["encryption", this.encryption.join(" ")]);
    if (this.notifications) tags.push(["notifications", "payment_received"]);
    const content = [...METHODS, ...(this.notifications ? ["notifications"] : [])].join(" ");
    await relay.publish(finalizeEvent({ kind: 13194, created_at: secondsNow(), tags, content }, this.walletSecret));

    await new Promise<void>((resolve) => {
      relay.subscribe([{ kinds: [23194], "#p": [this.walletPubkey], since: secondsNow() - 10 }], {
        onevent: (event) => void this.handleRequest(event),
        oneose: () => resolve(),
      });
    });
  }

  private encrypt(encryption: Nip47Encryption, clientPubkey: string, plaintext: string): string {
    return encryption === "nip44_v2"
      ? nip44.v2.encrypt(plaintext, nip44.v2.utils.getConversationKey(this.walletSecret, clientPubkey))
      : nip04.encrypt(this.walletSecret, clientPubkey, plaintext);
  }

  private decrypt(encryption: Nip47Encryption, clientPubkey: string, payload: string): string {
    return encryption === "nip44_v2"
      ? nip44.v2.decrypt(payload, nip44.v2.utils.getConversationKey(this.walletSecret, clientPubkey))
      : nip04.decrypt(this.walletSecret, clientPubkey, payload);
  }

  private async handleRequest(event: NostrEvent): Promise<void> {
    const expiration = Number(event.tags.find((tag) => tag[0] === "expiration")?.[1]);
    if (Number.isFinite(expiration) && expiration < secondsNow()) return; // NIP-47: ignore expired requests
    const requested = event.tags.find((tag) => tag[0] === "encryption")?.[1];
    const offered = this.encryption ?? ["nip04"];
    if (requested !== undefined && (requested !== "nip44_v2" || !offered.includes("nip44_v2"))) {
      await this.respond(event, "nip04", "unknown", null, { code: "UNSUPPORTED_ENCRYPTION", message: `encryption ${requested} is not supported` });
      return;
    }
    const encryption: Nip47Encryption = requested === "nip44_v2" ? "nip44_v2" : "nip04";
    if (encryption === "nip04" && !offered.includes("nip04")) {
      await this.respond(event, "nip04", "unknown", null, { code: "UNSUPPORTED_ENCRYPTION", message: "nip04 is not supported" });
      return;
    }
    let request: { method?: unknown; params?: unknown };
    try {
      request = JSON.parse(this.decrypt(encryption, event.pubkey, event.content)) as { method?: unknown; params?: unknown };
    } catch {
      return; // undecryptable: not for us, nothing to answer
    }
    const method = typeof request.method === "string" ? request.method : "unknown";
    const params = (request.params && typeof request.params === "object" ? request.params : {}) as Record<string, unknown>;
    this.requests.push({ clientPubkey: event.pubkey, method, params, encryption, tags: event.tags });
    if (this.silent) return;

    const client = this.clients.get(event.pubkey);
    if (!client) return this.respond(event, encryption, method, null, { code: "UNAUTHORIZED", message: "The public key does not have a wallet connected." });
    const failure = this.failures.shift();
    if (failure) return this.respond(event, encryption, method, null, failure);
    if (this.malformed > 0) {
      this.malformed -= 1;
      return this.publishResponse(event, this.encrypt(encryption, event.pubkey, "this is not JSON"));
    }
    if (!METHODS.includes(method)) return this.respond(event, encryption, method, null, { code: "NOT_IMPLEMENTED", message: `${method} is not implemented` });
    if (!client.methods.includes(method))
      return this.respond(event, encryption, method, null, { code: "RESTRICTED", message: `This connection may not use ${method}` });

    const outcome = method === "pay_invoice" ? await this.payInvoice(params) : this.execute(method, params);
    await this.respond(event, encryption, method, "result" in outcome ? outcome.result : null, "error" in outcome ? outcome.error : null);
  }

  /** pay_invoice over `network`: `{preimage, fees_paid}`; no network or a failed payment is PAYMENT_FAILED. */
  private async payInvoice(params: Record<string, unknown>): Promise<{ result: Record<string, unknown> } | { error: Nip47Error }> {
    if (typeof params.invoice !== "string" || params.invoice === "") return { error: { code: "OTHER", message: "invoice is required" } };
    if (!this.network) return { error: { code: "PAYMENT_FAILED", message: "no route to the destination" } };
    try {
      const { preimage } = await this.network(params.invoice);
      this.paid.push(params.invoice);
      return { result: { preimage, fees_paid: 0 } };
    } catch (err) {
      return { error: { code: "PAYMENT_FAILED", message: (err as Error).message } };
    }
  }

  private execute(method: string, params: Record<string, unknown>): { result: Record<string, unknown> } | { error: Nip47Error } {
    if (method === "get_info") {
      return {
        result: {
          alias: "fake-nwc-wallet",
          color: "#ff9900",
          pubkey: this.node.nodePubkey,
          network: "regtest",
          block_height: 840_000,
          block_hash: "00".repeat(32),
          methods: METHODS,
          ...(this.notifications ? { notifications: ["payment_received"] } : {}),
        },
      };
    }
    if (method === "make_invoice") {
      const { amount, description, expiry } = params;
      if (typeof amount !== "number" || !Number.isSafeInteger(amount) || amount <= 0)
        return { error: { code: "OTHER", message: "amount must be a positive integer (msat)" } };
      if (description !== undefined && typeof description !== "string") return { error: { code: "OTHER", message: "description must be a string" } };
      if (expiry !== undefined && (typeof expiry !== "number" || !Number.isSafeInteger(expiry) || expiry <= 0))
        return { error: { code: "OTHER", message: "expiry must be a positive integer" } };
      const invoice = this.node.issue({ amountMsat: BigInt(amount), description: description ?? "", expirySeconds: expiry ?? 86_400 });
      return { result: this.transaction(invoice) };
    }
    // lookup_invoice: by payment_hash or invoice.
    const byHash = typeof params.payment_hash === "string" ? this.node.get(params.payment_hash) : undefined;
    const byInvoice = typeof params.invoice === "string" ? this.node.findByPaymentRequest(params.invoice) : undefined;
    const invoice = byHash ?? byInvoice;
    if (!invoice) return { error: { code: "NOT_FOUND", message: "invoice not found" } };
    return { result: this.transaction(invoice) };
  }

  /** NIP-47's transaction object for an incoming invoice. */
  private transaction(invoice: FakeInvoice): Record<string, unknown> {
    const state = invoice.settledAt ? "settled" : this.node.isExpired(invoice) ? "expired" : "pending";
    return {
      type: "incoming",
      state,
      invoice: invoice.paymentRequest,
      description: invoice.description,
      payment_hash: invoice.paymentHash,
      ...(invoice.settledAt ? { preimage: invoice.preimage, settled_at: unix(invoice.settledAt) } : {}),
      amount: Number(invoice.amountMsat),
      fees_paid: 0,
      created_at: unix(invoice.createdAt),
      expires_at: unix(invoice.expiresAt),
      metadata: {},
    };
  }

  private async respond(request: NostrEvent, encryption: Nip47Encryption, method: string, result: unknown, error: Nip47Error | null): Promise<void> {
    const content = JSON.stringify({ result_type: method, error, result: error ? null : result });
    await this.publishResponse(request, this.encrypt(encryption, request.pubkey, content));
  }

  private async publishResponse(request: NostrEvent, content: string): Promise<void> {
    const response = finalizeEvent(
      {
        kind: 23195,
        created_at: secondsNow(),
        tags: [
          ["p", request.pubkey],
          ["e", request.id],
        ],
        content,
      },
      this.walletSecret,
    );
    await this.relay?.publish(response).catch(() => {});
  }

  private async notifyPaymentReceived(invoice: FakeInvoice): Promise<void> {
    if (!this.notifications || !this.relay) return;
    const content = JSON.stringify({ notification_type: "payment_received", notification: this.transaction(invoice) });
    const offered = this.encryption ?? ["nip04"];
    for (const clientPubkey of this.clients.keys()) {
      // NIP-47: kind 23197 carries nip44 notifications, the legacy kind 23196 nip04 ones.
      if (offered.includes("nip44_v2")) await this.publishNotification(23197, clientPubkey, this.encrypt("nip44_v2", clientPubkey, content));
      if (offered.includes("nip04")) await this.publishNotification(23196, clientPubkey, this.encrypt("nip04", clientPubkey, content));
    }
  }

  private async publishNotification(kind: number, clientPubkey: string, content: string): Promise<void> {
    const event = finalizeEvent({ kind, created_at: secondsNow(), tags: [["p", clientPubkey]], content }, this.walletSecret);
    await this.relay?.publish(event).catch(() => {});
  }
}
