// One compute's raw reading: the state, bias and risk the evidence points to right now, before the
// hysteresis of engine.ts decides whether the published verdict follows. Pure functions of the
// features and evidence; the rules are written down in docs/market-verdict.md and docs/decisions.md.
import { levelOf, type RiskLevel } from "../risk.ts";
import type { Evidence, MarketFeatures } from "./evidence.ts";

export const VERDICT_STATES = ["QUIET", "SPOT_ACCUMULATION", "LEVERAGED_RALLY", "LEVERAGED_CHOP", "DELEVERAGING", "CAPITULATION"] as const;
export type VerdictState = (typeof VERDICT_STATES)[number];
export const BIASES = ["bullish", "neutral", "bearish"] as const;
export type Bias = (typeof BIASES)[number];
export const RISK_LEVELS = ["LOW", "MODERATE", "ELEVATED", "HIGH", "UNKNOWN"] as const;

/** The thresholds of the state rules, in the features' units (percent, fraction per 8 h, USD, BTC). */
export const STATE_RULES = {
  capitulation: { return24hPct: -7, longLiquidationsUsd: 20_000_000, fearGreed: 20 },
  deleveraging: { oiChangePct: -3, liquidationsUsd: 5_000_000, return1hPct: 1.5 },
  leveragedRally: { return24hPct: 3, fundingRate: 0.0003, oiChangePct: 1 },
  leveragedChop: { return24hPct: 3, fundingRate: 0.0003, oiChangePct: 2 },
  spotAccumulation: { fundingRate: 0.0002, oiChangePct: 1, exchangeNetflowBtc: -2_000, whaleNetflowBtc: -2_000, coinbasePremiumBps: 5 },
} as const;

/** |bias_score| at or above this reads bullish/bearish. */
export const BIAS_THRESHOLD = 0.2;
/** Below this share of readable evidence the risk is UNKNOWN (never LOW). */
export const MIN_RISK_COMPLETENESS = 0.5;

/**
 * The state rules, first match wins (a missing figure fails the rule that needs it):
 * 1. CAPITULATION: 24 h return ≤ −7 % and (longs liquidated in the last hour ≥ $20M or fear & greed ≤ 20);
 * 2. DELEVERAGING: open interest ≤ −3 % within the hour and (liquidations ≥ $5M or |1 h return| ≥ 1.5 %);
 * 3. LEVERAGED_RALLY: 24 h return ≥ +3 %, funding ≥ 0.03 % per 8 h and open interest ≥ +1 %;
 * 4. LEVERAGED_CHOP: |24 h return| < 3 % and (|funding| ≥ 0.03 % or open interest ≥ +2 %);
 * 5. SPOT_ACCUMULATION: trend score ≥ 0, funding ≤ 0.02 %, |open interest change| < 1 %, and coins
 *    leaving exchanges (netflow ≤ −2,000 BTC, or whales ≥ 2,000 BTC net off exchanges, or a Coinbase premium ≥ 5 bps);
 * 6. QUIET otherwise.
 */
export function classifyState(f: MarketFeatures): VerdictState {
  const r = STATE_RULES;
  if (f.return24hPct !== null && f.return24hPct <= r.capitulation.return24hPct) {
    const flushed = f.longLiquidationsUsd !== null && f.longLiquidationsUsd >= r.capitulation.longLiquidationsUsd;
    const fearful = f.fearGreed !== null && f.fearGreed <= r.capitulation.fearGreed;
    if (flushed || fearful) return "CAPITULATION";
  }
  if (f.oiChangePct !== null && f.oiChangePct <= r.deleveraging.oiChangePct) {
    const liquidated = (f.longLiquidationsUsd ?? 0) + (f.shortLiquidationsUsd ?? 0) >= r.deleveraging.liquidationsUsd;
    const moving = f.return1hPct !== null && Math.abs(f.return1hPct) >= r.deleveraging.return1hPct;
    if (liquidated || moving) return "DELEVERAGING";
  }
  if (
    f.return24hPct !== null &&
    f.fundingRate !== null &&
    f.oiChangePct !== null &&
    f.return24hPct >= r.leveragedRally.return24hPct &&
    f.fundingRate >= r.leveragedRally.fundingRate &&
    f.oiChangePct >= r.leveragedRally.oiChangePct
  ) {
    return "LEVERAGED_RALLY";
  }
  if (f.return24hPct !== null && Math.abs(f.return24hPct) < r.leveragedChop.return24hPct) {
    const crowded = f.fundingRate !== null && Math.abs(f.fundingRate) >= r.leveragedChop.fundingRate;
    const levering = f.oiChangePct !== null && f.oiChangePct >= r.leveragedChop.oiChangePct;
    if (crowded || levering) return "LEVERAGED_CHOP";
  }
  if (
    f.trendScore !== null &&
    f.trendScore >= 0 &&
    f.fundingRate !== null &&
    f.fundingRate <= r.spotAccumulation.fundingRate &&
    (f.oiChangePct === null || Math.abs(f.oiChangePct) < r.spotAccumulation.oiChangePct)
  ) {
    const outflows = f.exchangeNetflowBtc !== null && f.exchangeNetflowBtc <= r.spotAccumulation.exchangeNetflowBtc;
    const whales = f.whaleNetflowBtc !== null && f.whaleNetflowBtc <= r.spotAccumulation.whaleNetflowBtc;
    const premium = f.coinbasePremiumBps !== null && f.coinbasePremiumBps >= r.spotAccumulation.coinbasePremiumBps;
    if (outflows || whales || premium) return "SPOT_ACCUMULATION";
  }
  return "QUIET";
}

export function classifyBias(biasScore: number): Bias {
  return biasScore >= BIAS_THRESHOLD ? "bullish" : biasScore <= -BIAS_THRESHOLD ? "bearish" : "neutral";
}

/**
 * Risk from the evidence's risk components (volatility, funding extremes, liquidations, open-interest
 * swings, anomalies, manipulation): half the largest plus half their mean, read on the manipulation
 * scale (LOW < 0.25 ≤ MODERATE < 0.5 ≤ ELEVATED < 0.75 ≤ HIGH). UNKNOWN below 50 % completeness or
 * without any risk component.
 */
export function classifyRisk(evidence: Evidence[], completeness: number): { risk: RiskLevel; riskScore: number | null } {
  const components = evidence.filter((item) => item.available && item.risk !== null).map((item) => item.risk!);
  if (completeness < MIN_RISK_COMPLETENESS || components.length === 0) return { risk: "UNKNOWN", riskScore: null };
  const score = 0.5 * Math.max(...components) + (0.5 * components.reduce((sum, value) => sum + value, 0)) / components.length;
  return { risk: levelOf(score), riskScore: score };
}
