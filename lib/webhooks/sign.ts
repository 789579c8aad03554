// The sending side of webhook signatures: secrets, the envelope body and the headers of one attempt.
// The recipe itself is defined once, in the SDK package (packages/sdk/src/webhooks/webhook-verify.ts), which receivers also run.
import { randomBytes } from "node:crypto";
import {
  computeStandardSignature,
  computeWebhookSignature,
  standardWebhookHeaders,
  WEBHOOK_SECRET_PREFIX,
  standardWebhookKey,
  webhookHeaders,
  webhookSignatureKey,
  type WebhookEnvelope,
} from "@l402-hub/sdk/webhooks";

/** Random key bytes per secret (Standard Webhooks allows 24 to 64). */
const SECRET_BYTES = 32;

/**
 * A new subscription secret `whsec_<base64 of 32 random bytes>`: the string itself keys
 * X-Webhook-Signature (spec 6.2), and its decoded bytes key the Standard Webhooks signature, so
 * that standard's libraries accept the secret unchanged too.
 */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** The exact bytes we POST: built from stored fields only, so every retry sends the same body. */
export function serializeEnvelope(envelope: WebhookEnvelope<unknown>): string {
  return JSON.stringify({ id: envelope.id, event: envelope.event, timestamp: envelope.timestamp, data: envelope.data });
}

/** What one attempt's headers are computed from. */
export type SignDeliveryInput = {
  secret: string;
  /** Delivery id: X-Webhook-Id and webhook-id, identical on every attempt. */
  id: string;
  event: string;
  body: string;
  /** When this attempt is signed (ms). */
  timestampMs: number;
};

/** All headers of one attempt: ours (ms timestamp, hex) and Standard Webhooks' (s timestamp, base64). */
export function signDelivery(input: SignDeliveryInput): Record<string, string> {
  const ms = String(Math.floor(input.timestampMs));
  const seconds = String(Math.floor(input.timestampMs / 1000));
  return {
    "content-type": "application/json",
    [webhookHeaders.id]: input.id,
    [webhookHeaders.event]: input.event,
    [webhookHeaders.timestamp]: ms,
    [webhookHeaders.signature]: computeWebhookSignature(webhookSignatureKey(input.secret), ms, input.body),
    [standardWebhookHeaders.id]: input.id,
    [standardWebhookHeaders.timestamp]: seconds,
    [standardWebhookHeaders.signature]: `v1,${computeStandardSignature(standardWebhookKey(input.secret), input.id, seconds, input.body)}`,
  };
}
