// A pricing rule (spec 2.2) in plain words, for people choosing an API: directory cards, API
// pages, and later llms.txt and the badge. Pure; lib/pricing/describe-price.test.ts is the table.

import type { PricingModel } from "./quote.ts";

/** The spec 2.2 fields; pricingModel null means a free endpoint. */
export type PriceRule = {
  pricingModel: PricingModel | null;
  priceSats: number | null;
  tokenBudget?: number | null;
  durationMinutes?: number | null;
  unitCostSats?: number | null;
};

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "1 sat", "1,000 sats". */
export function formatSats(sats: number): string {
  return `${integer.format(sats)} ${sats === 1 ? "sat" : "sats"}`;
}

function plural(count: number, unit: string): string {
  return `${integer.format(count)} ${unit}${count === 1 ? "" : "s"}`;
}

/**
 * "45 minutes", "60 minutes", "2 hours", "1 day". An hour stays "60 minutes": providers
 * configure minutes and a one-hour pass reads naturally either way; whole hours from two on and
 * whole days read better as such.
 */
export function describeDuration(minutes: number): string {
  if (minutes >= 1440 && minutes % 1440 === 0) return plural(minutes / 1440, "day");
  if (minutes >= 120 && minutes % 60 === 0) return plural(minutes / 60, "hour");
  return plural(minutes, "minute");
}

/**
 * The price of one endpoint in words: "10 sats per request", "100 sats for 60 minutes",
 * "1,000 requests for 500 sats", "500 sats deposit, 2 sats per call",
 * "500 sats deposit, 1 sat per KB", "Free". A rule missing its model-specific number still
 * reads sensibly instead of printing "null".
 */
export function describePrice(rule: PriceRule): string {
  if (rule.pricingModel === null) return "Free";
  const price = formatSats(rule.priceSats ?? 0);
  switch (rule.pricingModel) {
    case "per_request":
      return `${price} per request`;
    case "time_pass":
      return rule.durationMinutes ? `${price} for ${describeDuration(rule.durationMinutes)}` : `${price} per time pass`;
    case "token_bucket":
      return rule.tokenBudget ? `${plural(rule.tokenBudget, "request")} for ${price}` : `${price} per bundle of requests`;
    case "metered":
      return rule.unitCostSats ? `${price} deposit, ${formatSats(rule.unitCostSats)} per call` : `${price} deposit`;
    case "per_kb":
      return rule.unitCostSats ? `${price} deposit, ${formatSats(rule.unitCostSats)} per KB` : `${price} deposit`;
  }
}

const modelLabels: Record<PricingModel, string> = {
  per_request: "Per request",
  per_kb: "Per KB",
  token_bucket: "Token bucket",
  time_pass: "Time pass",
  metered: "Metered",
};

/** A short label for a pricing model; null (no rule) is "Free". */
export function pricingModelLabel(model: PricingModel | null): string {
  return model === null ? "Free" : modelLabels[model];
}

/**
 * What calling an API costs up front, across its endpoints: "Free", "1 sat", "1–10 sats". It uses
 * priceSats, the amount of the first invoice (the price, or the deposit of a session model).
 */
export function describePriceRange(rules: PriceRule[]): string {
  const prices = rules.filter((r) => r.pricingModel !== null).map((r) => r.priceSats ?? 0);
  if (prices.length === 0) return "Free";
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  return min === max ? formatSats(min) : `${integer.format(min)}–${formatSats(max)}`;
}

/**
 * The pricing models an API uses, as labels in a stable order with "Free" last:
 * ["Per request", "Time pass", "Free"].
 */
export function describePricingModels(rules: PriceRule[]): string[] {
  const labels = [...new Set(rules.filter((r) => r.pricingModel !== null).map((r) => pricingModelLabel(r.pricingModel)))].sort();
  if (rules.some((r) => r.pricingModel === null)) labels.push("Free");
  return labels;
}
