// Turns database rows into the spec's directory shapes (pure). Every directory surface goes
// through here so the list, the detail page and later the feed and llms.txt agree field by field.
import { z } from "zod";
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { Endpoint, ExternalListing, Tenant } from "@/lib/db/generated/client.ts";
import { PRICING_MODELS } from "@/lib/pricing/quote.ts";
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
    isExternal: false,
  };
}

/** The listing columns the directory reads. */
export type ListingRow = Pick<ExternalListing, "slug" | "name" | "description" | "tags" | "gatewayUrl" | "endpoints">;

/** The listing columns an entry is built from. */
export const listingRowSelect = {
  slug: true,
  name: true,
  description: true,
  tags: true,
  gatewayUrl: true,
  endpoints: true,
} as const satisfies { [K in keyof ListingRow]: true };

/** An endpoint no page needs more of than this many of a listing's declared ones. */
export const maxListingEndpoints = 100;

/**
 * One stored item of ExternalListing.endpoints (spec 2.5 "external endpoint metadata": path,
 * method, title, description, pricingModel, priceSats), read leniently: the submission validated
 * it, but discovery may have filled it and older rows may lack fields. No model or no price = free.
 */
const storedListingEndpointSchema = z.object({
  path: z.string().min(1).max(2048),
  method: z.string().min(1).max(16).catch("GET"),
  title: z.string().max(500).catch(""),
  description: z.string().max(5000).catch(""),
  pricingModel: z.enum(PRICING_MODELS).nullable().catch(null),
  priceSats: z.number().int().nonnegative().nullable().catch(null),
});

/** A listing's declared endpoints as endpoint details; malformed items are skipped, not fatal. */
export function listingEndpoints(value: unknown): EndpointDetail[] {
  if (!Array.isArray(value)) return [];
  return value.slice(0, maxListingEndpoints).flatMap((item) => {
    const parsed = storedListingEndpointSchema.safeParse(item);
    if (!parsed.success) return [];
    const e = parsed.data;
    const free = e.pricingModel === null || e.priceSats === null;
    return [
      {
        path: e.path.startsWith("/") ? e.path : `/${e.path}`,
        method: e.method.toUpperCase(),
        title: e.title,
        description: e.description,
        docsUrl: null,
        pricingModel: free ? null : e.pricingModel,
        priceSats: free ? 0 : e.priceSats!,
        tokenBudget: null,
        durationMinutes: null,
        unitCostSats: null,
        // The free try is the hub's own JWT, which only hosted gateways honour.
        freeTryEnabled: false,
        exampleRequest: {},
        exampleResponse: {},
        parameters: [],
        streaming: false,
      },
    ];
  });
}

/** The listing's gateway base as entries show it (no trailing slash: endpoint paths follow it). */
export function listingGatewayBase(gatewayUrl: string): string {
  return gatewayUrl.replace(/\/+$/, "");
}

/** Directory entry (spec 2.4) of an approved external listing; `isExternal` is true. */
export function toListingDirectoryEntry(listing: ListingRow, quality: HealthQuality): DirectoryEntry {
  const endpoints = listingEndpoints(listing.endpoints);
  return {
    slug: listing.slug,
    name: listing.name,
    description: listing.description,
    tags: listing.tags ?? [],
    gatewayDomain: listingGatewayBase(listing.gatewayUrl),
    endpointCount: endpoints.length,
    quality,
    endpoints: endpoints.map(({ parameters: _parameters, streaming: _streaming, ...entry }) => entry),
    isExternal: true,
  };
}

/**
 * Active endpoints in the order the provider added them (usually the order they want them read),
 * then by path and method so that the order is stable when several were created together.
 */
export const endpointDisplayOrder = [{ createdAt: "asc" }, { path: "asc" }, { method: "asc" }] as const;
