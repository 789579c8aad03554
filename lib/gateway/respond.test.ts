import { describe, expect, it } from "vitest";
import { errorStatus, type ErrorCode } from "@/lib/errors/index.ts";
import type { ReservationKind } from "./reserve-payment.ts";
import {
  cacheAgeSeconds,
  exposedHeaders,
  gatewayErrorStatus,
  originResponseHeaders,
  outcomeHeaders,
  paymentHeaders,
  paymentOutcome,
  upstreamFailureCode,
  type CallOutcome,
  type UpstreamFailureKind,
} from "./respond.ts";

/** A reservation as respond.ts sees it: its kind and the state headers it would add. */
function reservation(kind: ReservationKind, state: Record<string, string> = {}) {
  return { kind, stateHeaders: () => ({ ...state }) };
}

describe("paymentOutcome and outcomeHeaders (spec 7.2, 7.3)", () => {
  it.each<[ReservationKind, CallOutcome, string | undefined, string | undefined]>([
    ["proof", "served", "charged", undefined],
    ["proof", "rejected", "charged", "upstream_rejected"],
    ["proof", "refunded", "reverted", "upstream_failed_retryable"],
    ["session", "served", "charged", undefined],
    ["session", "rejected", "charged", "upstream_rejected"],
    ["session", "refunded", "refunded_to_balance", "upstream_failed_retryable"],
    ["credit", "served", "charged", undefined],
    ["credit", "rejected", "charged", "upstream_rejected"],
    ["credit", "refunded", "refunded_to_balance", "upstream_failed_retryable"],
    ["free", "served", undefined, undefined],
    ["free", "refunded", undefined, undefined],
    ["free_try", "served", undefined, undefined],
    ["free_try", "refunded", undefined, undefined],
  ])("%s, %s → X-Hub-Payment %s, code %s", (kind, outcome, payment, code) => {
    const headers = outcomeHeaders(reservation(kind), outcome);
    expect(headers["x-hub-payment"]).toBe(payment);
    expect(headers["x-hub-payment-code"]).toBe(code);
    // The deployed client's names carry the same values (issue 26).
    expect(headers["x-bolthub-payment"]).toBe(payment);
    expect(headers["x-bolthub-payment-code"]).toBe(code);
    expect(paymentOutcome(kind, outcome)?.payment).toBe(payment);
  });

  it("keeps the reservation's state headers, except a free try's after a refund (it was given back)", () => {
    expect(outcomeHeaders(reservation("session", { "x-session-balance": "4" }), "refunded")).toEqual({
      "x-session-balance": "4",
      "x-hub-payment": "refunded_to_balance",
      "x-hub-payment-code": "upstream_failed_retryable",
      "x-bolthub-payment": "refunded_to_balance",
      "x-bolthub-payment-code": "upstream_failed_retryable",
    });
    expect(outcomeHeaders(reservation("free_try", { "x-free-try": "used" }), "served")).toEqual({ "x-free-try": "used" });
    expect(outcomeHeaders(reservation("free_try", { "x-free-try": "used" }), "refunded")).toEqual({});
  });

  it("writes into the object it is given", () => {
    const into = { "retry-after": "1" };
    expect(paymentHeaders({ payment: "not_charged", code: "payment_failed" }, into)).toBe(into);
    expect(into).toEqual({
      "retry-after": "1",
      "x-hub-payment": "not_charged",
      "x-hub-payment-code": "payment_failed",
      "x-bolthub-payment": "not_charged",
      "x-bolthub-payment-code": "payment_failed",
    });
  });
});

describe("exposedHeaders", () => {
  it("lets browsers read both payment header pairs", () => {
    expect(exposedHeaders.split(", ")).toEqual(expect.arrayContaining(["X-Hub-Payment", "X-Hub-Payment-Code", "X-Bolthub-Payment", "X-Bolthub-Payment-Code"]));
  });
});

describe("cacheAgeSeconds", () => {
  it.each([
    [0, 0, "0"],
    [1_000, 1_999, "0"],
    [1_000, 2_000, "1"],
    [1_000, 61_500, "60"],
    // Another instance stored it with a clock a little ahead: never a negative age.
    [5_000, 1_000, "0"],
  ])("stored at %d, now %d → %s", (storedAt, now, age) => expect(cacheAgeSeconds(storedAt, now)).toBe(age));
});

describe("originResponseHeaders", () => {
  it("keeps the origin's own headers, drops what acts on the platform, and puts ours on top", () => {
    const headers = originResponseHeaders(
      {
        "content-type": "application/json",
        "x-origin": "1",
        "x-hub-payment": "reverted",
        "x-bolthub-payment": "reverted",
        "x-bolthub-payment-code": "upstream_failed_retryable",
        "x-session-balance": "999",
        "access-control-allow-origin": "https://evil.example",
        "strict-transport-security": "max-age=1",
        "set-cookie": "sid=1; Path=/",
        "access-control-expose-headers": "X-Origin",
      },
      { "x-hub-payment": "charged", "x-bolthub-payment": "charged" },
      null,
    );
    expect(headers).toEqual({
      "content-type": "application/json",
      "x-origin": "1",
      "access-control-expose-headers": `${exposedHeaders}, X-Origin`,
      "x-hub-payment": "charged",
      "x-bolthub-payment": "charged",
    });
  });

  it("relays host-only cookies of an opted-in endpoint, under the tenant's prefix on the path form", () => {
    const headers = originResponseHeaders(
      { "set-cookie": ["a=1; Path=/", "b=2; Domain=example.com"] },
      {},
      { clientHost: "gw.example.com", siteHost: "example.com", pathPrefix: "/gw/acme" },
    );
    expect(headers["set-cookie"]).toEqual(["a=1; Path=/gw/acme"]);
  });
});

describe("gatewayErrorStatus: the one error table, with the spec's exceptions named", () => {
  it.each<[ErrorCode, number]>([
    ["bad_request", 400],
    // Spec 7.1: "400 bad request: invalid path, method or body"; the table says 405 elsewhere.
    ["method_not_allowed", 400],
    ["unauthorized", 401],
    ["unknown_caveat", 401],
    ["caveat_failed", 401],
    ["payment_required", 402],
    ["forbidden", 403],
    ["not_found", 404],
    ["request_timeout", 408],
    ["conflict", 409],
    ["payload_too_large", 413],
    ["rate_limited", 429],
    ["internal", 500],
    ["bad_gateway", 502],
    ["service_unavailable", 503],
    ["gateway_timeout", 504],
  ])("%s → %d", (code, status) => expect(gatewayErrorStatus(code)).toBe(status));

  it("differs from lib/errors only where an override says so", () => {
    const differing = (Object.keys(errorStatus) as ErrorCode[]).filter((code) => gatewayErrorStatus(code) !== errorStatus[code]);
    expect(differing).toEqual(["method_not_allowed"]);
  });

  it.each<[UpstreamFailureKind, ErrorCode, number]>([
    ["unreachable", "bad_gateway", 502],
    ["timeout", "gateway_timeout", 504],
  ])("an origin that is %s → %s (%d)", (kind, code, status) => {
    expect(upstreamFailureCode(kind)).toBe(code);
    expect(gatewayErrorStatus(upstreamFailureCode(kind))).toBe(status);
  });
});
