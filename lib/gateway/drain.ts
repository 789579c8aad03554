// A draining shutdown (docs/decisions.md "Shutdown drains"): the server stops accepting
// connections, the calls in flight finish (their money statements included), and only then do the
// pools the process closes next go away. It waits for two things: responses, from a request's
// arrival to their end, and request handlers, until they return. A handler can outlive its response
// (the client left while its claim was being written, then the claim is released): its money
// statements need the pool that the process closes after close() returns.
import type http from "node:http";
import type { ServerResponse } from "node:http";

/** How long a drain waits, and how it asks streams to end. */
export type DrainOptions = {
  /** How long calls in flight may take to finish before their connections are cut. */
  drainMs: number;
  /** After the cut, how long the handlers of cut calls get to give their claims back. */
  cutGraceMs: number;
  /** Asks open streams to end at their next event boundary (StreamTicker.shutdown). */
  endStreams: () => void;
};

/** Counts what is in flight; the server reports each response and handler to it. */
export class Drain {
  private readonly inFlight = new Set<ServerResponse>();
  private runningHandlers = 0;
  private draining = false;
  private drained: (() => void) | null = null;

  /** A request arrived: its response is in flight until it closes. While draining it closes its connection, so keep-alive clients reconnect elsewhere. */
  responseStarted(res: ServerResponse): void {
    this.inFlight.add(res);
    if (this.draining) res.setHeader("connection", "close");
  }

  /** The response closed (finished, or the client left). */
  responseClosed(res: ServerResponse): void {
    this.inFlight.delete(res);
    this.settled();
  }

  /** A request handler began. */
  handlerStarted(): void {
    this.runningHandlers += 1;
  }

  /** A request handler returned (or threw). */
  handlerEnded(): void {
    this.runningHandlers -= 1;
    this.settled();
  }

  /**
   * Drains `server`: no new connections; calls in flight finish, open streams end at their next
   * event boundary; whatever is still running after drainMs is cut, and its handler gets
   * cutGraceMs to give its claim back (past that, the claim lapses with its lease: the payer can
   * redeem again). Resolves once the server is closed.
   */
  async closeServer(server: http.Server, options: DrainOptions): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    options.endStreams();
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader("connection", "close");
    await this.idle(options.drainMs);
    server.closeAllConnections();
    await this.idle(options.cutGraceMs);
    await closed;
  }

  private busy(): boolean {
    return this.inFlight.size > 0 || this.runningHandlers > 0;
  }

  private settled(): void {
    if (!this.busy()) this.drained?.();
  }

  /** Resolves when no response or handler is left, or after `ms`. */
  private async idle(ms: number): Promise<void> {
    if (!this.busy()) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.drained = resolve;
      timer = setTimeout(resolve, ms);
    });
    this.drained = null;
    clearTimeout(timer);
  }
}
