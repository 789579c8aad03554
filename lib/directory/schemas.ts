// The directory resource (spec 2.4, 4.3): the list query, and the entry shapes every directory
// surface returns (HTML pages, the JSON API, feeds). One file so routes, pages and the SDK agree.
import { z } from "zod";
import { PRICING_MODELS } from "@/lib/pricing/quote.ts";

const pricingModelSchema = z.enum(PRICING_MODELS);

export const directorySorts = ["relevance", "recent"] as const;

/** An empty string means "not given" (an HTML form submits empty fields). */
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .optional()
    .transform((v) => (v ? v : undefined));

/** Query of `GET /directory` (spec 4.3). Numbers arrive as strings from a URL, hence coerce. */
export const directoryQuerySchema = z.object({
  search: optionalText(200),
  tag: optionalText(64),
  page: z.coerce.number().int().min(1).max(1000).default(1),
  limit: z.coerce.number().int().min(1).max(50).default(50),
  sort: z.enum(directorySorts).default("relevance"),
});
export type DirectoryQuery = z.output<typeof directoryQuerySchema>;
export type DirectoryQueryInput = z.input<typeof directoryQuerySchema>;

/**
 * For HTML pages: a hand-edited URL with one bad parameter (page=abc) should still render the
 * directory, so each invalid parameter falls back to its default instead of failing the request.
 * `defaults` replaces the schema's defaults for parameters absent or invalid (a page's own page
 * size, say). The JSON API reads it strictly (parseDirectoryQueryStrict) and answers 400 naming the field.
 */
export function parseDirectoryQueryLenient(raw: Record<string, string | string[] | undefined>, defaults: Partial<DirectoryQuery> = {}): DirectoryQuery {
  const input: Record<string, string> = {};
  for (const key of Object.keys(directoryQuerySchema.shape)) {
    const value = raw[key];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) input[key] = first;
  }
  let parsed = directoryQuerySchema.safeParse(input);
  while (!parsed.success) {
    const bad = parsed.error.issues.map((issue) => String(issue.path[0])).filter((key) => key in input);
    // An issue not tied to a given parameter cannot be fixed by dropping one: drop them all.
    for (const key of bad.length ? bad : Object.keys(input)) delete input[key];
    parsed = directoryQuerySchema.safeParse(input);
  }
  const query: DirectoryQuery = { ...parsed.data };
  for (const key of Object.keys(defaults) as (keyof DirectoryQuery)[]) {
    if (!(key in input)) Object.assign(query, { [key]: defaults[key] });
  }
  return query;
}

/** One documented parameter of an endpoint, as providers describe it in the dashboard. */
export const endpointParameterSchema = z.object({
  name: z.string().min(1),
  in: z.enum(["query", "path", "header", "body"]).default("query"),
  required: z.boolean().default(false),
  type: z.string().default("string"),
  description: z.string().default(""),
});
export type EndpointParameter = z.infer<typeof endpointParameterSchema>;

export const healthQualitySchema = z.object({
  /** All active endpoints currently reachable (see lib/directory/quality.ts for the exact rule). */
  isHealthy: z.boolean(),
  /** 7-day share of successful probes, 0-100, null before the first probe. */
  uptimePercentage: z.number().min(0).max(100).nullable(),
  /** 7-day mean latency of successful probes, null before the first successful probe. */
  avgResponseTimeMs: z.number().nonnegative().nullable(),
});
export type HealthQuality = z.infer<typeof healthQualitySchema>;

/**
 * Endpoint entry (spec 2.4). A free endpoint has pricingModel null and priceSats 0: the spec's
 * enum has no "free" value and says an absent pricing rule means free.
 */
export const endpointEntrySchema = z.object({
  path: z.string(),
  method: z.string(),
  title: z.string(),
  description: z.string(),
  docsUrl: z.string().nullable(),
  pricingModel: pricingModelSchema.nullable(),
  priceSats: z.number().int().nonnegative(),
  tokenBudget: z.number().int().nullable(),
  durationMinutes: z.number().int().nullable(),
  unitCostSats: z.number().int().nullable(),
  freeTryEnabled: z.boolean(),
  /** {query?, headers?, body?}; {} when the provider gave no example. */
  exampleRequest: z.record(z.string(), z.unknown()),
  /** The example response body; {} when none. Non-object bodies are wrapped as {body}. */
  exampleResponse: z.record(z.string(), z.unknown()),
});
export type EndpointEntry = z.infer<typeof endpointEntrySchema>;

/** Directory entry (spec 2.4), as listed by `GET /directory`. */
export const directoryEntrySchema = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  gatewayDomain: z.string(),
  endpointCount: z.number().int().nonnegative(),
  quality: healthQualitySchema,
  endpoints: z.array(endpointEntrySchema),
  /**
   * An external listing (a self-hosted L402 gateway, spec 2.5) rather than a hosted tenant. The
   * spec names it in the detail view; list entries carry it too so every surface can mark them.
   */
  isExternal: z.boolean(),
});
export type DirectoryEntry = z.infer<typeof directoryEntrySchema>;

/** List envelope of `GET /directory` (spec 2.4). */
export const directoryListSchema = z.object({
  entries: z.array(directoryEntrySchema),
  /** Every tag in the directory (lowercase), most used first; see listDirectoryTags for counts. */
  tags: z.array(z.string()),
  total: z.number().int().nonnegative(),
  hasMore: z.boolean(),
});
export type DirectoryList = z.infer<typeof directoryListSchema>;

/**
 * Detail endpoint entry: the list entry plus the documented parameters. The spec calls the detail
 * view "full details"; parameters are an addition the API page needs for its parameter table.
 */
export const endpointDetailSchema = endpointEntrySchema.extend({
  parameters: z.array(endpointParameterSchema),
  /** Answers with a server-sent event stream (spec 4.7); the API page's try-it shows it live. */
  streaming: z.boolean(),
});
export type EndpointDetail = z.infer<typeof endpointDetailSchema>;

/** Detail view of `GET /directory/:slug` (spec 2.4). */
export const directoryDetailSchema = directoryEntrySchema.extend({
  endpoints: z.array(endpointDetailSchema),
  /** Hex public key of the provider's node; null when the wallet has not reported one. */
  walletPubkey: z.string().nullable(),
});
export type DirectoryDetail = z.infer<typeof directoryDetailSchema>;

/** Categories response of `GET /directory/categories` (spec 2.4). */
export const tagCountSchema = z.object({ tag: z.string(), count: z.number().int().positive() });
export type TagCount = z.infer<typeof tagCountSchema>;

/** Categories response of `GET /directory/categories` (spec 2.4): `total` counts the categories. */
export const directoryCategoriesSchema = z.object({ categories: z.array(tagCountSchema), total: z.number().int().nonnegative() });
export type DirectoryCategories = z.infer<typeof directoryCategoriesSchema>;

/** A query parameter the JSON API refused, and why (the 400 names each one). */
export type QueryProblem = { field: string; message: string };

/**
 * For the JSON API: the strict reading of `GET /directory`'s query. Unknown parameters are ignored
 * (tracking tags and cache busters are common); a known one given twice, or out of range, is a
 * problem naming it. The HTML pages use parseDirectoryQueryLenient instead.
 */
export function parseDirectoryQueryStrict(params: URLSearchParams): { ok: true; query: DirectoryQuery } | { ok: false; problems: QueryProblem[] } {
  const input: Record<string, string> = {};
  const problems: QueryProblem[] = [];
  for (const key of Object.keys(directoryQuerySchema.shape)) {
    const values = params.getAll(key);
    if (values.length > 1) problems.push({ field: key, message: "must be given at most once" });
    else if (values.length === 1) input[key] = values[0];
  }
  const parsed = directoryQuerySchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push({ field: String(issue.path[0] ?? "query"), message: issue.message });
  }
  if (problems.length || !parsed.success) return { ok: false, problems };
  return { ok: true, query: parsed.data };
}
