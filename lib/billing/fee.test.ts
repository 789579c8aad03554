import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BASE_FEE_SATS, computeCycleFee } from "./fee.ts";

// Earnings so large the 5% cap never binds.
const RICH = 1_000_000_000;

describe("computeCycleFee", () => {
  it.each([
    // requests, uncapped usage fee: every tier edge, and odd counts in the half-sat tier
    [0, 0],
    [1, 0],
    [500, 0],
    [501, 2],
    [502, 4],
    [50_000, 99_000],
    [50_001, 99_001],
    [50_002, 99_002],
    [500_000, 549_000],
    [500_001, 549_000], // 0.5 sat rounds down
    [500_002, 549_001],
    [500_003, 549_001], // 1.5 sats round down
    [1_000_001, 799_000], // 500,001 half-sats = 250,000.5 rounds down
    [1_000_002, 799_001],
  ])("%i served requests cost %i sats of usage", (requests, usage) => {
    const fee = computeCycleFee({ requests, earningsSats: RICH });
    expect(fee.uncappedUsageFeeSats).toBe(usage);
    expect(fee.usageFeeSats).toBe(usage);
    expect(fee.capApplied).toBe(false);
    expect(fee.baseFeeSats).toBe(requests === 0 ? 0 : BASE_FEE_SATS);
    expect(fee.amountSats).toBe(requests === 0 ? 0 : BASE_FEE_SATS + usage);
  });

  it("breaks the usage down by tier", () => {
    expect(computeCycleFee({ requests: 500_003, earningsSats: RICH }).tiers).toEqual([
      { tier: "free", requests: 500, satsEach: 0, sats: 0 },
      { tier: "tier_2_sats", requests: 49_500, satsEach: 2, sats: 99_000 },
      { tier: "tier_1_sat", requests: 450_000, satsEach: 1, sats: 450_000 },
      { tier: "tier_half_sat", requests: 3, satsEach: 0.5, sats: 1.5 },
    ]);
    expect(computeCycleFee({ requests: 501, earningsSats: RICH }).tiers.map((t) => t.requests)).toEqual([500, 1, 0, 0]);
    expect(computeCycleFee({ requests: 0, earningsSats: 0 }).tiers.map((t) => t.requests)).toEqual([0, 0, 0, 0]);
  });

  it.each([
    // requests, earnings, cap, usage fee, cap applied
    [50_000, 1_000_000, 50_000, 50_000, true], // 99,000 capped at 5% of 1,000,000
    [50_000, 1_980_000, 99_000, 99_000, false], // cap equals the fee exactly: not lowered
    [50_000, 1_980_020, 99_001, 99_000, false],
    [50_000, 1_979_999, 98_999, 98_999, true], // 98,999.95 rounds down
    [1_000, 19, 0, 0, true], // 0.95 sat of cap rounds down to nothing
    [1_000, 20, 1, 1, true],
    [1_000, 0, 0, 0, true], // zero earnings: no usage fee, the base stays
    [500, 0, 0, 0, false], // free tier only: nothing to cap
  ])("%i requests with %i sats earned: cap %i, usage fee %i (cap applied: %s)", (requests, earningsSats, cap, usage, applied) => {
    const fee = computeCycleFee({ requests, earningsSats });
    expect(fee.capSats).toBe(cap);
    expect(fee.usageFeeSats).toBe(usage);
    expect(fee.capApplied).toBe(applied);
    expect(fee.baseFeeSats).toBe(BASE_FEE_SATS);
    expect(fee.amountSats).toBe(BASE_FEE_SATS + usage);
  });

  it("charges nothing for a cycle without traffic, whatever it earned", () => {
    const fee = computeCycleFee({ requests: 0, earningsSats: 500_000 });
    expect(fee).toMatchObject({ baseFeeSats: 0, usageFeeSats: 0, amountSats: 0, capApplied: false });
  });

  it("refuses counts that are not non-negative integers", () => {
    expect(() => computeCycleFee({ requests: -1, earningsSats: 0 })).toThrow(RangeError);
    expect(() => computeCycleFee({ requests: 1.5, earningsSats: 0 })).toThrow(RangeError);
    expect(() => computeCycleFee({ requests: 1, earningsSats: -3 })).toThrow(RangeError);
  });

  it("never lowers the base, never exceeds the cap, and grows with traffic", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 0, max: 100_000_000 }), (requests, earningsSats) => {
        const fee = computeCycleFee({ requests, earningsSats });
        const more = computeCycleFee({ requests: requests + 1, earningsSats });
        expect(fee.baseFeeSats).toBe(BASE_FEE_SATS);
        expect(fee.usageFeeSats).toBeLessThanOrEqual(fee.capSats);
        expect(fee.usageFeeSats).toBeLessThanOrEqual(fee.uncappedUsageFeeSats);
        expect(fee.tiers.reduce((n, t) => n + t.requests, 0)).toBe(requests);
        expect(more.amountSats).toBeGreaterThanOrEqual(fee.amountSats);
      }),
    );
  });
});
