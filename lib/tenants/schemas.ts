// Tenant (workspace) resource: request schemas for the admin create and the provider update, and
// the response schemas. Nothing leaves the server that a response schema here does not name.
import { z } from "zod";

/** Names a gateway subdomain could never be given to a workspace (platform hosts, confusables). */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  "www",
  "api",
  "admin",
  "gw",
  "gateway",
  "app",
  "docs",
  "dashboard",
  "auth",
  "login",
  "logout",
  "signin",
  "signup",
  "account",
  "settings",
  "status",
  "static",
  "assets",
  "cdn",
  "mail",
  "email",
  "smtp",
  "hub",
  "directory",
  "help",
  "support",
  "blog",
  "dev",
  "test",
  "staging",
  "internal",
  "webhooks",
  "well-known",
  "mcp",
  "sdk",
  "billing",
  "l402",
  "lightning",
  "root",
  "system",
  // The example APIs `npm start` hosts (lib/hosted-examples): a workspace of that name would be taken over.
  "routes",
  "market",
]);

/** Gateway subdomain: 3-63 chars, lowercase letters, digits and inner hyphens (a DNS label). */
export const slugSchema = z
  .string()
  .min(3, "must be at least 3 characters")
  .max(63, "must be at most 63 characters")
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, "use lowercase letters, digits and hyphens, not starting or ending with a hyphen")
  .refine((slug) => !RESERVED_SLUGS.has(slug), "is reserved; choose another slug");

/** Up to 10 tags, trimmed, lowercased, de-duplicated, each at most 32 characters. */
export const tagsSchema = z
  .array(z.string().trim().toLowerCase().min(1, "must not be empty").max(32, "must be at most 32 characters"))
  .max(10, "at most 10 tags")
  .transform((tags) => [...new Set(tags)]);

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);

/** Display name and description, shared by the admin create and the provider update. */
export const tenantNameSchema = z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters");
export const tenantDescriptionSchema = z.string().trim().max(1000, "must be at most 1000 characters");

/** POST /api/admin/tenants */
export const adminTenantCreateSchema = z.strictObject({
  slug: slugSchema,
  name: tenantNameSchema,
  ownerEmail: z.email("must be an e-mail address").max(320),
  description: tenantDescriptionSchema.optional(),
  tags: tagsSchema.optional(),
  /** Free trial length in days from the first published endpoint (spec 1.10); 0 = none. */
  trialDays: z.int("must be a whole number of days").min(0, "must be 0 or more").max(3650, "must be at most 3650").optional(),
});
export type AdminTenantCreate = z.output<typeof adminTenantCreateSchema>;

/** The one response that carries the first API key (shown once). */
export const adminTenantCreatedSchema = z.object({ tenantId: z.string(), slug: z.string(), apiKey: z.string() });

/** PATCH /api/tenants/:tenantId (slug is permanent: it is the gateway address). */
export const tenantUpdateSchema = z.strictObject({
  name: tenantNameSchema.optional(),
  description: tenantDescriptionSchema.optional(),
  tags: tagsSchema.optional(),
  originUrl: httpUrl.nullable().optional(),
  listed: z.boolean().optional(),
});
export type TenantUpdate = z.output<typeof tenantUpdateSchema>;

const isoDate = z.date().transform((d) => d.toISOString());

/** A workspace as its members see it: no secrets, no internal columns. */
export const tenantResponseSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  originUrl: z.string().nullable(),
  listed: z.boolean(),
  status: z.enum(["active", "inactive", "suspended"]),
  /** `{gateway_url}`: where consumers call this workspace's endpoints. */
  gatewayUrl: z.string(),
  trialStartedAt: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type TenantResponse = z.output<typeof tenantResponseSchema>;

/** DELETE /api/tenants/:tenantId: what the deletion did (the slug stays reserved; docs/api.md). */
export const tenantDeletedResponseSchema = z.object({ slug: z.string(), deletedAt: isoDate, canceledCycles: z.int() });

const secretPair = { gatewaySecret: z.string(), hmacSecret: z.string() };

/** Origin-protection secrets (spec 5.4); `previous` only while its grace period lasts. */
export const originSecretsResponseSchema = z.object({
  ...secretPair,
  previous: z.object({ ...secretPair, validUntil: isoDate }).optional(),
});
export type OriginSecretsResponse = z.output<typeof originSecretsResponseSchema>;

/** POST /api/tenants/:tenantId/origin/test: one signed probe of the saved origin. */
export const originTestResponseSchema = z.object({
  ok: z.boolean(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int().nullable(),
  error: z.string().nullable(),
  method: z.string(),
  path: z.string(),
  checkedAt: isoDate,
});
export type OriginTestResponse = z.output<typeof originTestResponseSchema>;
