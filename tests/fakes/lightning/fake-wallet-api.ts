// What every HTTP wallet fake (LND, LNbits, phoenixd) shares: the node that signs its invoices, the
// loopback server that speaks its protocol, and the test controls on both. Test-only code.
import { createHash } from "node:crypto";
import { decode as decodeBolt11 } from "bolt11";
import type { FakeHttpServer, RecordedRequest } from "./fake-http-server.ts";
import { FakeLightningNode, type FakeInvoice } from "./fake-invoices.ts";

/** The Lightning network as the fakes' pay routes see it: pays a bolt11 and returns the preimage (tests pass e.g. the dev node's `pay`). */
export type FakeLightningNetwork = (invoice: string) => Promise<{ preimage: string }>;

/** An outgoing payment a fake made. */
export type FakeOutgoingPayment = { invoice: string; paymentHash: string; preimage: string; amountSat: number };

export abstract class FakeWalletApi {
  /** The node behind the API: its key signs the invoices; `markPaid` settles them. */
  readonly node: FakeLightningNode;
  /** Set by each fake's `start()` once the server listens. */
  protected server!: FakeHttpServer;

  /** Where this wallet's outgoing payments go; null: every payment fails with "no route" (the default). */
  network: FakeLightningNetwork | null = null;
  /** Outgoing payments made through the pay route, oldest first. */
  readonly sent: FakeOutgoingPayment[] = [];

  protected constructor(now: () => Date) {
    this.node = new FakeLightningNode(now);
  }

  /** Pays an invoice over `network` (the pay routes of LND, LNbits, phoenixd); a failure message instead of throwing. */
  protected async sendPayment(invoice: string): Promise<({ ok: true } & FakeOutgoingPayment) | { ok: false; message: string }> {
    let amountSat: number;
    try {
      amountSat = Number(decodeBolt11(invoice).satoshis ?? 0);
    } catch {
      return { ok: false, message: "invalid payment request" };
    }
    if (!this.network) return { ok: false, message: "unable to find a path to destination" };
    try {
      const { preimage } = await this.network(invoice);
      const payment = { invoice, preimage, amountSat, paymentHash: createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex") };
      this.sent.push(payment);
      return { ok: true, ...payment };
    } catch (err) {
      return { ok: false, message: (err as Error).message };
    }
  }

  /** The API base URL. */
  get url(): string {
    return this.server.url;
  }

  /** TCP connections the API accepted since start (tests bounding how many a client opens). */
  get connectionsOpened(): number {
    return this.server.connectionsOpened;
  }

  /** TCP connections open now (tests checking a client closed what it held). */
  get connectionsOpen(): number {
    return this.server.connectionsOpen;
  }

  /** Every request received, for wire-shape assertions. */
  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  /** Settles an invoice as if it had been paid. */
  markPaid(paymentHash: string): FakeInvoice {
    return this.node.markPaid(paymentHash);
  }

  /** The next request is answered with this status and body. */
  failNext(status: number, body?: unknown): void {
    this.server.failNext(status, body);
  }

  /** The next request is answered 200 with a malformed body. */
  malformNext(body?: string): void {
    this.server.malformNext(body);
  }

  /** Stops answering (timeout tests) until `resume()`. */
  hang(): void {
    this.server.hang();
  }

  /** Answers again after `hang()`. */
  resume(): void {
    this.server.resume();
  }

  /** Stops the server and drops every connection. */
  async close(): Promise<void> {
    await this.server.close();
  }
}
