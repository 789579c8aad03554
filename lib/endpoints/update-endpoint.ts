// Updates an endpoint: the patch is merged into the stored configuration and the merged result is
// validated as a whole (the pricing rules span several fields).
import { isUniqueViolation, type PrismaClient } from "@/lib/db/client.ts";
import { AppError, validationError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { startTrialIfUnset } from "@/lib/tenants/start-trial.ts";
import { duplicateEndpointMessage, fromEndpointRow, toEndpointColumns, type EndpointRow } from "./columns.ts";
import { MODEL_FIELDS, PRICING_FIELDS, endpointConfigSchema, pathParameterNames, type EndpointConfig, type EndpointUpdate } from "./schemas.ts";

export type UpdateEndpointOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  tenantId: string;
  endpointId: string;
  /** Parsed by endpointUpdateSchema; undefined means "leave as is", null means "unset". */
  patch: EndpointUpdate;
  now?: Date;
};

/**
 * Merges a patch into a stored configuration (pure). Stored values that the change makes
 * irrelevant are cleared (pricing fields the new model does not use, free try on a free endpoint,
 * stream options of a non-streaming endpoint, cache TTL of a streaming one, path parameters no
 * longer in the path); the same fields sent in the patch itself are kept, so validation rejects them.
 */
export function mergeEndpointUpdate(stored: EndpointConfig, patch: EndpointUpdate): Record<string, unknown> {
  const sent = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<EndpointConfig>;
  const merged: EndpointConfig = { ...stored, ...sent };
  const isSent = (field: keyof EndpointConfig) => field in sent;
  const used = merged.pricingModel ? MODEL_FIELDS[merged.pricingModel] : [];
  for (const field of PRICING_FIELDS) {
    if (!isSent(field) && !used.includes(field)) merged[field] = null;
  }
  if (!merged.pricingModel && !isSent("freeTryEnabled")) merged.freeTryEnabled = false;
  if (!merged.streaming) {
    if (!isSent("maxStreamSeconds")) merged.maxStreamSeconds = null;
    if (!isSent("idleTimeoutSeconds")) merged.idleTimeoutSeconds = null;
  } else if (!isSent("cacheTtlSeconds")) {
    merged.cacheTtlSeconds = null;
  }
  if (!isSent("parameters")) {
    const inPath = new Set(pathParameterNames(merged.path));
    merged.parameters = stored.parameters.filter((p) => p.in !== "path" || inPath.has(p.name));
  }
  return merged;
}

/** Applies a patch to an endpoint of this tenant (404 if it has no such endpoint). */
export async function updateEndpoint({ prisma, store, tenantId, endpointId, patch, now = new Date() }: UpdateEndpointOptions): Promise<EndpointRow> {
  const row = await prisma.endpoint.findFirst({ where: { id: endpointId, tenantId } });
  if (!row) throw new AppError("not_found", "Endpoint not found");
  const parsed = endpointConfigSchema.safeParse(mergeEndpointUpdate(fromEndpointRow(row), patch));
  if (!parsed.success) throw validationError(parsed.error);
  const config = parsed.data;

  let updated: EndpointRow;
  try {
    updated = await prisma.$transaction(async (tx) => {
      // Conditional on the version we merged into: a concurrent edit makes this a 409, never a blend.
      const result = await tx.endpoint.updateMany({
        where: { id: endpointId, tenantId, updatedAt: row.updatedAt },
        data: toEndpointColumns(config),
      });
      if (result.count === 0) throw new AppError("conflict", "The endpoint was changed by another request at the same time; read it and retry");
      if (config.isActive && config.pricingModel) await startTrialIfUnset({ tx, tenantId, now });
      return tx.endpoint.findUniqueOrThrow({ where: { id: endpointId } });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", duplicateEndpointMessage(config), { fields: ["method", "path"] });
    throw err;
  }
  await publishConfigChanged({ store, tenantId });
  return updated;
}
