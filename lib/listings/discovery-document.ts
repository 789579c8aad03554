// Reading a listed gateway's endpoints from its discovery documents (spec 2.4, 4.2) when a
// submission omits them: our own `l402-gateway.json` layout (lib/directory/discovery.ts,
// docs/discovery.md: `endpoints[]` with method, path, title, description, `pricing` {model, priceSats}
// or null) and OpenAPI 3.x with `x-l402-pricing` on priced operations (../shared/INTEROP.md). Pure:
// the caller fetches. Items that do not fit the listing endpoint schema are counted, not guessed at.
import { listingEndpointSchema, LISTING_METHODS, MAX_SUBMITTED_ENDPOINTS, type ListingEndpoint } from "./schemas.ts";

/** Where the review looks, in order, relative to the gateway URL. */
export const DISCOVERY_PATHS = ["/.well-known/l402-gateway.json", "/.well-known/openapi.json", "/openapi.json"] as const;

/** What an endpoint's documentation offers to call it with (query values, JSON body, path values). */
export type EndpointExample = { query?: Record<string, unknown>; body?: unknown; path?: Record<string, unknown> };

/** An endpoint to review: its declared metadata and, when documented, an example request. */
export type ReviewEndpoint = ListingEndpoint & { example?: EndpointExample };

export type DiscoveredEndpoints = { endpoints: ReviewEndpoint[]; invalid: number; format: "l402-gateway.json" | "openapi" };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function pricingFields(pricing: unknown): { pricingModel?: unknown; priceSats?: unknown } {
  return isRecord(pricing) ? { pricingModel: pricing.model, priceSats: pricing.priceSats } : {};
}

function exampleOf(value: unknown): EndpointExample | undefined {
  if (!isRecord(value)) return undefined;
  return {
    ...(isRecord(value.query) ? { query: value.query } : {}),
    ...("body" in value ? { body: value.body } : {}),
    ...(isRecord(value.path) ? { path: value.path } : {}),
  };
}

function collect(items: { raw: Record<string, unknown>; example?: EndpointExample }[], format: DiscoveredEndpoints["format"]): DiscoveredEndpoints {
  const endpoints: ReviewEndpoint[] = [];
  let invalid = 0;
  for (const { raw, example } of items.slice(0, MAX_SUBMITTED_ENDPOINTS)) {
    const parsed = listingEndpointSchema.safeParse(raw);
    if (parsed.success) endpoints.push(example ? { ...parsed.data, example } : parsed.data);
    else invalid++;
  }
  return { endpoints, invalid: invalid + Math.max(0, items.length - MAX_SUBMITTED_ENDPOINTS), format };
}

/** Endpoints of an `l402-gateway.json` document, or null when the document is not one. */
export function endpointsFromGatewayDiscovery(doc: unknown): DiscoveredEndpoints | null {
  if (!isRecord(doc) || !Array.isArray(doc.endpoints)) return null;
  const items = doc.endpoints.filter(isRecord).map((e) => ({
    raw: {
      path: e.path,
      method: e.method,
      title: typeof e.title === "string" ? e.title : "",
      description: typeof e.description === "string" ? e.description : "",
      ...pricingFields(e.pricing),
    },
    example: exampleOf(e.exampleRequest),
  }));
  return collect(items, "l402-gateway.json");
}

/** The JSON example of an OpenAPI operation's request body, when it documents one. */
function requestBodyExample(operation: Record<string, unknown>): unknown {
  const content = isRecord(operation.requestBody) && isRecord(operation.requestBody.content) ? operation.requestBody.content["application/json"] : undefined;
  return isRecord(content) && "example" in content ? content.example : undefined;
}

/** Query and path values of an OpenAPI operation's parameters that carry an `example`. */
function parameterExamples(operation: Record<string, unknown>, where: "query" | "path"): Record<string, unknown> | undefined {
  if (!Array.isArray(operation.parameters)) return undefined;
  const values = Object.fromEntries(
    operation.parameters
      .filter((p): p is Record<string, unknown> => isRecord(p) && p.in === where && typeof p.name === "string" && "example" in p)
      .map((p) => [p.name as string, p.example]),
  );
  return Object.keys(values).length ? values : undefined;
}

/** Endpoints of an OpenAPI 3.x document (priced where `x-l402-pricing` says so), or null when it is not one. */
export function endpointsFromOpenApi(doc: unknown): DiscoveredEndpoints | null {
  if (!isRecord(doc) || typeof doc.openapi !== "string" || !isRecord(doc.paths)) return null;
  const items: { raw: Record<string, unknown>; example?: EndpointExample }[] = [];
  for (const [path, pathItem] of Object.entries(doc.paths)) {
    if (!isRecord(pathItem)) continue;
    for (const method of LISTING_METHODS) {
      const operation = pathItem[method.toLowerCase()];
      if (!isRecord(operation)) continue;
      const query = parameterExamples(operation, "query");
      const pathValues = parameterExamples(operation, "path");
      const body = requestBodyExample(operation);
      items.push({
        raw: {
          path,
          method,
          title: typeof operation.summary === "string" ? operation.summary : "",
          description: typeof operation.description === "string" ? operation.description : "",
          ...pricingFields(operation["x-l402-pricing"]),
        },
        example: { ...(query ? { query } : {}), ...(pathValues ? { path: pathValues } : {}), ...(body !== undefined ? { body } : {}) },
      });
    }
  }
  return collect(items, "openapi");
}
