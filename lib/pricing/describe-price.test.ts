// The price-in-words table: what a person reads before paying.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { describeDuration, describePrice, describePriceRange, describePricingModels, formatSats, pricingModelLabel } from "./describe-price.ts";

describe("describePrice", () => {
  it.each([
    [{ pricingModel: null, priceSats: null }, "Free"],
    [{ pricingModel: "per_request", priceSats: 1 }, "1 sat per request"],
    [{ pricingModel: "per_request", priceSats: 10 }, "10 sats per request"],
    [{ pricingModel: "time_pass", priceSats: 100, durationMinutes: 60 }, "100 sats for 60 minutes"],
    [{ pricingModel: "time_pass", priceSats: 250, durationMinutes: 1440 }, "250 sats for 1 day"],
    [{ pricingModel: "time_pass", priceSats: 100, durationMinutes: null }, "100 sats per time pass"],
    [{ pricingModel: "token_bucket", priceSats: 500, tokenBudget: 1000 }, "1,000 requests for 500 sats"],
    [{ pricingModel: "token_bucket", priceSats: 5, tokenBudget: 1 }, "1 request for 5 sats"],
    [{ pricingModel: "token_bucket", priceSats: 500, tokenBudget: null }, "500 sats per bundle of requests"],
    [{ pricingModel: "metered", priceSats: 500, unitCostSats: 2 }, "500 sats deposit, 2 sats per call"],
    [{ pricingModel: "metered", priceSats: 500, unitCostSats: null }, "500 sats deposit"],
    [{ pricingModel: "per_kb", priceSats: 500, unitCostSats: 1 }, "500 sats deposit, 1 sat per KB"],
    [{ pricingModel: "per_kb", priceSats: 21000, unitCostSats: 3 }, "21,000 sats deposit, 3 sats per KB"],
  ] as const)("%j reads %s", (rule, words) => {
    expect(describePrice(rule)).toBe(words);
  });

  it("never prints null, undefined or NaN, whatever the numbers", () => {
    const models = fc.constantFrom(null, "per_request", "per_kb", "token_bucket", "time_pass", "metered" as const);
    const maybeInt = fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null });
    fc.assert(
      fc.property(models, maybeInt, maybeInt, maybeInt, maybeInt, (pricingModel, priceSats, tokenBudget, durationMinutes, unitCostSats) => {
        const words = describePrice({ pricingModel, priceSats, tokenBudget, durationMinutes, unitCostSats });
        expect(words).not.toMatch(/null|undefined|NaN/);
        expect(words.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe("describeDuration", () => {
  it.each([
    [1, "1 minute"],
    [45, "45 minutes"],
    [60, "60 minutes"],
    [90, "90 minutes"],
    [120, "2 hours"],
    [1440, "1 day"],
    [2880, "2 days"],
    [1500, "25 hours"],
  ])("%i minutes read %s", (minutes, words) => {
    expect(describeDuration(minutes)).toBe(words);
  });
});

describe("formatSats", () => {
  it.each([
    [0, "0 sats"],
    [1, "1 sat"],
    [2, "2 sats"],
    [1000, "1,000 sats"],
    [2_100_000, "2,100,000 sats"],
  ])("%i is %s", (sats, words) => {
    expect(formatSats(sats)).toBe(words);
  });
});

describe("describePriceRange", () => {
  it("is Free when no endpoint is priced", () => {
    expect(describePriceRange([])).toBe("Free");
    expect(describePriceRange([{ pricingModel: null, priceSats: null }])).toBe("Free");
  });

  it("ignores free endpoints and collapses a single price", () => {
    expect(
      describePriceRange([
        { pricingModel: "per_request", priceSats: 1 },
        { pricingModel: null, priceSats: null },
      ]),
    ).toBe("1 sat");
  });

  it("spans the cheapest to the dearest first invoice with an en dash", () => {
    expect(
      describePriceRange([
        { pricingModel: "per_request", priceSats: 10 },
        { pricingModel: "metered", priceSats: 1000, unitCostSats: 2 },
        { pricingModel: "per_request", priceSats: 1 },
      ]),
    ).toBe("1–1,000 sats");
  });
});

describe("pricingModelLabel", () => {
  it("names every model and free", () => {
    expect(pricingModelLabel(null)).toBe("Free");
    expect(pricingModelLabel("per_request")).toBe("Per request");
    expect(pricingModelLabel("per_kb")).toBe("Per KB");
    expect(pricingModelLabel("token_bucket")).toBe("Token bucket");
    expect(pricingModelLabel("time_pass")).toBe("Time pass");
    expect(pricingModelLabel("metered")).toBe("Metered");
  });
});

describe("describePricingModels", () => {
  it("lists each model once, alphabetically, with Free last", () => {
    expect(
      describePricingModels([
        { pricingModel: null, priceSats: null },
        { pricingModel: "time_pass", priceSats: 100, durationMinutes: 60 },
        { pricingModel: "per_request", priceSats: 1 },
        { pricingModel: "per_request", priceSats: 2 },
      ]),
    ).toEqual(["Per request", "Time pass", "Free"]);
    expect(describePricingModels([])).toEqual([]);
  });
});
