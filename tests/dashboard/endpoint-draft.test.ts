// The endpoint form's conversion and validation: hidden fields are never sent, the API's schema
// decides (per_kb + streaming refused with its explanation), example JSON errors are named, and a
// stored endpoint round-trips through the form unchanged.
import { describe, expect, it } from "vitest";
import { draftFrom, draftPriceRule, draftToBody, newParameter, validateDraft, type EndpointDraft } from "@/app/dashboard/[slug]/endpoints/endpoint-draft.ts";
import { endpointCreateSchema, endpointResponseSchema } from "@/lib/endpoints/schemas.ts";
import { PRICING_MODELS } from "@/lib/pricing/quote.ts";
import { previewChallengeBody } from "@/lib/payments/challenge-body.ts";

const blank = (patch: Partial<EndpointDraft> = {}): EndpointDraft => ({ ...draftFrom(null), path: "/v1/quote", ...patch });

describe("draftToBody", () => {
  it("sends null for every pricing field the model does not use, even when text was typed into it earlier", () => {
    const draft = blank({ pricingModel: "time_pass", priceSats: "100", durationMinutes: "60", tokenBudget: "1000", unitCostSats: "2" });
    expect(draftToBody(draft).body).toMatchObject({ pricingModel: "time_pass", priceSats: 100, durationMinutes: 60, tokenBudget: null, unitCostSats: null });
    const free = draftToBody(blank({ pricingModel: null, priceSats: "10", freeTryEnabled: true })).body;
    expect(free).toMatchObject({ priceSats: null, freeTryEnabled: false });
  });

  it("drops stream limits when not streaming and the cache TTL when streaming", () => {
    expect(draftToBody(blank({ streaming: false, maxStreamSeconds: "60", idleTimeoutSeconds: "5", cacheTtlSeconds: "30" })).body).toMatchObject({
      maxStreamSeconds: null,
      idleTimeoutSeconds: null,
      cacheTtlSeconds: 30,
    });
    expect(draftToBody(blank({ streaming: true, maxStreamSeconds: "60", cacheTtlSeconds: "30" })).body).toMatchObject({
      maxStreamSeconds: 60,
      cacheTtlSeconds: null,
    });
  });

  it("names example fields that are not JSON objects", () => {
    expect(draftToBody(blank({ exampleRequest: "{oops" })).jsonErrors.exampleRequest).toMatch(/^is not valid JSON/);
    expect(draftToBody(blank({ exampleResponse: "[1, 2]" })).jsonErrors.exampleResponse).toBe("must be a JSON object ({ … })");
    expect(draftToBody(blank({ exampleResponse: '{"price": 1}' })).body.exampleResponse).toEqual({ price: 1 });
  });
});

describe("validateDraft (the API's schema in the browser)", () => {
  it("accepts a complete draft of every pricing model", () => {
    const numbers: Record<string, Partial<EndpointDraft>> = {
      per_request: { priceSats: "10" },
      per_kb: { priceSats: "500", unitCostSats: "1" },
      token_bucket: { priceSats: "500", tokenBudget: "1000" },
      time_pass: { priceSats: "100", durationMinutes: "60" },
      metered: { priceSats: "200", unitCostSats: "2" },
    };
    for (const model of PRICING_MODELS) {
      const { errors, body } = validateDraft(blank({ pricingModel: model, ...numbers[model] }));
      expect(errors, model).toEqual({});
      expect(endpointCreateSchema.safeParse(body).success).toBe(true);
    }
  });

  it("refuses per_kb with streaming on the streaming field, with the API's explanation", () => {
    const { errors } = validateDraft(blank({ pricingModel: "per_kb", priceSats: "500", unitCostSats: "1", streaming: true }));
    expect(errors.streaming).toMatch(/^per_kb endpoints cannot stream: a stream is priced as a connection/);
    // Also while another field is still invalid (zod alone would skip the cross-field rules).
    const early = validateDraft(blank({ path: "", pricingModel: "per_kb", streaming: true }));
    expect(early.errors).toMatchObject({ path: "must start with /", streaming: expect.stringMatching(/^per_kb endpoints cannot stream/) });
  });

  it("keys errors like the API's 422 (dotted paths), including parameters and missing prices", () => {
    const draft = blank({
      path: "/v1/quote/{symbol}",
      pricingModel: "metered",
      priceSats: "5",
      unitCostSats: "10",
      parameters: [
        { ...newParameter(), name: "other", in: "path" },
        { ...newParameter(), name: "bad name!" },
      ],
    });
    const { errors } = validateDraft(draft);
    expect(errors.unitCostSats).toBe("must not exceed priceSats: the deposit has to cover at least one unit");
    expect(errors["parameters.0.name"]).toMatch(/does not appear in path/);
    expect(errors["parameters.1.name"]).toBe("use letters, digits, _ . - [ ]");
    expect(validateDraft(blank({ pricingModel: "token_bucket", priceSats: "10" })).errors.tokenBudget).toBe("required by pricingModel token_bucket");
    expect(validateDraft(blank({ path: "v1/x", priceSats: "abc", pricingModel: "per_request" })).errors).toMatchObject({
      path: "must start with /",
      priceSats: expect.any(String),
    });
  });
});

describe("draftFrom", () => {
  it("round-trips a stored endpoint: the body the form sends equals what is stored", () => {
    const stored = endpointCreateSchema.parse({
      method: "POST",
      path: "/v1/quote/{symbol}",
      title: "Quote",
      pricingModel: "token_bucket",
      priceSats: 500,
      tokenBudget: 1000,
      freeTryEnabled: true,
      cacheTtlSeconds: 60,
      rateLimitPerMinute: 120,
      parameters: [{ name: "limit", in: "query", type: "integer", required: true, description: "rows" }],
      exampleRequest: { query: { limit: 5 } },
      exampleResponse: { price: 1 },
      docsUrl: "https://docs.example.com/q",
    });
    const response = endpointResponseSchema.parse({ ...stored, id: "e1", createdAt: new Date(), updatedAt: new Date() });
    const { body, errors } = validateDraft(draftFrom(response));
    expect(errors).toEqual({});
    expect(endpointCreateSchema.parse(body)).toEqual(stored);
  });

  it("previews the price and the 402 body from the draft's valid numbers only", () => {
    const rule = draftPriceRule(blank({ pricingModel: "time_pass", priceSats: "100", durationMinutes: "-5" }));
    expect(rule).toEqual({ pricingModel: "time_pass", priceSats: 100, tokenBudget: null, durationMinutes: null, unitCostSats: null });
    expect(previewChallengeBody(draftPriceRule(blank({ pricingModel: "time_pass", priceSats: "100", durationMinutes: "60" })))).toMatchObject({
      amountSats: 100,
      model: "time_pass",
      durationMinutes: 60,
    });
  });
});
