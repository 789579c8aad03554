// A fake phoenixd HTTP API (Ktor), built from https://phoenix.acinq.co/server/api and phoenixd's Api.kt:
//   every route requires HTTP Basic auth whose password is http-password (or http-password-limited-access);
//   otherwise 401 "Invalid authentication (use basic auth with the http password set in phoenix.conf)".
//   POST /createinvoice (form: description ≤ 128 chars | descriptionHash, amountSat, expirySeconds, externalId)
//        -> {amountSat, paymentHash, serialized}; bad parameters -> 400 with a text message
//   POST /payinvoice (form: invoice; full-access password) -> {recipientAmountSat, routingFeeSat, paymentId, paymentHash, paymentPreimage}, over `network`
//   GET  /payments/incoming/{paymentHash} -> {paymentHash, preimage, invoice, isPaid, receivedSat, completedAt, createdAt, ...}
//        unknown hash -> 404 "Unknown endpoint (check api doc)" (phoenixd's status page for every 404)
//   GET  /getinfo -> {nodeId, channels, chain, blockHeight, version}
//   GET  /websocket (upgrade, same Basic auth) -> {"type": "payment_received", timestamp, amountSat, paymentHash, ...}
// JSON leaves out null fields (kotlinx explicitNulls = false); times are epoch milliseconds. Test-only code.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { randomBytes } from "node:crypto";
import { WebSocketServer, type WebSocket } from "ws";
import { FakeWalletApi } from "./fake-wallet-api.ts";
import { FakeHttpServer, type FakeReply, type RecordedRequest } from "./fake-http-server.ts";
import type { FakeInvoice } from "./fake-invoices.ts";

/** phoenixd's limit on invoice descriptions (characters). */
const MAX_DESCRIPTION_LENGTH = 128;
/** phoenixd's default invoice expiry. */
const DEFAULT_EXPIRY_SECONDS = 3600;
const UNAUTHORIZED_TEXT = "Invalid authentication (use basic auth with the http password set in phoenix.conf)";

const text = (status: number, body: string): FakeReply => ({ status, body, contentType: "text/plain; charset=UTF-8" });

/** Options of a fake phoenixd: its clock. */
export type FakePhoenixdOptions = { now?: () => Date };

/** A running fake phoenixd with its websocket, and its test controls. */
export class FakePhoenixd extends FakeWalletApi {
  /** http-password (full access). */
  readonly password = randomBytes(32).toString("hex");
  /** http-password-limited-access (invoices and reads only): enough for receiving. */
  readonly limitedPassword = randomBytes(32).toString("hex");
  private readonly externalIds = new Map<string, string>();
  private readonly sockets = new WebSocketServer({ noServer: true });

  private constructor(now: () => Date) {
    super(now);
    this.node.onSettled((invoice) => this.broadcastPaymentReceived(invoice));
  }

  /** Starts a fake phoenixd on 127.0.0.1. */
  static async start(options: FakePhoenixdOptions = {}): Promise<FakePhoenixd> {
    const fake = new FakePhoenixd(options.now ?? (() => new Date()));
    fake.server = await FakeHttpServer.start((request, url) => fake.route(request, url));
    fake.server.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => fake.upgrade(req, socket, head));
    return fake;
  }

  /** Websocket clients currently connected. */
  get websocketClients(): number {
    return this.sockets.clients.size;
  }

  /** Drops every websocket connection abruptly, as a restart of phoenixd would. */
  dropWebsockets(): void {
    for (const client of this.sockets.clients) client.terminate();
  }

  /** Closes websockets and the server. */
  async close(): Promise<void> {
    this.dropWebsockets();
    this.sockets.close();
    await this.server.close();
  }

  private authorized(header: string | undefined): boolean {
    if (!header?.startsWith("Basic ")) return false;
    const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
    const password = decoded.slice(decoded.indexOf(":") + 1);
    return decoded.includes(":") && (password === this.password || password === this.limitedPassword);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    if (path !== "/websocket" || !this.authorized(req.headers.authorization)) {
      socket.end(`HTTP/1.1 ${path === "/websocket" ? "401 Unauthorized" : "404 Not Found"}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    this.sockets.handleUpgrade(req, socket, head, (client: WebSocket) => this.sockets.emit("connection", client, req));
  }

  private broadcastPaymentReceived(invoice: FakeInvoice): void {
    const event: Record<string, unknown> = {
      type: "payment_received",
      timestamp: invoice.settledAt!.getTime(),
      amountSat: Number(invoice.amountMsat / 1000n),
      paymentHash: invoice.paymentHash,
    };
    const externalId = this.externalIds.get(invoice.paymentHash);
    if (externalId) event.externalId = externalId;
    const message = JSON.stringify(event);
    for (const client of this.sockets.clients) client.send(message);
  }

  private route(request: RecordedRequest, url: URL): FakeReply | Promise<FakeReply> {
    const header = request.headers.authorization;
    if (!this.authorized(typeof header === "string" ? header : undefined)) return text(401, UNAUTHORIZED_TEXT);
    if (request.method === "POST" && url.pathname === "/payinvoice") return this.payInvoice(request, header as string);
    const incoming = /^\/payments\/incoming\/([^/]+)$/.exec(url.pathname);
    if (request.method === "POST" && url.pathname === "/createinvoice") return this.createInvoice(request);
    if (request.method === "GET" && incoming) return this.getIncoming(incoming[1]);
    if (request.method === "GET" && url.pathname === "/getinfo") {
      return { status: 200, body: { nodeId: this.node.nodePubkey, channels: [], chain: "regtest", blockHeight: 840_000, version: "0.5.1-fake" } };
    }
    return text(404, "Unknown endpoint (check api doc)");
  }

  /** Paying needs the full-access password; answers phoenixd's PaymentSent (or PaymentFailed with `reason`). */
  private async payInvoice(request: RecordedRequest, header: string): Promise<FakeReply> {
    if (header !== `Basic ${Buffer.from(`:${this.password}`).toString("base64")}`) return text(401, UNAUTHORIZED_TEXT);
    const isForm = String(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
    const invoice = new URLSearchParams(isForm ? request.body : "").get("invoice");
    if (invoice === null) return text(400, "Missing parameter invoice");
    const sent = await this.sendPayment(invoice);
    const paymentId = randomBytes(16).toString("hex");
    if (!sent.ok) return { status: 200, body: { paymentId, paymentHash: null, reason: sent.message } };
    return {
      status: 200,
      body: { recipientAmountSat: sent.amountSat, routingFeeSat: 0, paymentId, paymentHash: sent.paymentHash, paymentPreimage: sent.preimage },
    };
  }

  private createInvoice(request: RecordedRequest): FakeReply {
    // Ktor's receiveParameters reads only form bodies; anything else yields no parameters.
    const isForm = String(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
    const form = new URLSearchParams(isForm ? request.body : "");
    const description = form.get("description");
    if (description !== null && description.length > MAX_DESCRIPTION_LENGTH) {
      return text(400, `Request parameter description is too long (max ${MAX_DESCRIPTION_LENGTH} characters)`);
    }
    if (description === null) return text(400, "Must provide either a description or descriptionHash");
    const amountSat = form.get("amountSat");
    const expirySeconds = form.get("expirySeconds");
    for (const [name, value] of [
      ["amountSat", amountSat],
      ["expirySeconds", expirySeconds],
    ] as const) {
      if (value !== null && !/^\d+$/.test(value)) return text(400, `Request parameter ${name} couldn't be parsed/converted to integer`);
    }
    if (amountSat === null || Number(amountSat) === 0) return text(400, "this fake only issues invoices with an amount");
    const invoice = this.node.issue({
      amountMsat: BigInt(amountSat) * 1000n,
      description,
      expirySeconds: expirySeconds === null ? DEFAULT_EXPIRY_SECONDS : Number(expirySeconds),
    });
    const externalId = form.get("externalId");
    if (externalId?.trim()) this.externalIds.set(invoice.paymentHash, externalId);
    return { status: 200, body: { amountSat: Number(amountSat), paymentHash: invoice.paymentHash, serialized: invoice.paymentRequest } };
  }

  private getIncoming(paymentHash: string): FakeReply {
    if (!/^[0-9a-fA-F]{64}$/.test(paymentHash)) return text(400, "Request parameter paymentHash couldn't be parsed/converted to hex32");
    const invoice = this.node.get(paymentHash);
    if (!invoice) return text(404, "Unknown endpoint (check api doc)");
    const paid = invoice.settledAt !== null;
    const body: Record<string, unknown> = {
      type: "incoming_payment",
      subType: "lightning",
      paymentHash: invoice.paymentHash,
      preimage: invoice.preimage,
      description: invoice.description,
      invoice: invoice.paymentRequest,
      isPaid: paid,
      isExpired: !paid && this.node.isExpired(invoice),
      requestedSat: Number(invoice.amountMsat / 1000n),
      receivedSat: paid ? Number(invoice.amountMsat / 1000n) : 0,
      fees: 0,
      createdAt: invoice.createdAt.getTime(),
    };
    if (invoice.settledAt) body.completedAt = invoice.settledAt.getTime();
    const externalId = this.externalIds.get(invoice.paymentHash);
    if (externalId) body.externalId = externalId;
    return { status: 200, body };
  }
}
