// DELETE /api/tenants/:tenantId/api-keys/:id: revoke a key (effective on the next request).
import { withWorkspace } from "@/lib/api/handler.ts";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key.ts";

export const DELETE = withWorkspace(
  async ({ ctx, tenantId, params }) => {
    await revokeApiKey({ prisma: ctx.db.prisma, tenantId, apiKeyId: params.id });
    return new Response(null, { status: 204 });
  },
  { role: "owner" },
);
