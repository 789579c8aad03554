// The 402 body: the spec 2.1 fields per model, shared by the gateway and the dashboard preview.
import { describe, expect, it } from "vitest";
import { quoteCredit, type PricedEndpoint } from "@/lib/pricing/quote.ts";
import { challengeBody, PREVIEW_INVOICE, previewChallengeBody } from "./challenge-body.ts";

const none = { priceSats: null, tokenBudget: null, durationMinutes: null, unitCostSats: null };
const invoice = { paymentRequest: "lnbcrt10n1p…", paymentHash: "ab".repeat(32) };

describe("previewChallengeBody", () => {
  const table: [string, PricedEndpoint, Record<string, unknown> | null][] = [
    ["free", { pricingModel: null, ...none }, null],
    ["per_request", { pricingModel: "per_request", ...none, priceSats: 10 }, { amountSats: 10 }],
    ["per_kb", { pricingModel: "per_kb", ...none, priceSats: 500, unitCostSats: 1 }, { amountSats: 500, model: "per_kb", unitCostSats: 1 }],
    [
      "token_bucket",
      { pricingModel: "token_bucket", ...none, priceSats: 500, tokenBudget: 1000 },
      { amountSats: 500, model: "token_bucket", tokenBudget: 1000 },
    ],
    ["time_pass", { pricingModel: "time_pass", ...none, priceSats: 100, durationMinutes: 60 }, { amountSats: 100, model: "time_pass", durationMinutes: 60 }],
    ["metered", { pricingModel: "metered", ...none, priceSats: 200, unitCostSats: 2 }, { amountSats: 200, model: "metered", unitCostSats: 2 }],
    ["a model without its price", { pricingModel: "per_request", ...none }, null],
  ];
  it.each(table)("%s", (_name, endpoint, fields) => {
    const body = previewChallengeBody(endpoint);
    if (fields === null) return expect(body).toBeNull();
    expect(body).toEqual({ error: "Payment Required", paymentRequest: PREVIEW_INVOICE.paymentRequest, paymentHash: PREVIEW_INVOICE.paymentHash, ...fields });
  });

  it("keeps the spec's field order: error, invoice, amount, hash, then the model's fields", () => {
    const body = previewChallengeBody({ pricingModel: "time_pass", ...none, priceSats: 100, durationMinutes: 60 });
    expect(Object.keys(body!)).toEqual(["error", "paymentRequest", "amountSats", "paymentHash", "model", "durationMinutes"]);
  });
});

describe("challengeBody", () => {
  it("echoes a credit purchase's honored budget", () => {
    expect(challengeBody(quoteCredit(5000), invoice)).toEqual({ error: "Payment Required", ...invoice, amountSats: 5000, ...quoteCredit(5000).bodyFields });
  });

  it("takes only the bolt11 text and hash from the invoice", () => {
    const body = challengeBody(quoteCredit(10), { ...invoice, expiresAt: new Date() } as typeof invoice);
    expect(body).not.toHaveProperty("expiresAt");
  });
});
