// `@l402-hub/sdk/webhooks`: verifying the gateway's signed webhook deliveries (spec 6.2): the
// verifier, Express/Node middleware and a Next.js (fetch-style) helper. Node 20+ (node:crypto).
export {
  computeStandardSignature,
  computeWebhookSignature,
  DEFAULT_TOLERANCE_MS,
  readHeader,
  standardWebhookHeaders,
  standardWebhookKey,
  verifyWebhook,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_VERIFY_CODES,
  webhookHeaders,
  webhookSignatureKey,
  type HeaderSource,
  type VerifyWebhookOptions,
  type VerifyWebhookResult,
  type WebhookEnvelope,
  type WebhookVerifyCode,
} from "./webhooks/webhook-verify.ts";
export { MAX_WEBHOOK_BODY_BYTES, webhookMiddleware, type VerifiedWebhookRequest, type WebhookMiddlewareOptions } from "./webhooks/webhook-middleware.ts";
export { verifyNextWebhook, type NextWebhookResult } from "./webhooks/webhook-next.ts";
