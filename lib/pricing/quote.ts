// What a challenge asks for, per pricing model (spec 2.1, 2.2). Pure: no I/O.

export type PricingModel = "per_request" | "per_kb" | "token_bucket" | "time_pass" | "metered";

export type PricedEndpoint = {
  pricingModel: PricingModel | null;
  priceSats: number | null;
  tokenBudget: number | null;
  durationMinutes: number | null;
  unitCostSats: number | null;
};

export type PricingQuote = {
  amountSats: number;
  purpose: "per_request" | "session" | "credit";
  /** The model's fields echoed in the 402 body (absent for per_request). */
  bodyFields: { model?: PricingModel; durationMinutes?: number; unitCostSats?: number; tokenBudget?: number; creditSats?: number };
};

/** Session models sell a session; per_request sells one call. */
export function isSessionModel(model: PricingModel | null): model is Exclude<PricingModel, "per_request"> {
  return model !== null && model !== "per_request";
}

/** The challenge for an endpoint; null when the endpoint is free. */
export function quoteEndpoint(endpoint: PricedEndpoint): PricingQuote | null {
  const { pricingModel: model, priceSats } = endpoint;
  if (model === null || priceSats === null) return null;
  switch (model) {
    case "per_request":
      return { amountSats: priceSats, purpose: "per_request", bodyFields: {} };
    case "token_bucket":
      return { amountSats: priceSats, purpose: "session", bodyFields: { model, tokenBudget: endpoint.tokenBudget ?? undefined } };
    case "time_pass":
      return { amountSats: priceSats, purpose: "session", bodyFields: { model, durationMinutes: endpoint.durationMinutes ?? undefined } };
    case "metered":
    case "per_kb":
      return { amountSats: priceSats, purpose: "session", bodyFields: { model, unitCostSats: endpoint.unitCostSats ?? undefined } };
  }
}
