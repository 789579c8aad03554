// How to pay an L402 endpoint and what the five pricing models mean, written once for every
// surface that explains it (the /docs page, llms.txt, llms-full.txt). Pure data, spec 1.2 and 2.2.
import type { PricingModel } from "@/lib/pricing/quote.ts";

/** One pricing model in plain words (spec 2.2), with the fields of the rule it uses. */
export type PricingModelGuide = { model: PricingModel; name: string; summary: string; fields: string[] };

/** The five pricing models, in the order a newcomer meets them. */
export const pricingModelGuide: PricingModelGuide[] = [
  {
    model: "per_request",
    name: "Per request",
    summary: "A fixed price for each request. One paid proof is good for one successful call; if the origin fails, the same proof works again.",
    fields: ["priceSats"],
  },
  {
    model: "token_bucket",
    name: "Token bucket",
    summary:
      "One payment buys a number of requests (tokenBudget); each request uses one. The response carries X-Session-Token for the next calls and X-Session-Balance with what is left.",
    fields: ["priceSats", "tokenBudget"],
  },
  {
    model: "time_pass",
    name: "Time pass",
    summary:
      "One payment buys unlimited requests for a time window (durationMinutes). Send X-Session-Token on every call until it expires (X-Session-Expires).",
    fields: ["priceSats", "durationMinutes"],
  },
  {
    model: "metered",
    name: "Metered",
    summary: "A prepaid balance (priceSats) from which each request deducts unitCostSats. When the balance runs out, the next request gets a new 402.",
    fields: ["priceSats", "unitCostSats"],
  },
  {
    model: "per_kb",
    name: "Per KB",
    summary:
      "A deposit (priceSats) from which each response deducts unitCostSats per KB of its size (X-Data-Size-KB, X-Data-Cost-Sats). Not available for streams.",
    fields: ["priceSats", "unitCostSats"],
  },
];

/** The L402 round trip as numbered steps (markdown, for llms.txt and the docs). */
export const paymentSteps: string[] = [
  'Call the endpoint. A priced endpoint answers `402 Payment Required` with `WWW-Authenticate: L402 macaroon="<base64>", invoice="<bolt11>"` and a JSON body `{error, paymentRequest, amountSats, paymentHash}`.',
  "Pay the bolt11 invoice (`paymentRequest`) with any Lightning wallet. Paying reveals the preimage: 64 hex characters.",
  "Repeat the same request with `Authorization: L402 <macaroon>:<preimage>`. The gateway forwards it to the provider and returns the response with `X-Hub-Payment: charged`.",
  "Session models (token_bucket, time_pass, metered, per_kb) also return `X-Session-Token`: send it back in the header of the same name instead of paying again until the session runs out.",
  "If the provider's server fails (5xx, timeout), the response says `X-Hub-Payment: reverted` and the same proof (or session balance) pays for the retry. Free endpoints need no payment at all.",
];
