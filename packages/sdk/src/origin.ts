// `@l402-hub/sdk/origin`: what a provider's origin needs to trust a call from the gateway (spec 5.4):
// the X-Gateway-* signature (sign, canonical payload, verify) and the drop-in guards for Node/Express
// and fetch-style (Next.js) handlers. Node 20+ (node:crypto).
export {
  canonicalOriginPayload,
  canonicalOriginPayloadV2,
  gatewayHeaders,
  ORIGIN_SIGNATURE_FUTURE_SKEW_MS,
  ORIGIN_SIGNATURE_WINDOW_MS,
  signOriginPayload,
  verifyGatewayRequest,
  type OriginPayloadParts,
  type OriginVerifyFailure,
  type OriginVerifyOptions,
} from "./origin/origin-signature.ts";
export { gatewayGuard, memoryNonceCache, withGatewayGuard, type OriginGuardOptions, type SecretPair } from "./origin/origin-guard.ts";
