// External listing resource (spec 2.5, 4.4, 8): the submission body with every bound of spec 8, the
// endpoint metadata item, the review's findings and the status view. The gateway URL's address check
// (DNS, SSRF rules) is async and runs in ./submit-listing.ts, not here.
import { z } from "zod";
import { PRICING_MODELS } from "@/lib/pricing/quote.ts";
import { tagsSchema } from "@/lib/tenants/schemas.ts";

/** Longest gateway URL and endpoint path we store. */
export const MAX_URL_LENGTH = 2048;
/** Most endpoints one submission may declare (the review checks at most REVIEW_ENDPOINT_CAP of them). */
export const MAX_SUBMITTED_ENDPOINTS = 50;
/** Largest declared price (1,000,000 sats = 0.01 BTC per call): anything above is a typo. */
export const MAX_PRICE_SATS = 1_000_000;
/** Methods a listed endpoint may declare. */
export const LISTING_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Length in characters as people count them (code points), so one emoji is one character. */
const codePoints = (text: string) => [...text].length;
/** A string of at most `max` code points (spec 8 counts characters, not UTF-16 units). */
const boundedText = (max: number) => z.string({ message: "must be a string" }).refine((text) => codePoints(text) <= max, `must be at most ${max} characters`);

/** Spec 2.5: URL-safe, 3-63 characters, letters, digits and hyphens; stored lowercased (one namespace with workspaces). */
export const listingSlugSchema = z
  .string({ message: "must be a string" })
  .min(3, "must be at least 3 characters")
  .max(63, "must be at most 63 characters")
  .regex(/^[A-Za-z0-9-]+$/, "use only letters, digits and hyphens")
  .transform((slug) => slug.toLowerCase());

/** One endpoint as a submission (or a discovery document) declares it; absent pricingModel means free. */
export const listingEndpointSchema = z
  .strictObject({
    path: z
      .string({ message: "must be a string" })
      .min(1, "must not be empty")
      .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
      .regex(/^\/[^\s?#]*$/, "must start with / and hold no spaces, query or fragment"),
    method: z
      .string({ message: "must be a string" })
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(LISTING_METHODS, { message: `must be one of ${LISTING_METHODS.join(", ")}` })),
    title: boundedText(200).default(""),
    description: boundedText(1000).default(""),
    pricingModel: z.enum(PRICING_MODELS, { message: `must be one of ${PRICING_MODELS.join(", ")} (omit it for a free endpoint)` }).nullish(),
    priceSats: z
      .number({ message: "must be a whole number of sats" })
      .int("must be a whole number of sats")
      .min(0, "must not be negative")
      .max(MAX_PRICE_SATS, `must be at most ${MAX_PRICE_SATS}`)
      .optional(),
  })
  .superRefine((e, ctx) => {
    if (e.pricingModel && !e.priceSats)
      ctx.addIssue({ code: "custom", path: ["priceSats"], message: `is required (at least 1) with pricingModel ${e.pricingModel}` });
    if (!e.pricingModel && e.priceSats)
      ctx.addIssue({ code: "custom", path: ["pricingModel"], message: "is required when priceSats is set (omit both for a free endpoint)" });
  })
  .transform((e) => ({ ...e, pricingModel: e.pricingModel ?? null, priceSats: e.pricingModel ? (e.priceSats ?? 0) : 0 }));

/** An endpoint the review checks. */
export type ListingEndpoint = z.output<typeof listingEndpointSchema>;

/** POST /api/external-listings (spec 2.5). Unknown fields are refused so a typo is not silently dropped. */
export const listingSubmitSchema = z.strictObject({
  slug: listingSlugSchema,
  name: boundedText(200)
    .transform((s) => s.trim())
    .refine((s) => s.length > 0, "must not be empty"),
  description: boundedText(1000)
    .transform((s) => s.trim())
    .default(""),
  tags: tagsSchema.default([]),
  gatewayUrl: z
    .string({ message: "must be a string" })
    .trim()
    .min(1, "must not be empty")
    .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
    .superRefine((raw, ctx) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return void ctx.addIssue({ code: "custom", message: "must be an absolute URL such as https://api.example.com" });
      }
      if (url.protocol !== "https:") ctx.addIssue({ code: "custom", message: `must use https (got ${url.protocol.replace(/:$/, "")})` });
      else if (url.username || url.password) ctx.addIssue({ code: "custom", message: "must not contain a user name or password" });
      else if (url.search || url.hash) ctx.addIssue({ code: "custom", message: "must be a base address without query or fragment" });
    })
    // The base every endpoint path is appended to: no trailing slash.
    .transform((raw) => {
      const url = new URL(raw);
      return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
    }),
  contactEmail: z
    .email({ message: "must be an e-mail address" })
    .max(254, "must be at most 254 characters")
    .transform((e) => e.toLowerCase()),
  endpoints: z
    .array(listingEndpointSchema, { message: "must be an array of endpoints" })
    .min(1, "must list at least one endpoint (or omit it to use the gateway's discovery file)")
    .max(MAX_SUBMITTED_ENDPOINTS, `at most ${MAX_SUBMITTED_ENDPOINTS} endpoints`)
    .optional(),
});
/** A validated submission (slug and e-mail lowercased, gateway URL without trailing slash). */
export type ListingSubmission = z.output<typeof listingSubmitSchema>;

/** What a review check concluded. `skip`: not checked (and why), never a reason to reject. */
export const FINDING_OUTCOMES = ["pass", "fail", "skip"] as const;

/** One finding of the automated review; every one is kept and shown. */
export const listingFindingSchema = z.object({
  /** content, discovery, endpoints, reachability, free_access, challenge, invoice, payment, paid_response, review */
  check: z.string(),
  /** `METHOD /path` of the endpoint, or null for the listing as a whole. */
  endpoint: z.string().nullable(),
  outcome: z.enum(FINDING_OUTCOMES),
  message: z.string(),
});
export type ListingFinding = z.output<typeof listingFindingSchema>;

/** GET /api/external-listings/:slug/status (spec 2.5), plus the review once it decided. */
export const listingStatusSchema = z.object({
  slug: z.string(),
  name: z.string(),
  status: z.enum(["pending", "approved", "rejected", "suspended"]),
  createdAt: z.string(),
  /** Present once the review decided: when, its one-line summary and every finding. */
  reviewedAt: z.string().optional(),
  summary: z.string().optional(),
  /** Each finding plus `ok` (false exactly when `outcome` is `fail`), the flag the listing page reads. */
  findings: z.array(listingFindingSchema.extend({ ok: z.boolean() })).optional(),
});
export type ListingStatusView = z.output<typeof listingStatusSchema>;

/** POST's answer (202: the review runs in the worker): the status view and where to poll it. */
export const listingSubmittedSchema = listingStatusSchema.extend({ statusUrl: z.string() });
