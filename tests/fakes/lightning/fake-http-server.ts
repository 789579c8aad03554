// The node:http(s) server under the fake REST wallets (LND, LNbits, phoenixd): listens on
// 127.0.0.1:0, records every request, and gives tests the failure controls real wallets exhibit:
// an error status next, a malformed body next, or no answer at all. Test-only code.
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";

/** A request as the fake saw it, for tests asserting the exact wire shape a backend sends. */
export type RecordedRequest = {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
};

/** An answer: an object or array is sent as JSON, a string as-is (with `contentType`). */
export type FakeReply = { status: number; body: unknown; contentType?: string };

/** Routes one request of a fake API to its answer. */
export type FakeRouteHandler = (request: RecordedRequest, url: URL) => FakeReply | Promise<FakeReply>;

/** Options of the underlying server: TLS material turns it into https (LND's self-signed cert). */
export type FakeHttpServerOptions = { tls?: { key: string; cert: string } };

/** Truncated JSON, as a proxy cutting a response short would deliver it. */
const MALFORMED_BODY = '{"truncated": ';

/** A fake REST wallet's server with recording and failure controls. */
export class FakeHttpServer {
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  private readonly overrides: FakeReply[] = [];
  private hanging = false;
  private readonly sockets = new Set<Socket>();
  /** TCP connections accepted since start, open or closed (tests bounding how many a client opens). */
  connectionsOpened = 0;

  /** TCP connections open now (tests checking a client closed what it held). */
  get connectionsOpen(): number {
    return this.sockets.size;
  }

  private constructor(
    /** The listening server, exposed so a fake can add a websocket upgrade handler (phoenixd). */
    readonly server: http.Server,
    /** Base URL, e.g. `http://127.0.0.1:41234`. */
    readonly url: string,
  ) {
    server.on("connection", (socket: Socket) => {
      this.connectionsOpened += 1;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  /** Starts a server on a random loopback port answering with `handler`. */
  static async start(handler: FakeRouteHandler, options: FakeHttpServerOptions = {}): Promise<FakeHttpServer> {
    // Requests arrive only once the server listens, by when `fake` below exists.
    const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
      void fake.handle(req, res, handler);
    };
    const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, listener) : http.createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeHttpServer(server, `${options.tls ? "https" : "http"}://127.0.0.1:${port}`);
    return fake;
  }

  /** The next request gets this status and body instead of its real answer (one-shot, queued). */
  failNext(status: number, body: unknown = { error: `fake failure ${status}` }): void {
    this.overrides.push({ status, body });
  }

  /** The next request gets 200 with a truncated JSON body (or the given text). */
  malformNext(body: string = MALFORMED_BODY): void {
    this.overrides.push({ status: 200, body, contentType: "application/json" });
  }

  /** From now on requests are read but never answered, until `resume()` (timeout tests). */
  hang(): void {
    this.hanging = true;
  }

  /** Answers requests again after `hang()`; requests already hanging stay unanswered. */
  resume(): void {
    this.hanging = false;
  }

  /** Stops listening and destroys every open connection, hanging ones included. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, handler: FakeRouteHandler): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
    this.requests.push(recorded);
    if (this.hanging) return;
    let reply = this.overrides.shift();
    if (!reply) {
      try {
        reply = await handler(recorded, new URL(recorded.path, this.url));
      } catch (err) {
        reply = { status: 500, body: `fake handler error: ${(err as Error).message}`, contentType: "text/plain" };
      }
    }
    const isText = typeof reply.body === "string";
    const body = isText ? (reply.body as string) : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      "content-type": reply.contentType ?? (isText ? "text/plain; charset=utf-8" : "application/json"),
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  }
}

/** Reads a JSON request body; undefined when it is not JSON (the fakes answer that with 400). */
export function jsonBody(request: RecordedRequest): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(request.body);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A loopback port nothing listens on (bound, then released): connecting to it is refused. */
export async function closedLoopbackPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
