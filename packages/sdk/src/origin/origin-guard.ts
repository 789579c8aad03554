// Drop-in origin protection for providers (spec 5.4): Node/Express middleware and a Next.js
// route-handler wrapper around verifyGatewayRequest, with an in-memory nonce cache by default.
// No server-side imports from this project: copy-paste friendly and usable in any Node origin.
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyGatewayRequest, type OriginVerifyFailure } from "./origin-signature.ts";

export type SecretPair = { gatewaySecret?: string; hmacSecret: string };

export type OriginGuardOptions = {
  /** Current secrets first, then the previous pair during a rotation grace period. */
  secrets: SecretPair[] | (() => SecretPair[] | Promise<SecretPair[]>);
  /** Maximum age of a signed request (30 s by default, as the spec recommends). */
  windowMs?: number;
  /** How far ahead of this server's clock a gateway's timestamp may be (5 s by default). */
  maxFutureSkewMs?: number;
  /**
   * Refuse requests without X-Gateway-Signature-V2 (the signature that covers the query string).
   * Without it, v2 is checked whenever present and v1 accepted otherwise.
   */
  requireSignatureV2?: boolean;
  /** Path prefix where the origin is mounted (the gateway signs tenant-relative paths). */
  basePath?: string;
  /** Replay guard; defaults to an in-memory cache (use a shared one with several origin instances). */
  rememberNonce?: (nonce: string, ttlMs: number) => boolean | Promise<boolean>;
  now?: () => number;
};

/** A bounded in-memory nonce cache: remembers each nonce for the signature window. */
export function memoryNonceCache(maxEntries = 100_000): (nonce: string, ttlMs: number) => boolean {
  const seen = new Map<string, number>();
  return (nonce, ttlMs) => {
    const now = Date.now();
    const expires = seen.get(nonce);
    if (expires !== undefined && expires > now) return false;
    seen.set(nonce, now + ttlMs);
    if (seen.size > maxEntries) {
      for (const [key, until] of seen) {
        if (until <= now || seen.size > maxEntries) seen.delete(key);
        if (seen.size <= maxEntries * 0.9) break;
      }
    }
    return true;
  };
}

function stripBase(path: string, basePath: string | undefined): string {
  if (!basePath) return path;
  const base = basePath.replace(/\/+$/, "");
  return path === base ? "/" : path.startsWith(`${base}/`) ? path.slice(base.length) : path;
}

/** Splits a request target into its path and its raw query (after the first "?", "" when none). */
function splitTarget(target: string): { path: string; query: string } {
  const q = target.indexOf("?");
  return q === -1 ? { path: target, query: "" } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

async function check(
  options: OriginGuardOptions,
  rememberNonce: NonNullable<OriginGuardOptions["rememberNonce"]>,
  input: { method: string; target: string; headers: Record<string, string | string[] | undefined>; rawBody: string | Uint8Array },
) {
  const secrets = typeof options.secrets === "function" ? await options.secrets() : options.secrets;
  const { path, query } = splitTarget(input.target);
  return verifyGatewayRequest({
    method: input.method,
    path: stripBase(path, options.basePath),
    query,
    headers: input.headers,
    rawBody: input.rawBody,
    secrets,
    windowMs: options.windowMs,
    maxFutureSkewMs: options.maxFutureSkewMs,
    requireSignatureV2: options.requireSignatureV2,
    now: options.now?.(),
    rememberNonce,
  });
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: Buffer; path?: string; originalUrl?: string };

/**
 * Express/Connect/Node middleware: answers 403 `{error:"forbidden", reason}` unless the request was
 * signed by the gateway. Reads the raw body itself (or uses `req.body` when it is a Buffer from
 * `express.raw()`), and leaves it on `req.rawBody` for your handler.
 */
export function gatewayGuard(options: OriginGuardOptions) {
  const rememberNonce = options.rememberNonce ?? memoryNonceCache();
  return async (req: NodeRequest, res: ServerResponse, next: (err?: unknown) => void) => {
    try {
      const raw = Buffer.isBuffer(req.body) ? req.body : typeof req.body === "string" ? Buffer.from(req.body) : await readRaw(req);
      req.rawBody = raw;
      const verdict = await check(options, rememberNonce, {
        method: req.method ?? "GET",
        target: req.originalUrl ?? req.url ?? "/",
        headers: req.headers,
        rawBody: raw,
      });
      if (!verdict.ok) return deny(res, verdict.reason);
      next();
    } catch (err) {
      next(err);
    }
  };
}

function deny(res: ServerResponse, reason: OriginVerifyFailure) {
  res.statusCode = 403;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify({ error: "forbidden", reason }));
}

/**
 * Next.js route-handler wrapper: `export const GET = withGatewayGuard(handler, { secrets, basePath })`.
 * The handler receives the request untouched (the body is read from a clone).
 */
export function withGatewayGuard<C>(handler: (request: Request, context: C) => Response | Promise<Response>, options: OriginGuardOptions) {
  const rememberNonce = options.rememberNonce ?? memoryNonceCache();
  return async (request: Request, context: C): Promise<Response> => {
    const rawBody = new Uint8Array(await request.clone().arrayBuffer());
    const url = new URL(request.url);
    const verdict = await check(options, rememberNonce, {
      method: request.method,
      target: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers.entries()),
      rawBody,
    });
    if (!verdict.ok) return Response.json({ error: "forbidden", reason: verdict.reason }, { status: 403 });
    return handler(request, context);
  };
}
