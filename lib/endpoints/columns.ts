// Conversion between a validated EndpointConfig and the Endpoint row (JSON columns, SQL NULLs).
import { Prisma } from "@/lib/db/client.ts";
import type { EndpointConfig, EndpointParameter, HttpMethod } from "./schemas.ts";

export type EndpointRow = Prisma.EndpointGetPayload<object>;

/** Column values for create/update. A null example is stored as SQL NULL, not JSON null. */
export function toEndpointColumns(config: EndpointConfig) {
  return {
    ...config,
    parameters: config.parameters as Prisma.InputJsonValue,
    exampleRequest: config.exampleRequest === null ? Prisma.DbNull : (config.exampleRequest as Prisma.InputJsonObject),
    exampleResponse: config.exampleResponse === null ? Prisma.DbNull : (config.exampleResponse as Prisma.InputJsonObject),
  };
}

/** The stored configuration of a row (validated on write, so the casts hold). */
export function fromEndpointRow(row: EndpointRow): EndpointConfig {
  return {
    method: row.method as HttpMethod,
    path: row.path,
    title: row.title,
    description: row.description,
    docsUrl: row.docsUrl,
    pricingModel: row.pricingModel,
    priceSats: row.priceSats,
    tokenBudget: row.tokenBudget,
    durationMinutes: row.durationMinutes,
    unitCostSats: row.unitCostSats,
    freeTryEnabled: row.freeTryEnabled,
    cacheTtlSeconds: row.cacheTtlSeconds,
    streaming: row.streaming,
    maxStreamSeconds: row.maxStreamSeconds,
    idleTimeoutSeconds: row.idleTimeoutSeconds,
    rateLimitPerMinute: row.rateLimitPerMinute,
    forwardCookies: row.forwardCookies,
    parameters: (row.parameters ?? []) as EndpointParameter[],
    exampleRequest: (row.exampleRequest ?? null) as Record<string, unknown> | null,
    exampleResponse: (row.exampleResponse ?? null) as Record<string, unknown> | null,
    isActive: row.isActive,
  };
}

/** 409 message for the (tenantId, method, path) unique index. */
export function duplicateEndpointMessage(config: Pick<EndpointConfig, "method" | "path">): string {
  return `An endpoint ${config.method} ${config.path} already exists in this workspace`;
}
