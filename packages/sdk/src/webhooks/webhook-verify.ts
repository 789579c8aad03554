// Webhook signatures (spec 6.2) for receivers, and the one definition of the signing recipe that the
// platform's sender (lib/webhooks/sign.ts) also uses. No server-side imports: node:crypto only.
//
// Recipe (spec 6.2 and the Standard Webhooks specification), with two keys from one secret:
//   X-Webhook-Signature = hex(HMAC-SHA256(secret as UTF-8, `${X-Webhook-Timestamp}.${rawBody}`)), timestamp in ms;
//                         the key is the secret string exactly as the create route returned it, `whsec_`
//                         included (what deployed receivers compute with createHmac("sha256", secret))
//   webhook-signature   = "v1," + base64(HMAC-SHA256(base64-decoded bytes after `whsec_`,
//                         `${webhook-id}.${webhook-timestamp}.${rawBody}`)), timestamp in s (Standard Webhooks' key)
import { createHmac, timingSafeEqual } from "node:crypto";

/** Prefix of every secret we issue (the Standard Webhooks convention). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** Spec 8: the SDK's default replay window. */
export const DEFAULT_TOLERANCE_MS = 300_000;

/** Header names of our scheme (lowercase, as Node and fetch expose them). */
export const webhookHeaders = {
  id: "x-webhook-id",
  signature: "x-webhook-signature",
  timestamp: "x-webhook-timestamp",
  event: "x-webhook-event",
} as const;

/** Header names of the Standard Webhooks scheme, sent alongside ours. */
export const standardWebhookHeaders = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
} as const;

/** Exactly the verifier failure codes of spec 6.2; a receiver answers 400 with any of them. */
export const WEBHOOK_VERIFY_CODES = [
  "missing_secret",
  "missing_signature",
  "missing_timestamp",
  "invalid_timestamp",
  "timestamp_out_of_tolerance",
  "invalid_signature_format",
  "signature_mismatch",
  "invalid_payload_json",
] as const;
/** One of the 8 failure codes. */
export type WebhookVerifyCode = (typeof WEBHOOK_VERIFY_CODES)[number];

/** The delivery envelope (spec 2.6): the same `id` on every retry, so receivers deduplicate on it. */
export type WebhookEnvelope<D = Record<string, unknown>> = {
  id: string;
  event: string;
  /** ISO 8601 time of the event (not of the attempt). */
  timestamp: string;
  data: D;
};

/** Headers as Node (`req.headers`), fetch (`Headers`) or a plain object carry them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** The HMAC key of X-Webhook-Signature (spec 6.2): the secret's UTF-8 bytes, prefix included. */
export function webhookSignatureKey(secret: string): Buffer {
  return Buffer.from(secret, "utf8");
}

/**
 * The HMAC key of the Standard Webhooks `webhook-signature`: the decoded bytes of a
 * `whsec_<base64>` secret, as that standard's verifiers derive it, or the UTF-8 bytes of any other string.
 */
export function standardWebhookKey(secret: string): Buffer {
  if (secret.startsWith(WEBHOOK_SECRET_PREFIX)) return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
  return Buffer.from(secret, "utf8");
}

function bodyBytes(rawBody: string | Uint8Array): Buffer {
  return typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
}

/** X-Webhook-Signature: hex HMAC-SHA256 of `${timestampMs}.${rawBody}`. */
export function computeWebhookSignature(key: Uint8Array, timestampMs: string, rawBody: string | Uint8Array): string {
  return createHmac("sha256", key).update(`${timestampMs}.`, "utf8").update(bodyBytes(rawBody)).digest("hex");
}

/** webhook-signature (without the `v1,` prefix): base64 HMAC-SHA256 of `${id}.${timestampSeconds}.${rawBody}`. */
export function computeStandardSignature(key: Uint8Array, id: string, timestampSeconds: string, rawBody: string | Uint8Array): string {
  return createHmac("sha256", key).update(`${id}.${timestampSeconds}.`, "utf8").update(bodyBytes(rawBody)).digest("base64");
}

/** Reads one header case-insensitively from any header source; the first value if repeated. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name] ?? record[name.toLowerCase()];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value[0] : value;
}

/** Everything a receiver has: its secret, the request's headers and its raw body. */
export type VerifyWebhookOptions = {
  /** The subscription secret; several during your own rotation (any match passes). */
  secret: string | readonly string[] | undefined | null;
  headers: HeaderSource;
  /** The body exactly as received: never JSON.stringify(parsedBody). */
  rawBody: string | Uint8Array;
  /** Replay window in ms, both directions (default 300000, spec 8). */
  toleranceMs?: number;
  /** Current time in ms (tests). */
  now?: number;
};

/** The envelope when every rule passed, else the first failed rule's code. */
export type VerifyWebhookResult<D = Record<string, unknown>> = { ok: true; event: WebhookEnvelope<D> } | { ok: false; code: WebhookVerifyCode };

const TIMESTAMP_MS = /^\d{1,16}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function isEnvelope(value: unknown): value is WebhookEnvelope {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === "string" && typeof v.event === "string" && typeof v.timestamp === "string" && typeof v.data === "object" && v.data !== null;
}

/**
 * Verifies a delivery of our scheme (X-Webhook-Signature, millisecond X-Webhook-Timestamp) and
 * returns the parsed envelope, or the first failed rule as one of the 8 spec codes. Signatures are
 * compared in constant time; the timestamp must be within toleranceMs of now, either side.
 */
export function verifyWebhook<D = Record<string, unknown>>(options: VerifyWebhookOptions): VerifyWebhookResult<D> {
  const secrets = (typeof options.secret === "string" ? [options.secret] : (options.secret ?? [])).filter((s) => typeof s === "string" && s.length > 0);
  if (secrets.length === 0) return { ok: false, code: "missing_secret" };
  const signature = readHeader(options.headers, webhookHeaders.signature)?.trim();
  if (!signature) return { ok: false, code: "missing_signature" };
  const timestamp = readHeader(options.headers, webhookHeaders.timestamp)?.trim();
  if (!timestamp) return { ok: false, code: "missing_timestamp" };
  if (!TIMESTAMP_MS.test(timestamp)) return { ok: false, code: "invalid_timestamp" };
  const toleranceMs = options.toleranceMs ?? DEFAULT_TOLERANCE_MS;
  const now = options.now ?? Date.now();
  if (Math.abs(now - Number(timestamp)) > toleranceMs) return { ok: false, code: "timestamp_out_of_tolerance" };
  if (!HEX_SHA256.test(signature)) return { ok: false, code: "invalid_signature_format" };
  const received = Buffer.from(signature, "hex");
  const matches = secrets.some((secret) => {
    const expected = Buffer.from(computeWebhookSignature(webhookSignatureKey(secret), timestamp, options.rawBody), "hex");
    return timingSafeEqual(expected, received);
  });
  if (!matches) return { ok: false, code: "signature_mismatch" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyBytes(options.rawBody).toString("utf8"));
  } catch {
    return { ok: false, code: "invalid_payload_json" };
  }
  if (!isEnvelope(parsed)) return { ok: false, code: "invalid_payload_json" };
  return { ok: true, event: parsed as WebhookEnvelope<D> };
}
