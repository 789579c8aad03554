// How the gateway's answers look, decided without I/O: the status of each error code (lib/errors'
// one table, with the spec's exceptions named), which payment headers a call's outcome carries
// (spec 7.2), the cache headers (spec 4.1 rule 4), the CORS names browsers may read, and which of
// an origin's response headers reach the client. The serve-*.ts files write what this
// decides; a table of cases tests it (respond.test.ts).
import { errorStatus, type ErrorCode } from "@/lib/errors/index.ts";
import { setCookiesForClient, type CookieScope } from "@/lib/origin/cookie-policy.ts";
import { isWithheldFromClient } from "@/lib/origin/origin-call.ts";
import type { Reservation, ReservationKind } from "./reserve-payment.ts";

/** Response headers a browser's script may read on a cross-site call (the try-it and browser clients read these). */
export const exposedHeaders = [
  "WWW-Authenticate",
  "X-Request-Id",
  "X-Session-Token",
  "X-Session-Expires",
  "X-Session-Balance",
  "X-Hub-Payment",
  "X-Hub-Payment-Code",
  "X-Bolthub-Payment",
  "X-Bolthub-Payment-Code",
  "X-Cache",
  "X-Cache-Age",
  "X-Data-Size-KB",
  "X-Data-Cost-Sats",
  "X-Free-Try",
  "Retry-After",
].join(", ");

/**
 * Where the spec fixes a gateway status that the platform's table gives otherwise. Spec 7.1 lists
 * "400 bad request: invalid path, method or body", so a method the path does not serve is 400
 * (with `Allow`, docs/decisions.md "Method mismatch → 400 with Allow"), not the table's 405.
 */
const gatewayStatusOverrides: Partial<Record<ErrorCode, number>> = { method_not_allowed: 400 };

/** The HTTP status the gateway answers an error code with: lib/errors' table, except the overrides above. */
export function gatewayErrorStatus(code: ErrorCode): number {
  return gatewayStatusOverrides[code] ?? errorStatus[code];
}

/** Why an origin gave no answer the client can have (the client leaving is answered by nobody). */
export type UpstreamFailureKind = "unreachable" | "timeout";

/** The error code of an origin failure: 504 gateway_timeout when it ran out of time, else 502 bad_gateway. */
export function upstreamFailureCode(kind: UpstreamFailureKind): ErrorCode {
  return kind === "timeout" ? "gateway_timeout" : "bad_gateway";
}

/** What happened to a request's money (spec 7.2): `X-Hub-Payment` and, on failures, `X-Hub-Payment-Code`. */
export type PaymentHeaders = {
  payment: "charged" | "reverted" | "refunded_to_balance" | "not_charged";
  code?: "upstream_failed_retryable" | "upstream_rejected" | "payment_failed";
};

/** How a call ended for its payment: served (2xx/3xx), rejected by the origin (other 4xx), or refunded. */
export type CallOutcome = "served" | "rejected" | "refunded";

// The answers spec 7.2 and 7.3 give, shared, so a paid call allocates no PaymentHeaders of its own.
/** Served (2xx/3xx): the charge stays. */
export const paymentCharged: PaymentHeaders = Object.freeze({ payment: "charged" });
/** The origin refused the request (another 4xx): the charge stays. */
export const paymentRejected: PaymentHeaders = Object.freeze({ payment: "charged", code: "upstream_rejected" });
/** The origin failed: the proof redeems again, retry free. */
export const paymentReverted: PaymentHeaders = Object.freeze({ payment: "reverted", code: "upstream_failed_retryable" });
/** The origin failed: the deduction is back in the session's or credit's balance, retry free. */
export const paymentRefundedToBalance: PaymentHeaders = Object.freeze({ payment: "refunded_to_balance", code: "upstream_failed_retryable" });
/** The payment layer refused (spent proof, depleted session, a 402 again): nothing was taken. */
export const paymentRefused: PaymentHeaders = Object.freeze({ payment: "not_charged", code: "payment_failed" });
/** Nothing was taken, and paying again is not the way out (a caveat refused, a stream cap, an unmeterable body). */
export const paymentNotCharged: PaymentHeaders = Object.freeze({ payment: "not_charged" });

/**
 * X-Hub-Payment and X-Hub-Payment-Code (spec 7.2), written into `into` (a new object by default),
 * and the same values as X-Bolthub-Payment / X-Bolthub-Payment-Code: the deployed client SDK reads
 * only those (its free retry after upstream_failed_retryable and its receipts depend on them).
 */
export function paymentHeaders(p: PaymentHeaders, into: Record<string, string> = {}): Record<string, string> {
  into["x-hub-payment"] = p.payment;
  into["x-bolthub-payment"] = p.payment;
  if (p.code) {
    into["x-hub-payment-code"] = p.code;
    into["x-bolthub-payment-code"] = p.code;
  }
  return into;
}

/**
 * The payment headers of a call's outcome; null for free calls and free tries, which carry none
 * (a free try says `X-Free-Try` instead). A refund reverts a proof (the same proof redeems again)
 * and returns a session's or credit's deduction to its balance.
 */
export function paymentOutcome(kind: ReservationKind, outcome: CallOutcome): PaymentHeaders | null {
  if (kind === "free" || kind === "free_try") return null;
  if (outcome === "served") return paymentCharged;
  if (outcome === "rejected") return paymentRejected;
  return kind === "proof" ? paymentReverted : paymentRefundedToBalance;
}

/**
 * X-Hub-Payment (spec 7.2) and the session, credit or free-try headers of a call's outcome, as a
 * new object the caller may add to. "refunded" here always means the origin failed.
 */
export function outcomeHeaders(reservation: Pick<Reservation, "kind" | "stateHeaders">, outcome: CallOutcome): Record<string, string> {
  if (reservation.kind === "free") return {};
  if (reservation.kind === "free_try") return outcome === "refunded" ? {} : reservation.stateHeaders();
  // A new object on every call (Reservation.stateHeaders): the payment headers go straight into it.
  return paymentHeaders(paymentOutcome(reservation.kind, outcome)!, reservation.stateHeaders());
}

/** `X-Cache-Age`: whole seconds since the entry was stored, never negative (another instance's clock may be ahead). */
export function cacheAgeSeconds(storedAt: number, now: number): string {
  return String(Math.max(0, Math.floor((now - storedAt) / 1000)));
}

/**
 * The origin's response headers with ours on top, without those that would act on the platform
 * (isWithheldFromClient: its CORS, cookies, host-wide policies, our payment headers). The origin's
 * exposed header names join the gateway's rather than replace them; its cookies come through only
 * for an endpoint that opted in, filtered (cookie-policy.ts).
 */
export function originResponseHeaders(
  origin: Record<string, string | string[]>,
  extra: Record<string, string>,
  cookies: CookieScope | null,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name in origin) if (!isWithheldFromClient(name)) headers[name] = origin[name];
  const exposed = origin["access-control-expose-headers"];
  if (exposed !== undefined) headers["access-control-expose-headers"] = `${exposedHeaders}, ${[exposed].flat().join(", ")}`;
  if (cookies && origin["set-cookie"] !== undefined) {
    const relayed = setCookiesForClient(origin["set-cookie"], cookies);
    if (relayed.length) headers["set-cookie"] = relayed;
  }
  for (const name in extra) headers[name] = extra[name];
  return headers;
}
