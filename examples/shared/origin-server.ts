// What every example origin shares, built as any provider would build an origin on the public SDK:
// a plain node:http server that reads the environment, caps and reads the JSON body, lets only
// calls signed by the hub's gateway through (`gatewayGuard` of @l402-hub/sdk/origin), answers
// errors as JSON, and tells a parent process (the hub's one-process launcher) where it listens.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gatewayGuard, type SecretPair } from "@l402-hub/sdk/origin";

/** The environment an example origin runs with (docs/examples.md). */
export interface OriginEnvironment {
  port: number;
  host: string;
  dataDir: string;
  /** The tenant's origin secrets (dashboard → Origin secrets): only the gateway knows them. */
  secrets: SecretPair[];
}

export class OriginConfigError extends Error {}

/**
 * Reads ORIGIN_PORT (default `defaultPort`), ORIGIN_HOST (127.0.0.1), DATA_DIR (.data) and the
 * secret pair ORIGIN_GATEWAY_SECRET + ORIGIN_HMAC_SECRET (with ORIGIN_PREVIOUS_GATEWAY_SECRET +
 * ORIGIN_PREVIOUS_HMAC_SECRET during a rotation). Without a HMAC secret the origin refuses to start:
 * an origin that anyone can call for free is not a paid API.
 */
export function originEnvironment(env: NodeJS.ProcessEnv, defaultPort: number): OriginEnvironment {
  const port = Number(env.ORIGIN_PORT ?? defaultPort);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new OriginConfigError(`ORIGIN_PORT must be a port number, got "${env.ORIGIN_PORT}"`);
  const secrets: SecretPair[] = [];
  if (env.ORIGIN_HMAC_SECRET) secrets.push({ gatewaySecret: env.ORIGIN_GATEWAY_SECRET || undefined, hmacSecret: env.ORIGIN_HMAC_SECRET });
  if (env.ORIGIN_PREVIOUS_HMAC_SECRET)
    secrets.push({ gatewaySecret: env.ORIGIN_PREVIOUS_GATEWAY_SECRET || undefined, hmacSecret: env.ORIGIN_PREVIOUS_HMAC_SECRET });
  if (!secrets.length) {
    throw new OriginConfigError(
      "ORIGIN_HMAC_SECRET (and ORIGIN_GATEWAY_SECRET) must be set: copy them from the workspace's Origin secrets in the dashboard, so only the gateway can call this origin",
    );
  }
  return { port, host: env.ORIGIN_HOST || "127.0.0.1", dataDir: env.DATA_DIR || ".data", secrets };
}

/**
 * When a parent started this origin with an IPC channel (the hub's launcher), exit as soon as the
 * channel closes: call it first thing, so an origin still preparing its data never outlives the hub.
 */
export function exitWithParent(): void {
  if (!process.send) return;
  if (!process.connected) process.exit(0);
  process.once("disconnect", () => process.exit(0));
}

/** An answer the origin writes as JSON. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Where a stream writes its SSE frames: events (JSON data) and comments. */
export interface SseSink {
  event(name: string, data: unknown, id?: string): void;
  comment(text: string): void;
}

/**
 * An SSE answer: the server writes `text/event-stream` headers at once, then `open` writes frames
 * into the sink until the client goes away, when the function `open` returned is called (it
 * unsubscribes). A keep-alive comment goes to every open stream every `keepAliveMs`.
 */
export interface StreamAnswer {
  status: 200;
  stream: (sink: SseSink) => () => void;
  headers?: Record<string, string>;
}

export type OriginAnswer = JsonAnswer | StreamAnswer;

/** Streams whose unsent output grows past this are cut: a reader that stopped reading costs nothing more. */
const MAX_STREAM_BACKLOG_BYTES = 1024 * 1024;

/** One event's serialized data, made once however many streams send it (objects by identity). */
const serialized = new WeakMap<object, string>();

/** An SSE frame (spec 1 §4.7): `event:`, optional `id:`, `data:` lines, blank line. */
export function sseFrame(name: string, data: unknown, id?: string): string {
  let json: string;
  if (data !== null && typeof data === "object") {
    json = serialized.get(data) ?? JSON.stringify(data);
    serialized.set(data, json);
  } else json = JSON.stringify(data);
  return `event: ${name}\n${id ? `id: ${id}\n` : ""}data: ${json}\n\n`;
}

/** The error body of every example origin: a stable code, a message, and the field it names. */
export function errorAnswer(status: number, code: string, message: string, extra: Record<string, unknown> = {}): JsonAnswer {
  return { status, body: { error: { code, message, ...extra } } };
}

/** A request as the handler sees it: method, path, query and the parsed JSON body (undefined when empty). */
export interface OriginRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingMessage["headers"];
  /** The gateway's health probe (`X-Hub-Probe: 1`): validate, but skip expensive work. */
  probe: boolean;
}

export interface OriginServerOptions {
  name: string;
  env: OriginEnvironment;
  /** Largest request body in bytes (413 above it). */
  maxBodyBytes: number;
  /** Paths served without the gateway's signature: discovery and liveness only, never paid data. */
  publicPaths: ReadonlySet<string>;
  handle(request: OriginRequest): OriginAnswer | Promise<OriginAnswer>;
  log?: (line: Record<string, unknown>) => void;
  /** Milliseconds between the keep-alive comments of open SSE streams (default 15 s). */
  keepAliveMs?: number;
}

/** The default log: one JSON line per entry on stdout, named by the origin. */
function jsonLineLog(origin: string): (line: Record<string, unknown>) => void {
  return (line) => console.log(JSON.stringify({ time: new Date().toISOString(), origin, ...line }));
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLarge());
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function writeJson(res: ServerResponse, answer: JsonAnswer) {
  // 304 Not Modified and 204 No Content carry no body (and so no content-length).
  if (answer.status === 304 || answer.status === 204) {
    res.writeHead(answer.status, { "cache-control": "no-store", ...answer.headers });
    return void res.end();
  }
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...answer.headers,
  });
  res.end(body);
}

/** The open SSE streams of one listener, and the one timer that keeps them all alive. */
class OpenStreams {
  private readonly open = new Set<ServerResponse>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly keepAliveMs: number) {}

  get size(): number {
    return this.open.size;
  }

  /** Writes the headers at once (spec 1 §4.7: within about a second), then hands the sink to `open`. */
  start(req: IncomingMessage, res: ServerResponse, answer: StreamAnswer) {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      ...answer.headers,
    });
    res.flushHeaders();
    const write = (text: string) => {
      if (res.destroyed || res.writableEnded) return;
      if (res.writableLength > MAX_STREAM_BACKLOG_BYTES) return void res.destroy();
      res.write(text);
    };
    this.open.add(res);
    const unsubscribe = answer.stream({ event: (name, data, id) => write(sseFrame(name, data, id)), comment: (text) => write(`: ${text}\n\n`) });
    const close = () => {
      if (!this.open.delete(res)) return;
      unsubscribe();
      if (!this.open.size) this.stopTimer();
    };
    res.once("close", close);
    req.once("close", () => {
      if (req.destroyed && !res.writableEnded) res.destroy();
    });
    // The client may have gone while the stream opened: its close event has passed.
    if (res.destroyed) close();
    this.startTimer();
  }

  private startTimer() {
    if (this.timer || !this.open.size) return;
    this.timer = setInterval(() => {
      for (const res of this.open) if (!res.destroyed && res.writableLength <= MAX_STREAM_BACKLOG_BYTES) res.write(": keep-alive\n\n");
    }, this.keepAliveMs);
    this.timer.unref();
  }

  private stopTimer() {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The request listener: body cap, signature check, JSON parse, the handler, errors as JSON, SSE streams. */
export function originRequestListener(options: OriginServerOptions) {
  // Read on every call: a parent may hand over new secrets after a rotation (startOriginServer).
  const guard = gatewayGuard({ secrets: () => options.env.secrets, requireSignatureV2: true });
  const log = options.log ?? jsonLineLog(options.name);
  const streams = new OpenStreams(options.keepAliveMs ?? 15_000);
  return async (req: IncomingMessage & { body?: Buffer }, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://origin.invalid");
    try {
      const raw = await readBody(req, options.maxBodyBytes);
      if (!options.publicPaths.has(url.pathname)) {
        req.body = raw;
        const allowed = await new Promise<boolean>((resolve, reject) => {
          res.once("finish", () => resolve(false));
          void guard(req, res, (err) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(true)));
        });
        if (!allowed) return;
      }
      let body: unknown;
      if (raw.length) {
        try {
          body = JSON.parse(raw.toString("utf8"));
        } catch {
          return writeJson(res, errorAnswer(400, "invalid_json", "The request body is not valid JSON"));
        }
      }
      // The gateway gave up meanwhile (its deadline, or its caller went away): spend nothing on it.
      if (req.socket.destroyed) return;
      const answer = await options.handle({
        method: req.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        body,
        headers: req.headers,
        probe: req.headers["x-hub-probe"] === "1",
      });
      if ("stream" in answer) return streams.start(req, res, answer);
      writeJson(res, answer);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        res.setHeader("connection", "close");
        return writeJson(res, errorAnswer(413, "payload_too_large", `The request body is larger than ${options.maxBodyBytes} bytes`));
      }
      log({ level: "error", msg: "request failed", method: req.method, path: url.pathname, error: err instanceof Error ? err.stack : String(err) });
      if (!res.headersSent) writeJson(res, errorAnswer(500, "internal", "The origin failed to answer; the gateway refunds this call"));
      else res.destroy();
    }
  };
}

/**
 * Starts the origin. When a parent started it with an IPC channel (the hub's launcher), it reports
 * `{type: "listening", port}` and exits when the channel closes, so it never outlives the hub.
 */
export async function startOriginServer(options: OriginServerOptions): Promise<http.Server> {
  const server = http.createServer(originRequestListener(options));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.env.port, options.env.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const log = options.log ?? jsonLineLog(options.name);
  log({ level: "info", msg: `${options.name} origin listening`, url: `http://${options.env.host}:${port}` });
  if (process.send) {
    process.send({ type: "listening", port });
    // The launcher sends the tenant's secrets again after a rotation and when a grace period ends.
    process.on("message", (message: { type?: string; secrets?: SecretPair[] }) => {
      if (message?.type !== "secrets" || !Array.isArray(message.secrets) || !message.secrets.length) return;
      options.env.secrets = message.secrets;
      log({ level: "info", msg: "origin secrets replaced", pairs: message.secrets.length });
    });
  }
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return server;
}
