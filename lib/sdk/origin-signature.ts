// Origin protection (spec 5.4): the gateway signs every proxied request; origins verify it.
// Shared by the gateway (signing) and origin middleware (verifying). Node-only (node:crypto).
import { createHmac, timingSafeEqual } from "node:crypto";

export const gatewayHeaders = {
  secret: "x-gateway-secret",
  signature: "x-gateway-signature",
  timestamp: "x-gateway-timestamp",
  nonce: "x-gateway-nonce",
} as const;

/**
 * The canonical payload: METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY. PATH is tenant-relative without the
 * query string; BODY is the raw body as UTF-8 (empty for GET and HEAD); TIMESTAMP in milliseconds.
 */
export function canonicalOriginPayload(parts: { method: string; path: string; timestamp: string; nonce: string; body: string | Uint8Array }): string {
  const method = parts.method.toUpperCase();
  const body = method === "GET" || method === "HEAD" ? "" : typeof parts.body === "string" ? parts.body : Buffer.from(parts.body).toString("utf8");
  return [method, parts.path, parts.timestamp, parts.nonce, body].join("\n");
}

/** Hex HMAC-SHA256 of the canonical payload with the tenant's HMAC secret. */
export function signOriginPayload(hmacSecret: string, payload: string): string {
  return createHmac("sha256", hmacSecret).update(payload, "utf8").digest("hex");
}

export type OriginVerifyFailure =
  | "missing_headers"
  | "invalid_timestamp"
  | "timestamp_out_of_window"
  | "secret_mismatch"
  | "signature_mismatch"
  | "replayed_nonce";

export type OriginVerifyOptions = {
  method: string;
  /** Path relative to the origin's mount point, without the query string (Express `req.path`). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string | Uint8Array;
  /** Current and previous secret pairs (during rotation both are accepted). */
  secrets: { gatewaySecret?: string; hmacSecret: string }[];
  windowMs?: number;
  now?: number;
  /** Returns false when the nonce was already seen; remember it for at least windowMs. */
  rememberNonce?: (nonce: string, ttlMs: number) => boolean | Promise<boolean>;
};

function header(headers: OriginVerifyOptions["headers"], name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function hexEqual(a: string, b: string): boolean {
  if (!/^[0-9a-f]+$/i.test(a) || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, "hex"), Buffer.from(b, "hex"));
}

/** Verifies a gateway request on the origin side; ok or the first rule that failed. */
export async function verifyGatewayRequest(options: OriginVerifyOptions): Promise<{ ok: true } | { ok: false; reason: OriginVerifyFailure }> {
  const signature = header(options.headers, gatewayHeaders.signature);
  const timestamp = header(options.headers, gatewayHeaders.timestamp);
  const nonce = header(options.headers, gatewayHeaders.nonce);
  if (!signature || !timestamp || !nonce) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,16}$/.test(timestamp)) return { ok: false, reason: "invalid_timestamp" };
  const windowMs = options.windowMs ?? 30_000;
  const age = (options.now ?? Date.now()) - Number(timestamp);
  if (age < 0 || age > windowMs) return { ok: false, reason: "timestamp_out_of_window" };
  const presentedSecret = header(options.headers, gatewayHeaders.secret);
  const payload = canonicalOriginPayload({ method: options.method, path: options.path, timestamp, nonce, body: options.rawBody });
  let secretSeen = false;
  let matched = false;
  for (const pair of options.secrets) {
    if (pair.gatewaySecret !== undefined && presentedSecret !== undefined) {
      const a = Buffer.from(pair.gatewaySecret);
      const b = Buffer.from(presentedSecret);
      if (a.length !== b.length || !timingSafeEqual(a, b)) continue;
    }
    secretSeen = true;
    if (hexEqual(signature, signOriginPayload(pair.hmacSecret, payload))) matched = true;
  }
  if (!secretSeen) return { ok: false, reason: "secret_mismatch" };
  if (!matched) return { ok: false, reason: "signature_mismatch" };
  if (options.rememberNonce && !(await options.rememberNonce(nonce, windowMs))) return { ok: false, reason: "replayed_nonce" };
  return { ok: true };
}
