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
  handle(request: OriginRequest): JsonAnswer | Promise<JsonAnswer>;
  log?: (line: Record<string, unknown>) => void;
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
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    ...answer.headers,
  });
  res.end(body);
}

/** The request listener: body cap, signature check, JSON parse, the handler, errors as JSON. */
export function originRequestListener(options: OriginServerOptions) {
  // Read on every call: a parent may hand over new secrets after a rotation (startOriginServer).
  const guard = gatewayGuard({ secrets: () => options.env.secrets, requireSignatureV2: true });
  const log = options.log ?? jsonLineLog(options.name);
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
