// Turns database rows into the spec's directory shapes (pure). Every directory surface goes
// through here so the list, the detail page and later the feed and llms.txt agree field by field.
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { Endpoint, Tenant } from "@/lib/db/generated/client.ts";
import {
  endpointParameterSchema,
  type DirectoryEntry,
  type EndpointDetail,
  type EndpointEntry,
  type EndpointParameter,
  type HealthQuality,
} from "./schemas.ts";

/** The endpoint columns the directory reads. */
export type EndpointRow = Pick<
  Endpoint,
  | "path"
  | "method"
  | "title"
  | "description"
  | "docsUrl"
  | "pricingModel"
  | "priceSats"
  | "tokenBudget"
  | "durationMinutes"
  | "unitCostSats"
  | "freeTryEnabled"
  | "exampleRequest"
  | "exampleResponse"
  | "parameters"
  | "streaming"
>;

export type TenantRow = Pick<Tenant, "slug" | "name" | "description" | "tags"> & { endpoints: EndpointRow[] };

/** Exactly the endpoint columns an entry is built from (a directory page reads hundreds of rows). */
export const endpointRowSelect = {
  path: true,
  method: true,
  title: true,
  description: true,
  docsUrl: true,
  pricingModel: true,
  priceSats: true,
  tokenBudget: true,
  durationMinutes: true,
  unitCostSats: true,
  freeTryEnabled: true,
  exampleRequest: true,
  exampleResponse: true,
  parameters: true,
  streaming: true,
} as const satisfies { [K in keyof EndpointRow]: true };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Example request: an object such as {query, body}; anything else carries no usable example. */
function exampleRequestOf(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** Example response: the spec types it as an object, so an array or scalar body is kept as {body}. */
function exampleResponseOf(value: unknown): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  return isPlainObject(value) ? value : { body: value };
}

/** Stored parameters are provider-entered JSON; malformed items are skipped, not fatal. */
export function parametersOf(value: unknown): EndpointParameter[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = endpointParameterSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

/**
 * Endpoint entry (spec 2.4); a free endpoint is pricingModel null with priceSats 0. A model
 * without a price is shown as free because the gateway serves it free (lib/pricing/quote.ts).
 */
export function toEndpointEntry(row: EndpointRow): EndpointEntry {
  const free = row.pricingModel === null || row.priceSats === null;
  return {
    path: row.path,
    method: row.method.toUpperCase(),
    title: row.title,
    description: row.description,
    docsUrl: row.docsUrl,
    pricingModel: free ? null : row.pricingModel,
    priceSats: free ? 0 : row.priceSats!,
    tokenBudget: free ? null : row.tokenBudget,
    durationMinutes: free ? null : row.durationMinutes,
    unitCostSats: free ? null : row.unitCostSats,
    freeTryEnabled: row.freeTryEnabled,
    exampleRequest: exampleRequestOf(row.exampleRequest),
    exampleResponse: exampleResponseOf(row.exampleResponse),
  };
}

export function toEndpointDetail(row: EndpointRow): EndpointDetail {
  return { ...toEndpointEntry(row), parameters: parametersOf(row.parameters), streaming: row.streaming };
}

/** Directory entry (spec 2.4). `tenant.endpoints` must already be the active ones, in display order. */
export function toDirectoryEntry(config: Pick<Config, "gatewayUrlTemplate">, tenant: TenantRow, quality: HealthQuality): DirectoryEntry {
  return {
    slug: tenant.slug,
    name: tenant.name,
    description: tenant.description,
    tags: tenant.tags ?? [],
    gatewayDomain: gatewayUrlFor(config, tenant.slug),
    endpointCount: tenant.endpoints.length,
    quality,
    endpoints: tenant.endpoints.map(toEndpointEntry),
  };
}

/**
 * Active endpoints in the order the provider added them (usually the order they want them read),
 * then by path and method so that the order is stable when several were created together.
 */
export const endpointDisplayOrder = [{ createdAt: "asc" }, { path: "asc" }, { method: "asc" }] as const;
