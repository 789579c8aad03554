// Workspace API key resource. The key itself appears in exactly one response: its creation.
import { z } from "zod";

/** POST /api/tenants/:tenantId/api-keys */
export const apiKeyCreateSchema = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
});
export type ApiKeyCreate = z.output<typeof apiKeyCreateSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** A key as listed: the prefix tells keys apart; the key and its hash never leave the server. */
export const apiKeyResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  revokedAt: isoDate.nullable(),
});
export type ApiKeyResponse = z.output<typeof apiKeyResponseSchema>;

/** GET /api/tenants/:tenantId/api-keys */
export const apiKeyListResponseSchema = z.object({ apiKeys: z.array(apiKeyResponseSchema) });

/** The creation response: the only time `key` is shown. */
export const apiKeyCreatedSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  key: z.string(),
  createdAt: isoDate,
});
export type ApiKeyCreated = z.output<typeof apiKeyCreatedSchema>;
