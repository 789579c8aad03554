// Origin protection (spec 5.4): the gateway signs every proxied request; origins verify it.
// Shared by the gateway (signing) and origin middleware (verifying). Node-only (node:crypto).
// Two signatures travel on every request:
//   X-Gateway-Signature     v1: METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY (no query). Kept byte for byte:
//                           deployed verifiers compute exactly this.
//   X-Gateway-Signature-V2  v2: "v2"\nMETHOD\nPATH\nQUERY\nTIMESTAMP\nNONCE\nBODY, which also
//                           covers the query string. Our verifier checks it when present (and can
//                           be told to require it, so stripping it cannot downgrade a request).
import { createHmac, timingSafeEqual } from "node:crypto";

export const gatewayHeaders = {
  secret: "x-gateway-secret",
  signature: "x-gateway-signature",
  signatureV2: "x-gateway-signature-v2",
  timestamp: "x-gateway-timestamp",
  nonce: "x-gateway-nonce",
} as const;

/** What both signature versions cover; `query` only counts in v2. */
export type OriginPayloadParts = { method: string; path: string; timestamp: string; nonce: string; body: string | Uint8Array };

/** The body part: the raw body as UTF-8, empty for GET and HEAD (both versions). */
function bodyPart(method: string, body: string | Uint8Array): string {
  return method === "GET" || method === "HEAD" ? "" : typeof body === "string" ? body : Buffer.from(body).toString("utf8");
}

/**
 * The v1 canonical payload: METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY. PATH is tenant-relative without
 * the query string; BODY is the raw body as UTF-8 (empty for GET and HEAD); TIMESTAMP in milliseconds.
 */
export function canonicalOriginPayload(parts: OriginPayloadParts): string {
  const method = parts.method.toUpperCase();
  return [method, parts.path, parts.timestamp, parts.nonce, bodyPart(method, parts.body)].join("\n");
}

/**
 * The v2 canonical payload: `v2`\nMETHOD\nPATH\nQUERY\nTIMESTAMP\nNONCE\nBODY. QUERY is the query
 * string exactly as received, without its leading "?" ("" when there is none). The leading `v2` line
 * keeps a v1 payload from ever reading as a v2 one.
 */
export function canonicalOriginPayloadV2(parts: OriginPayloadParts & { query: string }): string {
  const method = parts.method.toUpperCase();
  return ["v2", method, parts.path, withoutQuestionMark(parts.query), parts.timestamp, parts.nonce, bodyPart(method, parts.body)].join("\n");
}

function withoutQuestionMark(query: string): string {
  return query.startsWith("?") ? query.slice(1) : query;
}

/** Hex HMAC-SHA256 of a canonical payload with the tenant's HMAC secret. */
export function signOriginPayload(hmacSecret: string, payload: string): string {
  return createHmac("sha256", hmacSecret).update(payload, "utf8").digest("hex");
}

export type OriginVerifyFailure =
  "missing_headers" | "invalid_timestamp" | "timestamp_out_of_window" | "secret_mismatch" | "signature_mismatch" | "replayed_nonce";

/** Default maximum age of a signed request (spec 8). */
export const ORIGIN_SIGNATURE_WINDOW_MS = 30_000;
/** Default tolerance for a gateway clock ahead of the origin's: NTP-synced clocks differ by milliseconds. */
export const ORIGIN_SIGNATURE_FUTURE_SKEW_MS = 5_000;

export type OriginVerifyOptions = {
  method: string;
  /** Path relative to the origin's mount point, without the query string (Express `req.path`). */
  path: string;
  /**
   * The raw query string as received (with or without its leading "?"; "" when none). Given, the
   * v2 signature is checked whenever the request carries one; omitted, only v1 can be checked.
   */
  query?: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string | Uint8Array;
  /** Current and previous secret pairs (during rotation both are accepted). */
  secrets: { gatewaySecret?: string; hmacSecret: string }[];
  /** Maximum age (now minus timestamp), 30,000 ms by default. */
  windowMs?: number;
  /** How far the timestamp may be ahead of `now` (the gateway's clock running fast), 5,000 ms by default. */
  maxFutureSkewMs?: number;
  /**
   * Refuse requests without X-Gateway-Signature-V2 (`missing_headers`): set it once every gateway
   * you accept sends v2, so nobody on the way can strip it and change the query. Implies `query` ("" if omitted).
   */
  requireSignatureV2?: boolean;
  now?: number;
  /** Returns false when the nonce was already seen; remember it for at least the TTL it is given. */
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
  const signatureV1 = header(options.headers, gatewayHeaders.signature);
  const signatureV2 = header(options.headers, gatewayHeaders.signatureV2);
  const timestamp = header(options.headers, gatewayHeaders.timestamp);
  const nonce = header(options.headers, gatewayHeaders.nonce);
  const query = options.query ?? (options.requireSignatureV2 ? "" : undefined);
  // v2 whenever it can be checked; v1 only when the request has no v2 and v2 is not required.
  const useV2 = signatureV2 !== undefined && query !== undefined;
  if (options.requireSignatureV2 && !signatureV2) return { ok: false, reason: "missing_headers" };
  const signature = useV2 ? signatureV2 : signatureV1;
  if (!signature || !timestamp || !nonce) return { ok: false, reason: "missing_headers" };
  if (!/^\d{1,16}$/.test(timestamp)) return { ok: false, reason: "invalid_timestamp" };
  const windowMs = options.windowMs ?? ORIGIN_SIGNATURE_WINDOW_MS;
  const futureSkewMs = options.maxFutureSkewMs ?? ORIGIN_SIGNATURE_FUTURE_SKEW_MS;
  const age = (options.now ?? Date.now()) - Number(timestamp);
  if (age < -futureSkewMs || age > windowMs) return { ok: false, reason: "timestamp_out_of_window" };
  const presentedSecret = header(options.headers, gatewayHeaders.secret);
  const parts = { method: options.method, path: options.path, timestamp, nonce, body: options.rawBody };
  const payload = useV2 ? canonicalOriginPayloadV2({ ...parts, query: query! }) : canonicalOriginPayload(parts);
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
  // A request stays verifiable from `timestamp - skew` to `timestamp + window`: its nonce must be remembered that long.
  if (options.rememberNonce && !(await options.rememberNonce(nonce, windowMs + futureSkewMs))) return { ok: false, reason: "replayed_nonce" };
  return { ok: true };
}
