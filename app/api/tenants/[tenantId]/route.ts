// GET|PATCH /api/tenants/:tenantId: read or update the workspace profile.
import { gatewayUrlFor } from "../../../../lib/config/index.ts";
import { withWorkspace } from "../../../../lib/api/handler.ts";
import { getTenant } from "../../../../lib/tenants/get-tenant.ts";
import { tenantResponseSchema, tenantUpdateSchema } from "../../../../lib/tenants/schemas.ts";
import { updateTenant } from "../../../../lib/tenants/update-tenant.ts";

// GET /api/tenants/:tenantId: the workspace profile and its gateway address.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const tenant = await getTenant({ prisma: ctx.db.prisma, tenantId });
  return Response.json(tenantResponseSchema.parse({ ...tenant, gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug) }));
});

// PATCH /api/tenants/:tenantId: update name, description, tags, originUrl or listed.
export const PATCH = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const tenant = await updateTenant({ prisma: ctx.db.prisma, store: ctx.store, tenantId, changes: body, originAllowPrivate: ctx.config.originAllowPrivate });
    return Response.json(tenantResponseSchema.parse({ ...tenant, gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug) }));
  },
  { body: tenantUpdateSchema },
);
