// The provider platform fee of one 30-day cycle (spec 8), as a pure function of the cycle's served
// requests and its earnings from settled invoices. Rounding rules: docs/decisions.md "Billing".

/** The base fee of a cycle with any traffic, in sats. */
export const BASE_FEE_SATS = 5_000;

/** The share of a cycle's earnings the usage fee may not exceed, in percent (spec 8). */
export const USAGE_FEE_CAP_PERCENT = 5;

/**
 * The usage tiers in order: requests up to `upTo` (inclusive, null = no bound) cost
 * `halfSatsEach / 2` sats each. Priced in half-sats so the 0.5-sat tier stays an integer.
 */
export const USAGE_TIERS = [
  { name: "free", upTo: 500, halfSatsEach: 0 },
  { name: "tier_2_sats", upTo: 50_000, halfSatsEach: 4 },
  { name: "tier_1_sat", upTo: 500_000, halfSatsEach: 2 },
  { name: "tier_half_sat", upTo: null, halfSatsEach: 1 },
] as const;

export type UsageTierName = (typeof USAGE_TIERS)[number]["name"];

/** One tier's share of a cycle's usage. `sats` may be fractional only in the half-sat tier. */
export type TierShare = { tier: UsageTierName; requests: number; satsEach: number; sats: number };

export type CycleFee = {
  requests: number;
  earningsSats: number;
  /** 0 for a cycle without traffic (no invoice), otherwise BASE_FEE_SATS. */
  baseFeeSats: number;
  /** The usage fee before the cap, whole sats (the half-sat tier's total rounded down). */
  uncappedUsageFeeSats: number;
  /** 5% of the earnings, rounded down. */
  capSats: number;
  /** Whether the cap lowered the usage fee. */
  capApplied: boolean;
  /** min(uncapped usage fee, cap). */
  usageFeeSats: number;
  /** baseFeeSats + usageFeeSats; 0 means no invoice. */
  amountSats: number;
  tiers: TierShare[];
};

export type CycleFeeInput = {
  /** Served (2xx, not refunded) requests of the cycle. */
  requests: number;
  /** Sats of the tenant's settled invoices in the cycle (billing invoices excluded). */
  earningsSats: number;
};

/** The fee of one cycle with its tier breakdown; zero traffic costs nothing (no invoice). */
export function computeCycleFee({ requests, earningsSats }: CycleFeeInput): CycleFee {
  if (!Number.isSafeInteger(requests) || requests < 0) throw new RangeError(`requests must be a non-negative integer, got ${requests}`);
  if (!Number.isSafeInteger(earningsSats) || earningsSats < 0) throw new RangeError(`earningsSats must be a non-negative integer, got ${earningsSats}`);
  const tiers = tierShares(requests);
  const halfSats = tiers.reduce((sum, t) => sum + t.sats * 2, 0);
  // The fraction is rounded once, on the total, in the provider's favour (never per request).
  const uncappedUsageFeeSats = Math.floor(halfSats / 2);
  const capSats = Math.floor((earningsSats * USAGE_FEE_CAP_PERCENT) / 100);
  const usageFeeSats = Math.min(uncappedUsageFeeSats, capSats);
  const baseFeeSats = requests > 0 ? BASE_FEE_SATS : 0;
  return {
    requests,
    earningsSats,
    baseFeeSats,
    uncappedUsageFeeSats,
    capSats,
    capApplied: usageFeeSats < uncappedUsageFeeSats,
    usageFeeSats,
    amountSats: baseFeeSats + usageFeeSats,
    tiers,
  };
}

/** How many of `requests` fall in each tier, and what they cost before rounding. */
function tierShares(requests: number): TierShare[] {
  let below = 0;
  return USAGE_TIERS.map((tier) => {
    const top = tier.upTo ?? Infinity;
    const inTier = Math.max(0, Math.min(requests, top) - below);
    below = top;
    return { tier: tier.name, requests: inTier, satsEach: tier.halfSatsEach / 2, sats: (inTier * tier.halfSatsEach) / 2 };
  });
}
