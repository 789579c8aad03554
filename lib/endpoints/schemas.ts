// Endpoint resource (spec 2.2 pricing rule + 2.4 endpoint entry): request schemas, the pricing and
// streaming rules every saved endpoint obeys, and the response schema.
//
// Rules (one for every optional field): a field that the endpoint's pricing model or options do
// not use is REJECTED with a 422 naming it (send null or omit it), never silently stored. On PATCH
// the rules apply to the merged result; stored values made irrelevant by the change (for example
// tokenBudget after switching token_bucket -> per_request) are cleared, while the same field sent
// in the PATCH body is rejected. See mergeEndpointUpdate in update-endpoint.ts.
import { z } from "zod";
import { PRICING_MODELS, type PricingModel } from "@/lib/pricing/quote.ts";

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const PRICING_FIELDS = ["priceSats", "tokenBudget", "durationMinutes", "unitCostSats"] as const;
export type PricingField = (typeof PRICING_FIELDS)[number];

/** Which pricing fields each model needs; every other pricing field must be null. */
export const MODEL_FIELDS: Record<PricingModel, readonly PricingField[]> = {
  per_request: ["priceSats"],
  per_kb: ["priceSats", "unitCostSats"], // deposit + sats per KB
  token_bucket: ["priceSats", "tokenBudget"],
  time_pass: ["priceSats", "durationMinutes"],
  metered: ["priceSats", "unitCostSats"], // deposit + sats per call
};

/** Upper bounds: generous for real use, small enough to keep arithmetic and Int columns safe. */
export const ENDPOINT_LIMITS = {
  maxSats: 100_000_000, // 1 BTC
  maxTokenBudget: 1_000_000,
  maxDurationMinutes: 525_600, // 365 days
  maxCacheTtlSeconds: 86_400,
  maxStreamSeconds: 86_400,
  maxIdleTimeoutSeconds: 3_600,
  maxRateLimitPerMinute: 100_000,
  maxPathLength: 512,
  maxParameters: 50,
  maxExampleBytes: 64_000,
} as const;

const PATH_PARAM = /^\{([A-Za-z0-9_]+)\}$/;
const PATH_LITERAL = /^[A-Za-z0-9._~-]+$/;

/** Names of the `{param}` segments of a path template, in order. */
export function pathParameterNames(path: string): string[] {
  return path
    .split("/")
    .map((segment) => PATH_PARAM.exec(segment)?.[1])
    .filter((name): name is string => Boolean(name));
}

/**
 * Why a path template is invalid, or null. `/` alone is the gateway root; otherwise segments are
 * non-empty (no `//`, no trailing `/`: the gateway matches `/a` and `/a/` alike), and each is a
 * literal of [A-Za-z0-9._~-] or a whole-segment `{param}`; `.` and `..` segments are refused.
 */
export function pathTemplateProblem(path: string): string | null {
  if (!path.startsWith("/")) return "must start with /";
  if (path === "/") return null;
  const seen = new Set<string>();
  for (const segment of path.slice(1).split("/")) {
    if (segment === "") return "must not contain empty segments (// or a trailing /)";
    if (segment === "." || segment === "..") return "must not contain . or .. segments";
    const param = PATH_PARAM.exec(segment);
    if (param) {
      if (seen.has(param[1])) return `declares {${param[1]}} twice`;
      seen.add(param[1]);
    } else if (!PATH_LITERAL.test(segment)) {
      return `segment "${segment}" may only use A-Z a-z 0-9 . _ ~ - or be a whole {param} (letters, digits, _)`;
    }
  }
  return null;
}

const positive = (max: number) => z.int("must be an integer").min(1, "must be a positive integer").max(max, `must be at most ${max}`);

const jsonObject = z
  .record(z.string(), z.json())
  .refine((value) => JSON.stringify(value).length <= ENDPOINT_LIMITS.maxExampleBytes, `must be at most ${ENDPOINT_LIMITS.maxExampleBytes} bytes of JSON`);

export const PARAMETER_LOCATIONS = ["path", "query", "header", "body"] as const;
export const PARAMETER_TYPES = ["string", "integer", "number", "boolean", "object", "array"] as const;

/** A documented request parameter (directory, OpenAPI and MCP tool schemas are built from these). */
export const parameterSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.[\]-]+$/, "use letters, digits, _ . - [ ]"),
  in: z.enum(PARAMETER_LOCATIONS),
  /** Defaults to true for path parameters (which are always required), false otherwise. */
  required: z.boolean().optional(),
  type: z.enum(PARAMETER_TYPES).default("string"),
  description: z.string().max(500).default(""),
});
export type EndpointParameter = {
  name: string;
  in: (typeof PARAMETER_LOCATIONS)[number];
  required: boolean;
  type: (typeof PARAMETER_TYPES)[number];
  description: string;
};

/** Every writable field, each validated on its own; cross-field rules are in checkEndpointRules. */
const endpointFields = {
  method: z.preprocess((v) => (typeof v === "string" ? v.toUpperCase() : v), z.enum(HTTP_METHODS)),
  path: z
    .string()
    .max(ENDPOINT_LIMITS.maxPathLength, `must be at most ${ENDPOINT_LIMITS.maxPathLength} characters`)
    .superRefine((path, ctx) => {
      const problem = pathTemplateProblem(path);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  title: z.string().trim().max(200),
  description: z.string().trim().max(2000),
  docsUrl: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .max(2048)
    .nullable(),
  pricingModel: z.enum(PRICING_MODELS).nullable(),
  priceSats: positive(ENDPOINT_LIMITS.maxSats).nullable(),
  tokenBudget: positive(ENDPOINT_LIMITS.maxTokenBudget).nullable(),
  durationMinutes: positive(ENDPOINT_LIMITS.maxDurationMinutes).nullable(),
  unitCostSats: positive(ENDPOINT_LIMITS.maxSats).nullable(),
  freeTryEnabled: z.boolean(),
  cacheTtlSeconds: positive(ENDPOINT_LIMITS.maxCacheTtlSeconds).nullable(),
  streaming: z.boolean(),
  maxStreamSeconds: positive(ENDPOINT_LIMITS.maxStreamSeconds).nullable(),
  idleTimeoutSeconds: positive(ENDPOINT_LIMITS.maxIdleTimeoutSeconds).nullable(),
  rateLimitPerMinute: positive(ENDPOINT_LIMITS.maxRateLimitPerMinute).nullable(),
  forwardCookies: z.boolean(),
  parameters: z.array(parameterSchema).max(ENDPOINT_LIMITS.maxParameters),
  exampleRequest: jsonObject.nullable(),
  exampleResponse: jsonObject.nullable(),
  isActive: z.boolean(),
};

/** A complete, valid endpoint configuration: what is stored. */
export type EndpointConfig = {
  method: HttpMethod;
  path: string;
  title: string;
  description: string;
  docsUrl: string | null;
  pricingModel: PricingModel | null;
  priceSats: number | null;
  tokenBudget: number | null;
  durationMinutes: number | null;
  unitCostSats: number | null;
  freeTryEnabled: boolean;
  cacheTtlSeconds: number | null;
  streaming: boolean;
  maxStreamSeconds: number | null;
  idleTimeoutSeconds: number | null;
  rateLimitPerMinute: number | null;
  /** Relay cookies between clients and the origin (the platform's own never); off strips them both ways. */
  forwardCookies: boolean;
  parameters: EndpointParameter[];
  exampleRequest: Record<string, unknown> | null;
  exampleResponse: Record<string, unknown> | null;
  isActive: boolean;
};

type ParameterInput = z.output<typeof parameterSchema>;
type EndpointDraft = Omit<EndpointConfig, "parameters"> & { parameters: ParameterInput[] };

/** Values of omitted fields on create: a free, active, non-streaming endpoint. */
export const ENDPOINT_DEFAULTS: Omit<EndpointConfig, "method" | "path"> = {
  title: "",
  description: "",
  docsUrl: null,
  pricingModel: null,
  priceSats: null,
  tokenBudget: null,
  durationMinutes: null,
  unitCostSats: null,
  freeTryEnabled: false,
  cacheTtlSeconds: null,
  streaming: false,
  maxStreamSeconds: null,
  idleTimeoutSeconds: null,
  rateLimitPerMinute: null,
  forwardCookies: false,
  parameters: [],
  exampleRequest: null,
  exampleResponse: null,
  isActive: true,
};

const PER_KB_STREAMING =
  "per_kb endpoints cannot stream: a stream is priced as a connection, never per byte, so there is no response size to charge per KB. Use per_request, token_bucket, time_pass or metered for streams";

/**
 * The cross-field rules of a complete draft (pure; shared by create, update and the dashboard form).
 * Issues are reported on the offending field so the 422 names it.
 */
export function checkEndpointRules(draft: EndpointDraft, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });
  const model = draft.pricingModel;
  if (model === null) {
    for (const field of PRICING_FIELDS) {
      if (draft[field] !== null) issue([field], "a free endpoint (pricingModel null) takes no pricing fields; set a pricingModel or omit it");
    }
    if (draft.freeTryEnabled) issue(["freeTryEnabled"], "free try only applies to priced endpoints");
  } else {
    const used = MODEL_FIELDS[model];
    for (const field of PRICING_FIELDS) {
      if (used.includes(field) && draft[field] === null) issue([field], `required by pricingModel ${model}`);
      if (!used.includes(field) && draft[field] !== null) issue([field], `not used by pricingModel ${model}; omit it or send null`);
    }
    if ((model === "per_kb" || model === "metered") && draft.priceSats !== null && draft.unitCostSats !== null && draft.unitCostSats > draft.priceSats) {
      issue(["unitCostSats"], "must not exceed priceSats: the deposit has to cover at least one unit");
    }
  }

  if (draft.streaming) {
    if (model === "per_kb") issue(["streaming"], PER_KB_STREAMING);
    if (draft.cacheTtlSeconds !== null) issue(["cacheTtlSeconds"], "streaming responses are never cached; omit it or send null");
    if (draft.maxStreamSeconds !== null && draft.idleTimeoutSeconds !== null && draft.idleTimeoutSeconds > draft.maxStreamSeconds) {
      issue(["idleTimeoutSeconds"], "must not exceed maxStreamSeconds");
    }
  } else {
    if (draft.maxStreamSeconds !== null) issue(["maxStreamSeconds"], "only applies to streaming endpoints; omit it or send null");
    if (draft.idleTimeoutSeconds !== null) issue(["idleTimeoutSeconds"], "only applies to streaming endpoints; omit it or send null");
  }

  const inPath = new Set(pathParameterNames(draft.path));
  const seen = new Set<string>();
  draft.parameters.forEach((p, i) => {
    const key = `${p.in}:${p.name}`;
    if (seen.has(key)) issue(["parameters", i, "name"], `${p.in} parameter "${p.name}" is declared twice`);
    seen.add(key);
    if (p.in === "path" && !inPath.has(p.name)) issue(["parameters", i, "name"], `path parameter "${p.name}" does not appear in path as {${p.name}}`);
    if (p.in === "path" && p.required === false) issue(["parameters", i, "required"], "path parameters are always required");
  });

  const query = draft.exampleRequest?.query;
  if (query !== undefined && (query === null || typeof query !== "object" || Array.isArray(query))) {
    issue(["exampleRequest", "query"], "must be an object of query parameters");
  }
}

/**
 * Resolves parameters: path parameters come from the path template, in its order (a declared one
 * keeps its type and description; an undeclared one is auto-declared as a required string), then
 * the other parameters as sent.
 */
export function resolveParameters(path: string, parameters: ParameterInput[]): EndpointParameter[] {
  const declared = new Map(parameters.filter((p) => p.in === "path").map((p) => [p.name, p]));
  const pathParams = pathParameterNames(path).map((name): EndpointParameter => ({
    type: "string",
    description: "",
    ...declared.get(name),
    name,
    in: "path",
    required: true,
  }));
  const others = parameters.filter((p) => p.in !== "path").map((p): EndpointParameter => ({ ...p, required: p.required ?? false }));
  return [...pathParams, ...others];
}

const finalize = (draft: EndpointDraft): EndpointConfig => ({ ...draft, parameters: resolveParameters(draft.path, draft.parameters) });

/** A complete draft (create after defaults, update after merge) -> a valid configuration. */
export const endpointConfigSchema = z.object(endpointFields).superRefine(checkEndpointRules).transform(finalize);

/** POST /api/tenants/:tenantId/endpoints: method and path required, everything else defaulted. */
export const endpointCreateSchema = z
  .strictObject(endpointFields)
  .partial()
  .required({ method: true, path: true })
  .transform((input): EndpointDraft => {
    const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
    return { ...ENDPOINT_DEFAULTS, ...defined } as EndpointDraft;
  })
  .superRefine(checkEndpointRules)
  .transform(finalize);
export type EndpointCreate = z.output<typeof endpointCreateSchema>;

/** PATCH /api/tenants/:tenantId/endpoints/:endpointId: any subset; validated again after merging. */
export const endpointUpdateSchema = z.strictObject(endpointFields).partial();
export type EndpointUpdate = z.output<typeof endpointUpdateSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** An endpoint as its workspace sees it (no tenant id, nothing internal). */
export const endpointResponseSchema = z.object({
  id: z.string(),
  method: z.string(),
  path: z.string(),
  title: z.string(),
  description: z.string(),
  docsUrl: z.string().nullable(),
  pricingModel: z.enum(PRICING_MODELS).nullable(),
  priceSats: z.number().nullable(),
  tokenBudget: z.number().nullable(),
  durationMinutes: z.number().nullable(),
  unitCostSats: z.number().nullable(),
  freeTryEnabled: z.boolean(),
  cacheTtlSeconds: z.number().nullable(),
  streaming: z.boolean(),
  maxStreamSeconds: z.number().nullable(),
  idleTimeoutSeconds: z.number().nullable(),
  rateLimitPerMinute: z.number().nullable(),
  forwardCookies: z.boolean(),
  parameters: z.array(z.object({ name: z.string(), in: z.enum(PARAMETER_LOCATIONS), required: z.boolean(), type: z.string(), description: z.string() })),
  exampleRequest: z.record(z.string(), z.unknown()).nullable(),
  exampleResponse: z.record(z.string(), z.unknown()).nullable(),
  isActive: z.boolean(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type EndpointResponse = z.output<typeof endpointResponseSchema>;

/** GET /api/tenants/:tenantId/endpoints (not paginated). */
export const endpointListResponseSchema = z.object({ endpoints: z.array(endpointResponseSchema) });
