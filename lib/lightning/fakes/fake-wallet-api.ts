// What every HTTP wallet fake (LND, LNbits, phoenixd) shares: the node that signs its invoices, the
// loopback server that speaks its protocol, and the test controls on both. Test-only code.
import type { FakeHttpServer, RecordedRequest } from "./fake-http-server.ts";
import { FakeLightningNode, type FakeInvoice } from "./fake-invoices.ts";

export abstract class FakeWalletApi {
  /** The node behind the API: its key signs the invoices; `markPaid` settles them. */
  readonly node: FakeLightningNode;
  /** Set by each fake's `start()` once the server listens. */
  protected server!: FakeHttpServer;

  protected constructor(now: () => Date) {
    this.node = new FakeLightningNode(now);
  }

  /** The API base URL. */
  get url(): string {
    return this.server.url;
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
