// The pure pricing rules: challenges, session grants, debits, per_kb costs, stream rules, credit bounds.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  affordableBytes,
  callDebit,
  formatKb,
  MAX_CREDIT_SATS,
  minimumBalance,
  parseCreditRequest,
  perKbCost,
  quoteCredit,
  quoteEndpoint,
  sessionGrant,
  streamPricing,
} from "./quote.ts";

const rule = { pricingModel: null, priceSats: null, tokenBudget: null, durationMinutes: null, unitCostSats: null } as const;

describe("quoteEndpoint", () => {
  it.each([
    [{ ...rule }, null],
    [
      { ...rule, pricingModel: "per_request", priceSats: 7 },
      { amountSats: 7, purpose: "per_request", bodyFields: {} },
    ],
    [
      { ...rule, pricingModel: "token_bucket", priceSats: 50, tokenBudget: 10 },
      { amountSats: 50, purpose: "session", bodyFields: { model: "token_bucket", tokenBudget: 10 } },
    ],
    [
      { ...rule, pricingModel: "time_pass", priceSats: 30, durationMinutes: 60 },
      { amountSats: 30, purpose: "session", bodyFields: { model: "time_pass", durationMinutes: 60 } },
    ],
    [
      { ...rule, pricingModel: "metered", priceSats: 100, unitCostSats: 3 },
      { amountSats: 100, purpose: "session", bodyFields: { model: "metered", unitCostSats: 3 } },
    ],
    [
      { ...rule, pricingModel: "per_kb", priceSats: 100, unitCostSats: 2 },
      { amountSats: 100, purpose: "session", bodyFields: { model: "per_kb", unitCostSats: 2 } },
    ],
  ] as const)("%j → %j", (endpoint, quote) => {
    expect(quoteEndpoint(endpoint)).toEqual(quote);
  });
});

describe("sessionGrant", () => {
  const day = 86_400_000;

  it("grants requests, a window or a sats balance, per model", () => {
    expect(sessionGrant({ model: "token_bucket", amountSats: 50, tokenBudget: 10 }, 30 * day)).toEqual({
      model: "token_bucket",
      balance: 10,
      unitCostSats: null,
      lifetimeMs: 30 * day,
    });
    expect(sessionGrant({ model: "time_pass", amountSats: 30, durationMinutes: 90 }, 30 * day)).toEqual({
      model: "time_pass",
      balance: null,
      unitCostSats: null,
      lifetimeMs: 90 * 60_000,
    });
    expect(sessionGrant({ model: "metered", amountSats: 100, unitCostSats: 3 }, day)).toMatchObject({ balance: 100, unitCostSats: 3 });
    expect(sessionGrant({ model: "per_kb", amountSats: 100, unitCostSats: 2 }, day)).toMatchObject({ balance: 100, unitCostSats: 2 });
  });

  it("refuses a deal missing its model's field", () => {
    expect(() => sessionGrant({ model: "token_bucket", amountSats: 50 }, day)).toThrow(/tokenBudget/);
    expect(() => sessionGrant({ model: "time_pass", amountSats: 50, durationMinutes: null }, day)).toThrow(/durationMinutes/);
    expect(() => sessionGrant({ model: "metered", amountSats: 50 }, day)).toThrow(/unitCostSats/);
  });
});

describe("debits", () => {
  it.each([
    ["token_bucket", 5, 1, 1],
    ["metered", 5, 5, 5],
    ["time_pass", null, 0, 0],
    ["per_kb", 5, 0, 1],
  ] as const)("%s (unit %s) debits %i per call and needs %i to start", (model, unit, debit, minimum) => {
    expect(callDebit(model, unit)).toBe(debit);
    expect(minimumBalance(model, unit)).toBe(minimum);
  });
});

describe("per_kb", () => {
  it.each([
    [0, 5, 0],
    [1, 5, 1],
    [1024, 5, 5],
    [1025, 5, 6],
    [2048, 1, 2],
    [100, 1, 1],
    [10 * 1024 * 1024, 3, 30_720],
  ])("%i bytes at %i sats/KB cost %i sats", (bytes, unit, cost) => {
    expect(perKbCost(bytes, unit)).toBe(cost);
  });

  it("affordableBytes is the largest body the balance pays for", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 1, max: 100_000 }), (balance, unit) => {
        const bytes = affordableBytes(balance, unit);
        expect(perKbCost(bytes, unit)).toBeLessThanOrEqual(balance);
        expect(perKbCost(bytes + 1, unit)).toBeGreaterThan(balance);
      }),
    );
  });

  it("the cost grows with the size and never exceeds one sat over the exact proportion", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000_000 }), fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 10_000 }), (a, extra, unit) => {
        expect(perKbCost(a + extra, unit)).toBeGreaterThanOrEqual(perKbCost(a, unit));
        expect(perKbCost(a, unit) - (a * unit) / 1024).toBeLessThan(1);
      }),
    );
  });

  it("formats sizes in KB with at most three decimals", () => {
    expect(formatKb(0)).toBe("0");
    expect(formatKb(1024)).toBe("1");
    expect(formatKb(2402)).toBe("2.346");
    expect(formatKb(512)).toBe("0.5");
  });
});

describe("streams", () => {
  it("prices a connection per model and refuses per_kb", () => {
    expect(streamPricing("per_request")).toBe("proof_per_connection");
    expect(streamPricing("token_bucket")).toBe("debit_per_connection");
    expect(streamPricing("metered")).toBe("debit_per_connection");
    expect(streamPricing("time_pass")).toBe("window");
    expect(streamPricing("per_kb")).toBe("refused");
  });
});

describe("prepaid credit", () => {
  it("accepts a positive integer between the endpoint price and the maximum", () => {
    expect(parseCreditRequest(undefined, 5)).toEqual({ kind: "none" });
    expect(parseCreditRequest("500", 5)).toEqual({ kind: "credit", sats: 500 });
    expect(parseCreditRequest(" 5 ", 5)).toEqual({ kind: "credit", sats: 5 });
    expect(parseCreditRequest(String(MAX_CREDIT_SATS), 5)).toEqual({ kind: "credit", sats: MAX_CREDIT_SATS });
  });

  it.each([["0"], ["-5"], ["1.5"], ["abc"], [""], ["05"], ["1e3"], [["100", "200"]]])("refuses %j, naming the header", (header) => {
    const parsed = parseCreditRequest(header, 1);
    expect(parsed.kind).toBe("invalid");
    expect(parsed.kind === "invalid" && parsed.message).toMatch(/^X-Hub-Credit/);
  });

  it("refuses less than one call's price and more than the maximum", () => {
    expect(parseCreditRequest("4", 5)).toMatchObject({ kind: "invalid", message: expect.stringMatching(/at least 5/) });
    expect(parseCreditRequest(String(MAX_CREDIT_SATS + 1), 5)).toMatchObject({ kind: "invalid", message: expect.stringMatching(/at most/) });
  });

  it("quotes the credit as the invoice and echoes it as creditSats", () => {
    expect(quoteCredit(500)).toEqual({ amountSats: 500, purpose: "credit", bodyFields: { creditSats: 500 } });
  });
});
