// Entry point of lib/l402: L402 token mint/verify, the WWW-Authenticate / Authorization grammar
// (which lives in the client SDK, @l402-hub/sdk/client/l402-headers, so the SDK needs nothing of ours),
// delegation caveats and the canonical request path they are judged on.
// Stateless by design: verifying needs only APP_SECRET, so any gateway instance can do it.
export {
  L402_IDENTIFIER_LENGTH,
  L402_IDENTIFIER_VERSION,
  L402_MACAROON_LOCATION,
  MAX_MACAROON_LENGTH,
  mintL402Macaroon,
  paymentHashFromMacaroon,
  verifyL402,
  verifyL402Macaroon,
  type L402Claims,
  type L402Scope,
  type L402VerifyFailure,
  type L402VerifyResult,
} from "./macaroon.ts";
export {
  MAX_AUTHORIZATION_LENGTH,
  challengeHeaderValues,
  credentialHeaderValue,
  parseAuthorization,
  parseChallenge,
  toStandardBase64,
  type ParsedCredential,
} from "@l402-hub/sdk/client/l402-headers";
export { canonicalQuery, canonicalRequestPath, isWithinPrefix, normalizePathPrefix, type PathRefusal } from "./canonical-path.ts";
export { checkDelegation, foldDelegation, parseCaveatInteger, type Delegation, type DelegationLimit } from "./delegation-caveats.ts";
