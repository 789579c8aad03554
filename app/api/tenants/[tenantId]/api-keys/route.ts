// GET|POST /api/tenants/:tenantId/api-keys: list the workspace's API keys or create one.
import { withWorkspace } from "@/lib/api/handler.ts";
import { createApiKey } from "@/lib/api-keys/create-api-key.ts";
import { listApiKeys } from "@/lib/api-keys/list-api-keys.ts";
import { apiKeyCreatedSchema, apiKeyCreateSchema, apiKeyListResponseSchema } from "@/lib/api-keys/schemas.ts";

// GET /api/tenants/:tenantId/api-keys: every key with prefix and usage, never the key itself.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const apiKeys = await listApiKeys({ prisma: ctx.db.prisma, tenantId });
  return Response.json(apiKeyListResponseSchema.parse({ apiKeys }));
});

// POST /api/tenants/:tenantId/api-keys: create a key; the response is the only time it is shown.
export const POST = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const created = await createApiKey({ prisma: ctx.db.prisma, tenantId, name: body.name });
    return Response.json(apiKeyCreatedSchema.parse(created), { status: 201 });
  },
  { body: apiKeyCreateSchema, role: "owner" },
);
