// The submission contract the "List your L402 API" page speaks (spec 2.5, 4.4), in one place so a
// difference from the route's final shapes is fixed here alone: the request body, the bounds the
// form hints at, the 422 body (the platform's one error model, lib/errors: `details.fields`) and
// the status view with the review's findings.
import { PRICING_MODELS, type PricingModel } from "@/lib/pricing/quote.ts";

/** Where the page sends the submission and reads the status. */
export const listingRoutes = {
  submit: "/api/external-listings",
  status: (slug: string) => `/api/external-listings/${encodeURIComponent(slug)}/status`,
};

/** Spec 2.5 and spec 8 bounds, shown as hints and checked before sending (the API checks again). */
export const listingBounds = {
  slugMin: 3,
  slugMax: 63,
  slugPattern: /^[A-Za-z0-9-]+$/,
  nameMax: 200,
  descriptionMax: 1000,
  tagsMax: 10,
} as const;

export const endpointMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const listingPricingModels = PRICING_MODELS;

/** One declared endpoint (spec 2.5 "external endpoint metadata"); a free one has no pricingModel. */
export type ListingEndpointInput = {
  path: string;
  method: string;
  title?: string;
  description?: string;
  pricingModel?: PricingModel;
  priceSats?: number;
};

/** The body of POST /external-listings (spec 2.5); `endpoints` omitted = discovered by the review. */
export type ListingSubmission = {
  slug: string;
  name: string;
  description?: string;
  tags?: string[];
  gatewayUrl: string;
  contactEmail: string;
  endpoints?: ListingEndpointInput[];
};

export type ListingStatusValue = "pending" | "approved" | "rejected" | "suspended";

/** One check of the automated review. */
export type ListingFinding = { endpoint?: string | null; check: string; ok: boolean; message: string };

/** GET /external-listings/:slug/status: the spec 2.5 status view plus, once decided, the review's summary and findings. */
export type ListingStatusView = {
  slug: string;
  name: string;
  status: ListingStatusValue;
  createdAt: string;
  reviewedAt?: string;
  summary?: string;
  findings?: ListingFinding[];
};

/** Statuses after which the page stops polling. */
export function isDecided(status: ListingStatusValue): boolean {
  return status !== "pending";
}

/** Field -> message from an error body `{error: {message, details: {fields: [{field, message}]}}}`. */
export function fieldErrorsOf(body: unknown): Record<string, string> {
  const fields = (body as { error?: { details?: { fields?: unknown } } } | null)?.error?.details?.fields;
  const out: Record<string, string> = {};
  if (!Array.isArray(fields)) return out;
  for (const item of fields) {
    const { field, message } = (item ?? {}) as { field?: unknown; message?: unknown };
    if (typeof field === "string" && typeof message === "string" && !(field in out)) out[field] = message;
  }
  return out;
}

/** An endpoint row as the form holds it (strings, as inputs give them). */
export type EndpointRowInput = { path: string; method: string; title: string; pricingModel: PricingModel | ""; priceSats: string };

/** The form's fields as typed. */
export type ListingFormInput = {
  slug: string;
  name: string;
  description: string;
  tags: string;
  gatewayUrl: string;
  contactEmail: string;
  endpoints: EndpointRowInput[];
};

/** Comma-separated tags as a list (blank items dropped). */
export function tagsOf(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The request body from the form (pure); no endpoint rows means "discover them". */
export function submissionOf(form: ListingFormInput): ListingSubmission {
  const endpoints = form.endpoints.map((row): ListingEndpointInput => {
    const item: ListingEndpointInput = { path: row.path.trim(), method: row.method };
    if (row.title.trim()) item.title = row.title.trim();
    if (row.pricingModel) {
      item.pricingModel = row.pricingModel;
      item.priceSats = Number(row.priceSats);
    }
    return item;
  });
  return {
    slug: form.slug.trim(),
    name: form.name.trim(),
    ...(form.description.trim() ? { description: form.description.trim() } : {}),
    ...(tagsOf(form.tags).length ? { tags: tagsOf(form.tags) } : {}),
    gatewayUrl: form.gatewayUrl.trim(),
    contactEmail: form.contactEmail.trim(),
    ...(endpoints.length ? { endpoints } : {}),
  };
}

/**
 * The bounds checked in the browser before sending, keyed like the API's 422 fields so both land
 * beside the same inputs. The API stays the authority (it also checks the address and the slug).
 */
export function checkListingForm(form: ListingFormInput): Record<string, string> {
  const errors: Record<string, string> = {};
  const slug = form.slug.trim();
  if (slug.length < listingBounds.slugMin || slug.length > listingBounds.slugMax)
    errors.slug = `must be ${listingBounds.slugMin} to ${listingBounds.slugMax} characters`;
  else if (!listingBounds.slugPattern.test(slug)) errors.slug = "may contain only letters, digits and hyphens";
  if (!form.name.trim()) errors.name = "is required";
  else if (form.name.trim().length > listingBounds.nameMax) errors.name = `must be at most ${listingBounds.nameMax} characters`;
  if (form.description.trim().length > listingBounds.descriptionMax) errors.description = `must be at most ${listingBounds.descriptionMax} characters`;
  if (tagsOf(form.tags).length > listingBounds.tagsMax) errors.tags = `at most ${listingBounds.tagsMax} tags`;
  let url: URL | null;
  try {
    url = new URL(form.gatewayUrl.trim());
  } catch {
    url = null;
  }
  if (!url) errors.gatewayUrl = "must be an absolute address such as https://api.example.com";
  else if (url.protocol !== "https:") errors.gatewayUrl = "must use https";
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(form.contactEmail.trim())) errors.contactEmail = "must be an e-mail address";
  form.endpoints.forEach((row, i) => {
    if (!row.path.trim().startsWith("/")) errors[`endpoints.${i}.path`] = "must start with /";
    if (row.pricingModel && !(/^\d+$/.test(row.priceSats.trim()) && Number(row.priceSats) >= 1))
      errors[`endpoints.${i}.priceSats`] = "must be a whole number of sats, at least 1";
  });
  return errors;
}
