// The endpoint form's state and its one conversion to the API body. Validation is the API's own
// zod schema (endpointCreateSchema: field rules plus checkEndpointRules), run in the browser on the
// body that would be sent, so the form and the API can never disagree. Pure; no React.
import type { z } from "zod";
import {
  checkEndpointRules,
  ENDPOINT_DEFAULTS,
  endpointCreateSchema,
  MODEL_FIELDS,
  PARAMETER_LOCATIONS,
  PARAMETER_TYPES,
  PRICING_FIELDS,
  type EndpointResponse,
  type HttpMethod,
} from "@/lib/endpoints/schemas.ts";
import type { PriceRule } from "@/lib/pricing/describe-price.ts";
import type { PricingModel } from "@/lib/pricing/quote.ts";

export type ParameterDraft = {
  /** Stable React key; never sent. */
  key: string;
  name: string;
  in: (typeof PARAMETER_LOCATIONS)[number];
  type: (typeof PARAMETER_TYPES)[number];
  required: boolean;
  description: string;
};

/** Everything the form edits; numbers stay text until sent ("" is unset). */
export type EndpointDraft = {
  method: HttpMethod;
  path: string;
  title: string;
  description: string;
  docsUrl: string;
  pricingModel: PricingModel | null;
  priceSats: string;
  tokenBudget: string;
  durationMinutes: string;
  unitCostSats: string;
  freeTryEnabled: boolean;
  cacheTtlSeconds: string;
  streaming: boolean;
  maxStreamSeconds: string;
  idleTimeoutSeconds: string;
  rateLimitPerMinute: string;
  forwardCookies: boolean;
  parameters: ParameterDraft[];
  exampleRequest: string;
  exampleResponse: string;
  isActive: boolean;
};

/** Field name -> message, keyed like the API's `details.fields` (`parameters.0.name`). */
export type DraftErrors = Record<string, string>;

/** What each pricing model means, in one sentence (spec 2.2), and how its numbers are labelled. */
export const PRICING_MODEL_HELP: Record<PricingModel | "free", { title: string; sentence: string }> = {
  free: { title: "Free", sentence: "Anyone can call it without paying; the gateway still counts calls and applies the rate limit." },
  per_request: { title: "Per request", sentence: "Each request is paid on its own, at a fixed price." },
  per_kb: { title: "Per KB", sentence: "A deposit opens a session, and each response deducts sats in proportion to its size in KB." },
  token_bucket: { title: "Token bucket", sentence: "One payment buys a number of requests; each request uses one." },
  time_pass: { title: "Time pass", sentence: "One payment buys unlimited requests for a time window." },
  metered: { title: "Metered", sentence: "A deposit opens a prepaid balance, and each request deducts a fixed unit cost." },
};

/** Labels of the pricing fields, which depend on the model (priceSats is a price or a deposit). */
export function pricingFieldLabel(model: PricingModel, field: (typeof PRICING_FIELDS)[number]): string {
  switch (field) {
    case "priceSats":
      return model === "per_kb" || model === "metered"
        ? "Deposit (sats)"
        : model === "token_bucket"
          ? "Price of the bundle (sats)"
          : model === "time_pass"
            ? "Price of the pass (sats)"
            : "Price per request (sats)";
    case "tokenBudget":
      return "Requests per purchase";
    case "durationMinutes":
      return "Pass duration (minutes)";
    case "unitCostSats":
      return model === "per_kb" ? "Sats per KB" : "Sats per call";
  }
}

let nextKey = 1;
/** A blank parameter row. */
export function newParameter(): ParameterDraft {
  return { key: `p${nextKey++}`, name: "", in: "query", type: "string", required: false, description: "" };
}

const text = (n: number | null) => (n === null ? "" : String(n));
const json = (value: Record<string, unknown> | null) => (value === null ? "" : JSON.stringify(value, null, 2));

/** The form state of a new endpoint (the API's defaults) or of a stored one. */
export function draftFrom(endpoint: EndpointResponse | null): EndpointDraft {
  const e = endpoint ?? { ...ENDPOINT_DEFAULTS, method: "GET", path: "", parameters: [] };
  return {
    method: e.method as HttpMethod,
    path: e.path,
    title: e.title,
    description: e.description,
    docsUrl: e.docsUrl ?? "",
    pricingModel: e.pricingModel,
    priceSats: text(e.priceSats),
    tokenBudget: text(e.tokenBudget),
    durationMinutes: text(e.durationMinutes),
    unitCostSats: text(e.unitCostSats),
    freeTryEnabled: e.freeTryEnabled,
    cacheTtlSeconds: text(e.cacheTtlSeconds),
    streaming: e.streaming,
    maxStreamSeconds: text(e.maxStreamSeconds),
    idleTimeoutSeconds: text(e.idleTimeoutSeconds),
    rateLimitPerMinute: text(e.rateLimitPerMinute),
    forwardCookies: e.forwardCookies,
    parameters: e.parameters.map((p) => ({
      ...newParameter(),
      name: p.name,
      in: p.in,
      type: (PARAMETER_TYPES as readonly string[]).includes(p.type) ? (p.type as ParameterDraft["type"]) : "string",
      required: p.required,
      description: p.description,
    })),
    exampleRequest: json(e.exampleRequest),
    exampleResponse: json(e.exampleResponse),
    isActive: e.isActive,
  };
}

/** "" -> null; digits -> a number; anything else -> NaN, which the schema refuses as not an integer. */
function numberOrNull(value: string): number | null {
  const trimmed = value.trim();
  if (trimmed === "") return null;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

function parseJsonObject(value: string, field: string, errors: DraftErrors): Record<string, unknown> | null {
  if (value.trim() === "") return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      errors[field] = "must be a JSON object ({ … })";
      return null;
    }
    return parsed as Record<string, unknown>;
  } catch (err) {
    errors[field] = `is not valid JSON: ${(err as Error).message}`;
    return null;
  }
}

/**
 * The full request body (create or PATCH alike): fields the chosen model or options do not use
 * are sent as null, so nothing hidden from the provider is ever stored. `jsonErrors` names example
 * textareas that do not parse (their value is sent as null meanwhile).
 */
export function draftToBody(draft: EndpointDraft): { body: Record<string, unknown>; jsonErrors: DraftErrors } {
  const jsonErrors: DraftErrors = {};
  const used = draft.pricingModel ? MODEL_FIELDS[draft.pricingModel] : [];
  const pricing = Object.fromEntries(PRICING_FIELDS.map((field) => [field, used.includes(field) ? numberOrNull(draft[field]) : null]));
  const body = {
    method: draft.method,
    path: draft.path.trim(),
    title: draft.title,
    description: draft.description,
    docsUrl: draft.docsUrl.trim() === "" ? null : draft.docsUrl.trim(),
    pricingModel: draft.pricingModel,
    ...pricing,
    freeTryEnabled: draft.pricingModel !== null && draft.freeTryEnabled,
    cacheTtlSeconds: draft.streaming ? null : numberOrNull(draft.cacheTtlSeconds),
    streaming: draft.streaming,
    maxStreamSeconds: draft.streaming ? numberOrNull(draft.maxStreamSeconds) : null,
    idleTimeoutSeconds: draft.streaming ? numberOrNull(draft.idleTimeoutSeconds) : null,
    rateLimitPerMinute: numberOrNull(draft.rateLimitPerMinute),
    forwardCookies: draft.forwardCookies,
    parameters: draft.parameters.map((p) => ({
      name: p.name.trim(),
      in: p.in,
      type: p.type,
      required: p.in === "path" ? true : p.required,
      description: p.description,
    })),
    exampleRequest: parseJsonObject(draft.exampleRequest, "exampleRequest", jsonErrors),
    exampleResponse: parseJsonObject(draft.exampleResponse, "exampleResponse", jsonErrors),
    isActive: draft.isActive,
  };
  return { body, jsonErrors };
}

/**
 * Validates the body with the API's schema; errors keyed like the API's 422 (first per field).
 * zod skips the cross-field rules while any single field is invalid (so does the API, one round
 * later); the form runs them anyway, so e.g. the per_kb + streaming explanation shows at once.
 */
export function validateDraft(draft: EndpointDraft): { body: Record<string, unknown>; errors: DraftErrors } {
  const { body, jsonErrors } = draftToBody(draft);
  const result = endpointCreateSchema.safeParse(body);
  const errors: DraftErrors = { ...jsonErrors };
  const add = (path: PropertyKey[], message: string) => {
    errors[path.map(String).join(".") || "form"] ??= message;
  };
  if (!result.success) {
    for (const issue of result.error.issues) add(issue.path, issue.message);
    const ctx = { value: body, addIssue: (issue: { path?: PropertyKey[]; message?: string }) => add(issue.path ?? [], issue.message ?? "is invalid") };
    checkEndpointRules(body as unknown as Parameters<typeof checkEndpointRules>[0], ctx as unknown as z.RefinementCtx);
  }
  return { body, errors };
}

/** The pricing rule the preview describes: the model with whatever valid numbers are filled in. */
export function draftPriceRule(draft: EndpointDraft): PriceRule & { tokenBudget: number | null; durationMinutes: number | null; unitCostSats: number | null } {
  const { body } = draftToBody(draft);
  const valid = (v: unknown) => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : null);
  return {
    pricingModel: draft.pricingModel,
    priceSats: valid(body.priceSats),
    tokenBudget: valid(body.tokenBudget),
    durationMinutes: valid(body.durationMinutes),
    unitCostSats: valid(body.unitCostSats),
  };
}
