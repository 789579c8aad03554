// The pure rules of the five pricing models (spec 2.1-2.3, 3.3, 4.1, 4.7): what a challenge asks
// for, what a session is granted, what each call or KB costs, how a stream is priced, and the
// bounds of a prepaid credit request. No I/O: the gateway and lib/payments apply these.

/**
 * The five pricing models of spec 2.2, in the order forms and documents list them; an endpoint
 * without one is free. The one list on the platform side: schemas (endpoints, directory, events),
 * forms and try-it import it. The SDK keeps its own copy as part of its public contract
 * (`PricingModelName`); tests/pricing-models.test.ts holds the two equal.
 */
export const PRICING_MODELS = ["per_request", "per_kb", "token_bucket", "time_pass", "metered"] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];

/** The models that sell a session (a token with a balance or a window) rather than one call. */
export const SESSION_MODELS = ["per_kb", "token_bucket", "time_pass", "metered"] as const satisfies readonly Exclude<PricingModel, "per_request">[];
export type SessionModel = (typeof SESSION_MODELS)[number];

/** The pricing fields of an endpoint (a GatewayEndpoint or a database row both fit). */
export type PricedEndpoint = {
  pricingModel: PricingModel | null;
  priceSats: number | null;
  tokenBudget: number | null;
  durationMinutes: number | null;
  unitCostSats: number | null;
};

/** What a 402 challenge sells: the invoice amount, the invoice purpose and the body fields. */
export type PricingQuote = {
  amountSats: number;
  purpose: "per_request" | "session" | "credit";
  /** The model's fields echoed in the 402 body (absent for per_request). */
  bodyFields: { model?: PricingModel; durationMinutes?: number; unitCostSats?: number; tokenBudget?: number; creditSats?: number };
};

/** Session models sell a session; per_request sells one call. Also reads a stored snapshot's model. */
export function isSessionModel(model: unknown): model is SessionModel {
  return (SESSION_MODELS as readonly unknown[]).includes(model);
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

// ---------------------------------------------------------------- sessions

/** What a paid session invoice sold (the invoice's pricing snapshot plus its amount). */
export type SessionDeal = {
  model: SessionModel;
  amountSats: number;
  tokenBudget?: number | null;
  durationMinutes?: number | null;
  unitCostSats?: number | null;
};

/**
 * A new session's starting state. `balance` is requests (token_bucket) or sats (metered, per_kb);
 * `lifetimeMs` runs from when the session opens (the database's now(), lib/payments/open-session.ts).
 */
export type SessionGrant = {
  model: SessionModel;
  balance: number | null;
  unitCostSats: number | null;
  lifetimeMs: number;
};

/**
 * The session a paid deal opens. time_pass: the window is the pass's duration from opening.
 * Balance models last `balanceTtlMs` (CREDIT_TTL_DAYS): a bought balance should not live forever,
 * nor vanish quickly. Throws on a deal that lacks its model's field (the provider API never stores one).
 */
export function sessionGrant(deal: SessionDeal, balanceTtlMs: number): SessionGrant {
  const need = (value: number | null | undefined, field: string): number => {
    if (value === null || value === undefined || !Number.isSafeInteger(value) || value < 0) throw new Error(`A ${deal.model} deal needs ${field}`);
    return value;
  };
  switch (deal.model) {
    case "token_bucket":
      return { model: deal.model, balance: need(deal.tokenBudget, "tokenBudget"), unitCostSats: null, lifetimeMs: balanceTtlMs };
    case "time_pass":
      return { model: deal.model, balance: null, unitCostSats: null, lifetimeMs: need(deal.durationMinutes, "durationMinutes") * 60_000 };
    case "metered":
    case "per_kb":
      return { model: deal.model, balance: deal.amountSats, unitCostSats: need(deal.unitCostSats, "unitCostSats"), lifetimeMs: balanceTtlMs };
  }
}

/**
 * What a call takes from a session before the origin is asked: one request (token_bucket), the
 * unit cost (metered), nothing (time_pass: the window pays; per_kb: charged once the size is known).
 */
export function callDebit(model: SessionModel, unitCostSats: number | null): number {
  if (model === "token_bucket") return 1;
  if (model === "metered") return unitCostSats ?? 0;
  return 0;
}

/**
 * The least balance a session must hold for a call to start: a debit's worth, or for per_kb one
 * sat (a session that cannot pay for a single byte is depleted). time_pass needs no balance.
 */
export function minimumBalance(model: SessionModel, unitCostSats: number | null): number {
  if (model === "per_kb") return 1;
  return callDebit(model, unitCostSats);
}

/** Bytes per KB for per_kb pricing (X-Data-Size-KB). */
export const BYTES_PER_KB = 1024;

/**
 * The per_kb charge for a response body: proportional to its size, rounded up to a whole sat
 * (`ceil(bytes × unitCostSats / 1024)`), so 0 bytes cost 0 and one byte costs 1 sat at most.
 */
export function perKbCost(bytes: number, unitCostSats: number): number {
  if (bytes <= 0 || unitCostSats <= 0) return 0;
  return Math.ceil((bytes * unitCostSats) / BYTES_PER_KB);
}

/** The largest body (bytes) a per_kb balance can pay for: perKbCost(result) ≤ balance < perKbCost(result + 1). */
export function affordableBytes(balanceSats: number, unitCostSats: number): number {
  if (unitCostSats <= 0) return Number.MAX_SAFE_INTEGER;
  if (balanceSats <= 0) return 0;
  return Math.floor((balanceSats * BYTES_PER_KB) / unitCostSats);
}

/** X-Data-Size-KB: the body size in KB with up to three decimals ("0", "1", "2.346"). */
export function formatKb(bytes: number): string {
  return String(Math.round((bytes / BYTES_PER_KB) * 1000) / 1000);
}

// ---------------------------------------------------------------- streams

/**
 * How one SSE connection is paid (spec 4.7 rule 5): a per_request proof buys one connection,
 * token_bucket and metered debit one unit at connect, time_pass lasts the window, per_kb is refused
 * (a stream has no response size to charge).
 */
export type StreamPricing = "proof_per_connection" | "debit_per_connection" | "window" | "refused";

/** The stream rule of a model. */
export function streamPricing(model: PricingModel): StreamPricing {
  switch (model) {
    case "per_request":
      return "proof_per_connection";
    case "token_bucket":
    case "metered":
      return "debit_per_connection";
    case "time_pass":
      return "window";
    case "per_kb":
      return "refused";
  }
}

// ---------------------------------------------------------------- prepaid credit

/**
 * The largest prepaid credit one request may buy (0.01 BTC): credit is non-refundable, so a typo
 * must not turn into a large prepayment.
 */
export const MAX_CREDIT_SATS = 1_000_000;

/** The X-Hub-Credit header, read: absent, a valid amount, or why it is refused (a 400 naming it). */
export type CreditRequest = { kind: "none" } | { kind: "credit"; sats: number } | { kind: "invalid"; message: string };

/**
 * Reads `X-Hub-Credit: <positive integer sats>` for an endpoint of this price. The credit must pay
 * for at least one call here and at most MAX_CREDIT_SATS. `headerName` is the name the request used
 * (the gateway also takes the deployed client's `X-Bolthub-Credit`), so a refusal names it.
 */
export function parseCreditRequest(header: string | string[] | undefined, priceSats: number, headerName = "X-Hub-Credit"): CreditRequest {
  if (header === undefined) return { kind: "none" };
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : "") : header;
  const text = value.trim();
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return { kind: "invalid", message: `${headerName} must be a positive integer number of sats` };
  const sats = Number(text);
  if (sats < priceSats) return { kind: "invalid", message: `${headerName} must be at least ${priceSats} sats, the price of this endpoint` };
  if (sats > MAX_CREDIT_SATS) return { kind: "invalid", message: `${headerName} must be at most ${MAX_CREDIT_SATS} sats` };
  return { kind: "credit", sats };
}

/** The challenge of a credit purchase: the invoice is the credit, echoed as `creditSats` (../shared/INTEROP.md). */
export function quoteCredit(sats: number): PricingQuote {
  return { amountSats: sats, purpose: "credit", bodyFields: { creditSats: sats } };
}
