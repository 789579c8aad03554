// What the rate limiter may know of a request's credential before any database work (spec 8: "L402
// proof or session token" skip the anonymous limits). Only a credential this endpoint would accept
// counts, and only once checked as far as it can be without I/O:
//   free endpoint                       → nothing counts (credentials are ignored there)
//   X-Session-Token, session model      → counts when well-formed; whether it exists is the debit's
//                                         question, and an unknown one is a forgery (demotion)
//   X-Session-Token, per_request        → not a credential there (ignored, like on free endpoints)
//   L402 proof                          → counts when its HMAC chain and preimage verify, it was
//                                         issued for this tenant and this endpoint (or is credit
//                                         on a per_request endpoint; credit elsewhere is answered
//                                         402, and is anonymous here), and its delegation caveats
//                                         that need no database (method, path_prefix, valid_until)
//                                         allow this request
//   anything else (bearer, malformed)   → anonymous
// The L402 verification is handed on to reservePayment, so a paid call verifies once.
import type { IncomingHttpHeaders } from "node:http";
import { checkDelegation } from "@/lib/l402/delegation-caveats.ts";
import type { ParsedCredential } from "@l402-hub/sdk/client/l402-headers";
import { verifyL402, type L402VerifyResult } from "@/lib/l402/macaroon.ts";
import { isSessionTokenShape } from "@/lib/payments/open-session.ts";
import { isSessionModel } from "@/lib/pricing/quote.ts";
import type { GatewayEndpoint } from "./tenant-cache.ts";

export type PresentedCredential = {
  /** True when the request may use the credentialed rate limits. */
  credentialed: boolean;
  /** The L402 verification when one was made (reservePayment reuses it), else null. */
  l402: L402VerifyResult | null;
};

const anonymous: PresentedCredential = { credentialed: false, l402: null };

/** Classifies the request's credential for the rate limiter, with no I/O (see the table above). */
export function presentedCredential(options: {
  appSecret: string;
  tenantId: string;
  endpoint: GatewayEndpoint;
  /** The request's method (upper case) and canonical path, which delegation caveats are judged against. */
  method: string;
  path: string;
  credential: ParsedCredential;
  headers: IncomingHttpHeaders;
  now: Date;
}): PresentedCredential {
  const { endpoint, credential } = options;
  const model = endpoint.pricingModel;
  if (model === null || endpoint.priceSats === null) return anonymous;
  const sessionToken = options.headers["x-session-token"];
  // On session endpoints the token wins over Authorization (docs/decisions.md), as in reservePayment.
  if (isSessionModel(model) && sessionToken !== undefined) {
    return { credentialed: typeof sessionToken === "string" && isSessionTokenShape(sessionToken.trim()), l402: null };
  }
  if (credential.kind !== "l402") return anonymous;
  const l402 = verifyL402({ appSecret: options.appSecret, macaroon: credential.macaroon, preimage: credential.preimage, now: options.now });
  if (!l402.ok || l402.claims.tenantId !== options.tenantId) return { credentialed: false, l402 };
  const { scope, delegation } = l402.claims;
  const applies = scope.kind === "credit" ? model === "per_request" : scope.endpointId === endpoint.id;
  const allowed = !delegation || checkDelegation(delegation, { method: options.method, path: options.path, now: options.now.getTime() }).ok;
  return { credentialed: applies && allowed, l402 };
}
