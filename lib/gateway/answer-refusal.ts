// Answers a request that got no reservation (reserve-payment.ts's PaymentRefusal): a 402 challenge
// with a new invoice, or a 401/400/409. A challenge is bounded per IP and tenant before the
// provider's wallet is asked for an invoice; a forgery counts toward the IP's demotion (spec 5.1).
import { WalletError } from "@/lib/lightning/types.ts";
import { issueChallenge } from "@/lib/payments/issue-challenge.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import type { PaidCall, RequestContext } from "./request-context.ts";
import { gatewayErrorStatus, paymentHeaders, paymentNotCharged, paymentRefused, type PaymentHeaders } from "./respond.ts";
import { challengeOffer, type ChallengeOffer, type PaymentRefusal } from "./reserve-payment.ts";
import type { GatewayEndpoint, GatewayTenant } from "./tenant-cache.ts";
import { sendError, sendJson } from "./write-response.ts";

/** What a challenge needs: the limiter, the tenant's wallet, the database and the token lifetimes. */
export type ChallengeDeps = Pick<GatewayDeps, "config" | "prisma" | "clock" | "log" | "limiter" | "wallets" | "payments">;

/** Answers 402 with a new invoice and macaroon for `offer` (`extra`: the payment headers of a call refused on the way). */
export async function sendChallenge(
  deps: ChallengeDeps,
  ctx: RequestContext,
  tenant: GatewayTenant,
  endpoint: GatewayEndpoint,
  offer: ChallengeOffer,
  extra?: PaymentHeaders,
): Promise<void> {
  // Every 402 is a new invoice on the provider's wallet: bounded per IP and tenant, whatever limits the request passed.
  const allowed = await deps.limiter.checkChallenge({ ip: ctx.clientIp, tenantId: tenant.id });
  if (!allowed.ok) {
    return sendError(
      ctx,
      "rate_limited",
      `Too many payment challenges: this API issues at most ${deps.limiter.limits.challengesPerMinute} payment challenges per minute to one address; retry in ${allowed.retryAfterSeconds} s`,
      { "retry-after": String(allowed.retryAfterSeconds), ...(extra ? paymentHeaders(extra) : {}) },
    );
  }
  let issued;
  try {
    issued = await issueChallenge({
      prisma: deps.prisma,
      wallet: deps.wallets.walletFor(tenant),
      appSecret: deps.config.appSecret,
      tenantId: tenant.id,
      endpointId: endpoint.id,
      scope: offer.scope,
      quote: offer.quote,
      description: `${tenant.name}: ${offer.scope.kind === "credit" ? "prepaid credit" : `${endpoint.method} ${endpoint.path}`}`.slice(0, 200),
      invoiceExpirySeconds: deps.config.invoiceExpirySeconds,
      tokenValiditySeconds: offer.tokenValiditySeconds,
      now: new Date(deps.clock()),
    });
  } catch (err) {
    if (!(err instanceof WalletError)) throw err;
    deps.log.warn("invoice creation failed", { requestId: ctx.requestId, tenant: tenant.slug, kind: err.kind, error: err.message });
    return sendError(ctx, "service_unavailable", "The provider's wallet could not create an invoice; try again shortly", {
      "retry-after": "30",
      ...(extra ? paymentHeaders(extra) : {}),
    });
  }
  // The challenge body is spec 2.1's, not the error shape: 402 is payment_required's status in the table.
  sendJson(ctx, gatewayErrorStatus("payment_required"), issued.body, {
    "www-authenticate": issued.wwwAuthenticate,
    "cache-control": "no-store",
    ...(extra ? paymentHeaders(extra) : {}),
  });
}

/** A new 402 for a call its reservation could not pay for after all (per_kb: the response costs more than the balance). */
export async function challengeAgain(deps: ChallengeDeps, call: PaidCall): Promise<void> {
  const offer = challengeOffer(deps.payments, call.endpoint, {});
  if ("problem" in offer) throw new Error(offer.problem);
  return sendChallenge(deps, call.ctx, call.tenant, call.endpoint, offer, paymentRefused);
}

/** Answers a request that got no reservation. */
export async function answerRefusal(
  deps: ChallengeDeps,
  ctx: RequestContext,
  tenant: GatewayTenant,
  endpoint: GatewayEndpoint,
  refusal: PaymentRefusal,
): Promise<void> {
  switch (refusal.kind) {
    case "challenge":
      return sendChallenge(deps, ctx, tenant, endpoint, refusal.offer, refusal.notCharged ? paymentRefused : undefined);
    case "forged":
      return refuseForgery(deps, ctx, refusal.message);
    case "unauthorized":
      return sendError(ctx, "unauthorized", refusal.message);
    case "bad_request":
      return sendError(ctx, "bad_request", refusal.message);
    case "unknown_caveat":
      return sendError(ctx, "unknown_caveat", refusal.message);
    case "caveat_failed":
      // A genuine delegated credential used beyond what its holder allowed: nothing was charged,
      // and paying again would not help (a child cannot re-buy its parent's credential).
      return sendError(ctx, "caveat_failed", refusal.message, paymentHeaders(paymentNotCharged), { caveat: refusal.caveat });
    case "in_use":
      return sendError(ctx, "conflict", "This proof is being redeemed by another request right now; retry when it completes", {
        "retry-after": "1",
        ...paymentHeaders(paymentRefused),
      });
  }
}

/** 401 for a forged or malformed credential; repeated forgeries demote the IP (spec 5.1). */
export async function refuseForgery(deps: Pick<GatewayDeps, "limiter">, ctx: RequestContext, message: string): Promise<void> {
  await deps.limiter.recordForgery(ctx.clientIp);
  sendError(ctx, "unauthorized", message);
}
