// The JSON body of a 402 challenge (spec 2.1): one pure function, so the gateway's real challenge
// and the dashboard's preview of it can never disagree. No I/O and no Node APIs (the dashboard
// form imports it in the browser).
import { quoteEndpoint, type PricedEndpoint, type PricingQuote } from "@/lib/pricing/quote.ts";

export type ChallengeBody = {
  error: "Payment Required";
  paymentRequest: string;
  amountSats: number;
  paymentHash: string;
  model?: string;
  durationMinutes?: number;
  unitCostSats?: number;
  tokenBudget?: number;
  creditSats?: number;
};

/** The invoice a challenge carries: its bolt11 text and payment hash. */
export type ChallengeInvoice = { paymentRequest: string; paymentHash: string };

/** The 402 body for a quote and the invoice created for it (field order as consumers see it). */
export function challengeBody(quote: PricingQuote, invoice: ChallengeInvoice): ChallengeBody {
  return {
    error: "Payment Required",
    paymentRequest: invoice.paymentRequest,
    amountSats: quote.amountSats,
    paymentHash: invoice.paymentHash,
    ...quote.bodyFields,
  };
}

/** Stand-ins for the invoice in a preview: real ones only exist once a consumer calls. */
export const PREVIEW_INVOICE: ChallengeInvoice = {
  paymentRequest: "lnbc…",
  paymentHash: "…",
};

/**
 * The 402 body an endpoint's pricing would produce (the dashboard's preview), or null for a free
 * endpoint or an incomplete rule (a model without its price).
 */
export function previewChallengeBody(endpoint: PricedEndpoint): ChallengeBody | null {
  const quote = quoteEndpoint(endpoint);
  return quote ? challengeBody(quote, PREVIEW_INVOICE) : null;
}
