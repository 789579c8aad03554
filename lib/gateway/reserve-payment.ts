// "The pricing model decides: challenge (402) | reserve" (../shared/DESIGN.md, the gateway's request path).
// Given the endpoint and the request's credential, reservePayment either refuses (a challenge, a
// 401, a 409, a 400) or takes what the call costs and returns a Reservation that the server later
// commits (served) or refunds (upstream failure, client gone, a stream that delivered nothing):
//   no price                      → free
//   X-Session-Token (session)     → one conditional debit of the session (lib/payments/debit-session)
//   L402 proof, endpoint scope    → per_request: claim the proof; session models: open the proof's
//                                   one session (or find it) and debit it
//   L402 proof, credit scope      → burn this endpoint's price from the tenant's credit; credit of
//                                   another tenant or on a session-model endpoint → 402 challenge
//                                   (out of scope, not forged: clients drop credit only on a 402)
//   Bearer JWT (free try on)      → today's free try of this endpoint for this user
//   nothing usable                → 402 challenge (a credit challenge when X-Hub-Credit, or the
//                                   deployed client's X-Bolthub-Credit, asks for one)
// A proof carrying delegation caveats (../shared/INTEROP.md) is checked against the request first (method,
// path_prefix, valid_until: 401 caveat_failed), gets no X-Session-Token (a token would escape its
// caveats), and once reserved takes one use and the call's sats from its n_uses / max_sats
// counters, all or nothing; a refund gives them back with the rest.
import type { IncomingHttpHeaders } from "node:http";
import { hashToken } from "@/lib/crypto/secret-box.ts";
import type pg from "pg";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { ParsedCredential } from "@l402-hub/sdk/client/l402-headers";
import { checkDelegation, type Delegation } from "@/lib/l402/delegation-caveats.ts";
import { verifyL402, type L402Claims, type L402Scope, type L402VerifyFailure, type L402VerifyResult } from "@/lib/l402/macaroon.ts";
import { returnDelegationCounters, takeDelegationCounters, type CounterCharge } from "@/lib/payments/delegation-counters.ts";
import { chargeSession, debitSession, refundSession, type DebitedSession, type SessionLookup } from "@/lib/payments/debit-session.ts";
import { claimFreeTry, releaseFreeTry, type FreeTryVerifier } from "@/lib/payments/free-try.ts";
import { isSessionTokenShape, openSession } from "@/lib/payments/open-session.ts";
import { claimProof, finishProof } from "@/lib/payments/redeem-proof.ts";
import { refundCredit, spendCredit } from "@/lib/payments/spend-credit.ts";
import {
  affordableBytes,
  isSessionModel,
  parseCreditRequest,
  perKbCost,
  quoteCredit,
  quoteEndpoint,
  type PricingQuote,
  type SessionModel,
} from "@/lib/pricing/quote.ts";
import type { GatewayEndpoint, GatewayTenant } from "./tenant-cache.ts";

/** How a served call was paid; decides X-Hub-Payment on success and on refund (spec 7.2). */
export type ReservationKind = "free" | "free_try" | "proof" | "session" | "credit";

/** per_kb: the charge is taken once the response size is known (see docs/decisions.md). */
export interface PerKbMeter {
  readonly unitCostSats: number;
  /** The largest body the balance paid for at reservation time (concurrent calls may lower it). */
  affordableBytes(): number;
  /** Takes the charge for a body of this size: one conditional debit; false when the balance cannot pay. */
  charge(bytes: number): Promise<{ ok: true; costSats: number } | { ok: false }>;
  /** Returns a charge whose body never left this process (the client went away first). */
  uncharge(costSats: number): Promise<void>;
}

/** A call's payment while the call runs. */
export interface Reservation {
  readonly kind: ReservationKind;
  /** time_pass: when the paid window ends (ms since the epoch), else null. */
  readonly windowEndsAt: number | null;
  /** per_kb sessions only. */
  readonly meter: PerKbMeter | null;
  /** Session reservations: the session's id (a time_pass session's concurrent streams are counted by it). */
  readonly sessionId?: string;
  /**
   * The sats this call takes, when known before the origin is called (a proof's invoice, a credit
   * burn, a metered debit; 0 for free calls and time passes); null when it is not a sats amount
   * known in advance (token_bucket spends a request, per_kb is charged by response size).
   */
  readonly chargedSats: number | null;
  /**
   * X-Session-Token (on creation), X-Session-Expires, X-Session-Balance; X-Free-Try. A new object
   * on every call: callers add to it.
   */
  stateHeaders(): Record<string, string>;
  /** Makes the charge final (per_request: the proof is consumed). Idempotent. */
  commit(): Promise<void>;
  /** Gives the charge back: proof released, debit returned, free try restored. Idempotent; nothing after a consumed proof. */
  refund(): Promise<void>;
}

/** What a challenge sells: the quote, the macaroon's scope and how long the paid token stays usable. */
export type ChallengeOffer = { quote: PricingQuote; scope: L402Scope; tokenValiditySeconds: number };

/** Why no reservation was made, and what to answer. */
export type PaymentRefusal =
  | { kind: "challenge"; offer: ChallengeOffer; notCharged: boolean }
  | { kind: "forged"; message: string }
  | { kind: "unauthorized"; message: string }
  | { kind: "in_use" }
  | { kind: "bad_request"; message: string }
  /** A genuine token (valid chain and preimage) with a condition we do not understand: fails closed. */
  | { kind: "unknown_caveat"; message: string }
  /** A genuine delegated token whose caveat refuses this request (or whose counter is spent). */
  | { kind: "caveat_failed"; caveat: "method" | "path_prefix" | "valid_until" | "n_uses" | "max_sats"; message: string };

/** What reservePayment needs from the gateway: the database, keys, clock and the limits it applies. */
export type ReservePaymentDeps = {
  prisma: PrismaClient;
  /** The PostgreSQL pool: the money statements run on it as prepared statements (lib/payments/hot-sql.ts). Absent on PGlite. */
  pg?: pg.Pool | null;
  appSecret: string;
  clock: () => number;
  freeTry: FreeTryVerifier;
  /** Validity of per_request and session proofs (a session proof also reopens its session). */
  proofValiditySeconds: number;
  /** Validity of credit tokens and lifetime of credit (CREDIT_TTL_DAYS). */
  creditTtlSeconds: number;
  /** Lifetime of balance sessions (token_bucket, metered, per_kb). */
  balanceTtlMs: number;
};

/** The request as reservePayment sees it: where it goes and what credential it carries. */
export type ReserveRequest = {
  tenant: GatewayTenant;
  endpoint: GatewayEndpoint;
  /** The request's method (upper case) and canonical path: what delegation caveats are judged against. */
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  credential: ParsedCredential;
  /** The credential's verification when the gateway already made it (presentedCredential), so it runs once. */
  verified?: L402VerifyResult | null;
  requestId: string;
  /** How long a per_request claim blocks other uses of the proof: a call's lease, or a stream's lifetime. */
  claimLeaseMs: number;
};

/** Either a reservation to serve the call under, or what to answer instead. */
export type ReserveResult = { ok: true; reservation: Reservation } | { ok: false; refusal: PaymentRefusal };

const verifyMessages: Record<Exclude<L402VerifyFailure, "expired" | "unknown_caveat">, string> = {
  malformed: "The L402 credential is malformed",
  bad_signature: "The macaroon signature is invalid",
  bad_identifier: "The macaroon identifier is invalid",
  wrong_preimage: "The preimage does not match the macaroon's payment hash",
};

const refuse = (refusal: PaymentRefusal): ReserveResult => ({ ok: false, refusal });
const reserved = (reservation: Reservation): ReserveResult => ({ ok: true, reservation });

/** A once-only async step (commit and refund may be reached from several paths). */
function once(step: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  return () => (running ??= step());
}

/**
 * Like once, but a failed attempt does not stick: the next call tries again. For steps that are safe
 * to repeat (consuming a proof is conditional on its claim). A stream's proof is consumed at its
 * first content without waiting; if PostgreSQL was restarting then, the stream's end consumes it,
 * or the proof would stay claimed and be redeemable again once its lease ran out (found by
 * `npm run soak`).
 */
function onceSucceeded(step: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  return () =>
    (running ??= step().catch((err: unknown) => {
      running = null;
      throw err;
    }));
}

/** The free reservation: nothing to take, nothing to give back. */
export const FREE_RESERVATION: Reservation = {
  kind: "free",
  windowEndsAt: null,
  meter: null,
  chargedSats: 0,
  stateHeaders: () => ({}),
  commit: async () => {},
  refund: async () => {},
};

/**
 * The challenge a request gets when it has nothing usable: the endpoint's own, or for a
 * per_request endpoint with X-Hub-Credit, a credit purchase (400 when the amount is out of range).
 */
export function challengeOffer(
  deps: Pick<ReservePaymentDeps, "proofValiditySeconds" | "creditTtlSeconds">,
  endpoint: GatewayEndpoint,
  headers: IncomingHttpHeaders,
): ChallengeOffer | { problem: string } {
  const quote = quoteEndpoint(endpoint);
  if (!quote) throw new Error("challengeOffer called for a free endpoint");
  const credit = creditRequestHeader(headers);
  if ("problem" in credit) return credit;
  if (endpoint.pricingModel === "per_request") {
    const request = parseCreditRequest(credit.value, quote.amountSats, credit.name);
    if (request.kind === "invalid") return { problem: request.message };
    if (request.kind === "credit") return { quote: quoteCredit(request.sats), scope: { kind: "credit" }, tokenValiditySeconds: deps.creditTtlSeconds };
  } else if (credit.value !== undefined) {
    return { problem: `${credit.name} buys prepaid credit for per_request endpoints; this endpoint is priced ${endpoint.pricingModel}` };
  }
  return { quote, scope: { kind: "endpoint", endpointId: endpoint.id }, tokenValiditySeconds: deps.proofValiditySeconds };
}

/** A credit request's header as the request sent it: its value (undefined when absent) and its name, for messages. */
type CreditRequestHeader = { name: "X-Hub-Credit" | "X-Bolthub-Credit"; value: string | string[] | undefined };

/**
 * X-Hub-Credit, or X-Bolthub-Credit, the name the deployed client SDK sends (its buyCredit). Both
 * are accepted when they agree; two different amounts are refused (400), since neither can be
 * assumed to be what the payer meant to prepay.
 */
function creditRequestHeader(headers: IncomingHttpHeaders): CreditRequestHeader | { problem: string } {
  const ours = headers["x-hub-credit"];
  const alias = headers["x-bolthub-credit"];
  if (alias === undefined) return { name: "X-Hub-Credit", value: ours };
  if (ours === undefined) return { name: "X-Bolthub-Credit", value: alias };
  if (String(ours).trim() !== String(alias).trim()) {
    return {
      problem: `X-Hub-Credit (${String(ours).trim()}) and X-Bolthub-Credit (${String(alias).trim()}) ask for different amounts of credit; send one of them`,
    };
  }
  return { name: "X-Hub-Credit", value: ours };
}

/** Decides the request's payment: a reservation to serve under, or a refusal to answer with. */
export async function reservePayment(deps: ReservePaymentDeps, request: ReserveRequest): Promise<ReserveResult> {
  const { endpoint, tenant, headers, credential } = request;
  const quote = quoteEndpoint(endpoint);
  if (!quote || !endpoint.pricingModel) return reserved(FREE_RESERVATION);
  const model = endpoint.pricingModel;
  const now = new Date(deps.clock());

  const challenge = (notCharged: boolean): ReserveResult => {
    const offer = challengeOffer(deps, endpoint, headers);
    return "problem" in offer ? refuse({ kind: "bad_request", message: offer.problem }) : refuse({ kind: "challenge", offer, notCharged });
  };

  const sessionToken = headers["x-session-token"];
  if (isSessionModel(model) && sessionToken !== undefined) {
    if (typeof sessionToken !== "string" || !isSessionTokenShape(sessionToken.trim()))
      return refuse({ kind: "forged", message: "The session token is malformed" });
    return spendSession(deps, request, model, { tokenHash: hashToken(sessionToken.trim()) }, null, challenge);
  }

  if (credential.kind === "malformed") return refuse({ kind: "forged", message: `Malformed Authorization header: ${credential.reason}` });

  if (credential.kind === "l402") {
    const verified = request.verified ?? verifyL402({ appSecret: deps.appSecret, macaroon: credential.macaroon, preimage: credential.preimage, now });
    if (!verified.ok) {
      if (verified.reason === "expired") return challenge(true);
      // Verified chain and preimage: a genuine holder's caveat we do not understand, not a forgery.
      if (verified.reason === "unknown_caveat") {
        return refuse({ kind: "unknown_caveat", message: `The macaroon carries a caveat this gateway does not understand: ${verified.detail ?? "unknown"}` });
      }
      return refuse({ kind: "forged", message: verifyMessages[verified.reason] });
    }
    const { claims } = verified;
    // Genuine credit that does not pay here (another provider's, or a session-model endpoint) is
    // not a forgery: deployed clients keep credit per host and present it on every endpoint there
    // (on the path form, every provider's), dropping it only on a 402. So: this endpoint's 402.
    if (claims.scope.kind === "credit" && (claims.tenantId !== tenant.id || model !== "per_request")) return challenge(true);
    if (claims.tenantId !== tenant.id) return refuse({ kind: "forged", message: "This token was issued by a different API" });
    const delegation = claims.delegation;
    if (delegation) {
      const refusal = delegationRefusal(delegation, request, model, now.getTime());
      if (refusal) return refuse(refusal);
    }
    const result = await reserveWithProof(deps, request, claims, { model, priceSats: quote.amountSats, challenge, issueSessionToken: !delegation });
    return result.ok && delegation ? takeDelegated(deps, claims, delegation, result.reservation) : result;
  }

  if (credential.kind === "bearer" && endpoint.freeTryEnabled) {
    const check = await deps.freeTry.verify(credential.token, now);
    if (!check.ok)
      return check.reason === "invalid" ? refuse({ kind: "unauthorized", message: "The bearer token is not a valid free-try token" }) : challenge(false);
    const use = await claimFreeTry({ prisma: deps.prisma, endpointId: endpoint.id, userKey: check.userKey, now });
    if (!use) return challenge(false);
    return reserved({
      kind: "free_try",
      windowEndsAt: null,
      meter: null,
      chargedSats: 0,
      stateHeaders: () => ({ "x-free-try": "used" }),
      commit: async () => {},
      refund: once(() => releaseFreeTry({ prisma: deps.prisma, use })),
    });
  }

  return challenge(false);
}

/** How reserveWithProof charges: the endpoint's model and price, and whether a new session may hand out its token. */
type ProofCharge = {
  model: NonNullable<GatewayEndpoint["pricingModel"]>;
  priceSats: number;
  challenge: (notCharged: boolean) => ReserveResult;
  issueSessionToken: boolean;
};

/** A verified proof of this tenant: credit burn, per_request claim, or the proof's session. */
async function reserveWithProof(deps: ReservePaymentDeps, request: ReserveRequest, claims: L402Claims, charge: ProofCharge): Promise<ReserveResult> {
  const { endpoint, tenant } = request;
  const { model, challenge } = charge;
  // Credit reaches here only for a per_request endpoint of its own tenant (reservePayment).
  if (claims.scope.kind === "credit") {
    const spent = await spendCredit({
      prisma: deps.prisma,
      pg: deps.pg,
      tenantId: tenant.id,
      paymentHash: claims.paymentHash,
      endpointId: endpoint.id,
      priceSats: charge.priceSats,
      expiresAt: claims.validUntil,
    });
    if (!spent.ok)
      return spent.reason === "no_invoice" ? refuse({ kind: "forged", message: "This credit token matches no credit of this API" }) : challenge(true);
    return reserved(creditReservation(deps, spent.creditId, spent.balanceSats, charge.priceSats));
  }
  if (claims.scope.endpointId !== endpoint.id) return refuse({ kind: "forged", message: "This token was issued for a different endpoint" });

  if (model === "per_request") {
    const claim = await claimProof({
      prisma: deps.prisma,
      pg: deps.pg,
      paymentHash: claims.paymentHash,
      tenantId: tenant.id,
      endpointId: endpoint.id,
      requestId: request.requestId,
      leaseMs: request.claimLeaseMs,
    });
    if (claim === "spent") return challenge(true);
    if (claim === "in_use") return refuse({ kind: "in_use" });
    return reserved(proofReservation(deps, claims.paymentHash, request.requestId, claims.invoiceSats));
  }

  const opened = await openSession({
    prisma: deps.prisma,
    tenantId: tenant.id,
    endpointId: endpoint.id,
    paymentHash: claims.paymentHash,
    balanceTtlMs: deps.balanceTtlMs,
  });
  if (opened.kind === "no_invoice") return refuse({ kind: "forged", message: "This token matches no session sale of this endpoint" });
  const newToken = opened.kind === "created" && charge.issueSessionToken ? opened.token : null;
  return spendSession(deps, request, model, { sessionId: opened.session.id }, newToken, challenge);
}

/**
 * The delegation checks that need no database: method, path_prefix, valid_until, and max_sats on
 * an endpoint whose calls have no sats price before they are served (token_bucket spends a
 * request, per_kb is charged by response size): refused there, never ignored.
 */
function delegationRefusal(
  delegation: Delegation,
  request: ReserveRequest,
  model: NonNullable<GatewayEndpoint["pricingModel"]>,
  now: number,
): PaymentRefusal | null {
  const check = checkDelegation(delegation, { method: request.method, path: request.path, now });
  if (!check.ok) return { kind: "caveat_failed", caveat: check.caveat, message: check.message };
  if (delegation.spendLimits.length > 0 && (model === "token_bucket" || model === "per_kb")) {
    return {
      kind: "caveat_failed",
      caveat: "max_sats",
      message: `This credential carries a max_sats caveat, which cannot be enforced on a ${model} endpoint (a call has no sats price before it is served)`,
    };
  }
  return null;
}

/**
 * Takes one use from every n_uses counter and the call's sats from every max_sats counter of a
 * delegated credential, all or nothing; refused (and the reservation given back) when one is spent.
 */
async function takeDelegated(deps: ReservePaymentDeps, claims: L402Claims, delegation: Delegation, inner: Reservation): Promise<ReserveResult> {
  if (delegation.useLimits.length === 0 && delegation.spendLimits.length === 0) return reserved(inner);
  if (delegation.spendLimits.length > 0 && inner.chargedSats === null) {
    await inner.refund();
    return refuse({
      kind: "caveat_failed",
      caveat: "max_sats",
      message: "This credential carries a max_sats caveat, which cannot be enforced on this endpoint",
    });
  }
  const charges: CounterCharge[] = [
    ...delegation.useLimits.map((l) => ({ ...l, kind: "n_uses" as const, amount: 1 })),
    ...delegation.spendLimits.map((l) => ({ ...l, kind: "max_sats" as const, amount: inner.chargedSats ?? 0 })),
  ];
  let taken;
  try {
    taken = await takeDelegationCounters({ prisma: deps.prisma, paymentHash: claims.paymentHash, charges });
  } catch (err) {
    await inner.refund();
    throw err;
  }
  if (!taken.ok) {
    await inner.refund();
    const { kind, limit } = taken.exhausted;
    const message =
      kind === "n_uses"
        ? `This credential carries the caveat n_uses=${limit} and has made all its requests`
        : `This credential carries the caveat max_sats=${limit}; this call (${inner.chargedSats} sats) would spend more than it has left`;
    return refuse({ kind: "caveat_failed", caveat: kind, message });
  }
  return reserved(withCounters(deps, inner, charges));
}

/** A reservation whose refund also gives the delegation counters back (spec 7.3); after a commit, nothing. */
function withCounters(deps: ReservePaymentDeps, inner: Reservation, charges: CounterCharge[]): Reservation {
  let committed = false;
  return {
    kind: inner.kind,
    windowEndsAt: inner.windowEndsAt,
    meter: inner.meter,
    chargedSats: inner.chargedSats,
    stateHeaders: () => inner.stateHeaders(),
    commit: onceSucceeded(async () => {
      committed = true;
      await inner.commit();
    }),
    refund: once(async () => {
      await inner.refund();
      if (!committed) await returnDelegationCounters({ prisma: deps.prisma, charges });
    }),
  };
}

/** Debits a session (by token, or by id after opening it from a proof) and wraps it as a reservation. */
async function spendSession(
  deps: ReservePaymentDeps,
  request: ReserveRequest,
  model: SessionModel,
  lookup: SessionLookup,
  newToken: string | null,
  challenge: (notCharged: boolean) => ReserveResult,
): Promise<ReserveResult> {
  const debit = await debitSession({
    prisma: deps.prisma,
    pg: deps.pg,
    lookup,
    tenantId: request.tenant.id,
    endpointId: request.endpoint.id,
    modelHint: model,
  });
  if (!debit.ok) {
    // Tampered or unknown tokens are forgeries; expired or depleted sessions are not (spec 5.1).
    if (debit.reason === "unknown") return refuse({ kind: "forged", message: "Unknown session token" });
    if (debit.reason === "wrong_endpoint") return refuse({ kind: "forged", message: "This session was bought for a different endpoint" });
    return challenge(true);
  }
  return reserved(sessionReservation(deps, debit.session, newToken));
}

function sessionReservation(deps: ReservePaymentDeps, session: DebitedSession, newToken: string | null): Reservation {
  let balance = session.balance;
  const db = { prisma: deps.prisma, pg: deps.pg };
  const meter: PerKbMeter | null =
    session.model === "per_kb" && session.unitCostSats !== null
      ? {
          unitCostSats: session.unitCostSats,
          affordableBytes: () => affordableBytes(balance ?? 0, session.unitCostSats ?? 0),
          async charge(bytes) {
            const costSats = perKbCost(bytes, session.unitCostSats ?? 0);
            if (costSats === 0) return { ok: true, costSats };
            const charged = await chargeSession({ ...db, sessionId: session.id, amount: costSats });
            if (!charged) return { ok: false };
            balance = charged.balance;
            return { ok: true, costSats };
          },
          async uncharge(costSats) {
            if (costSats <= 0) return;
            balance = (await refundSession({ ...db, sessionId: session.id, amount: costSats })).balance;
          },
        }
      : null;
  return {
    kind: "session",
    sessionId: session.id,
    windowEndsAt: session.model === "time_pass" ? session.expiresAt.getTime() : null,
    meter,
    // metered debits sats, a pass spends nothing; a token_bucket debit is a request, per_kb is charged later.
    chargedSats: session.model === "metered" ? session.debited : session.model === "time_pass" ? 0 : null,
    stateHeaders() {
      const headers: Record<string, string> = { "x-session-expires": session.expiresAt.toISOString() };
      if (newToken) headers["x-session-token"] = newToken;
      if (balance !== null) headers["x-session-balance"] = String(balance);
      return headers;
    },
    commit: async () => {},
    refund: once(async () => {
      if (session.debited <= 0) return;
      const refunded = await refundSession({ ...db, sessionId: session.id, amount: session.debited });
      balance = refunded.balance;
    }),
  };
}

function creditReservation(deps: ReservePaymentDeps, creditId: string, balanceSats: number, priceSats: number): Reservation {
  let balance: number | null = balanceSats;
  return {
    kind: "credit",
    windowEndsAt: null,
    meter: null,
    chargedSats: priceSats,
    stateHeaders: (): Record<string, string> => (balance === null ? {} : { "x-session-balance": String(balance) }),
    commit: async () => {},
    refund: once(async () => {
      balance = (await refundCredit({ prisma: deps.prisma, pg: deps.pg, creditId, amount: priceSats })).balanceSats;
    }),
  };
}

function proofReservation(deps: ReservePaymentDeps, paymentHash: string, requestId: string, invoiceSats: number): Reservation {
  let consumed = false;
  const commit = onceSucceeded(async () => {
    consumed = true;
    await finishProof({ prisma: deps.prisma, pg: deps.pg, paymentHash, requestId, outcome: "consume" });
  });
  return {
    kind: "proof",
    windowEndsAt: null,
    meter: null,
    chargedSats: invoiceSats,
    stateHeaders: () => ({}),
    commit,
    refund: once(async () => {
      if (!consumed) await finishProof({ prisma: deps.prisma, pg: deps.pg, paymentHash, requestId, outcome: "release" });
    }),
  };
}
