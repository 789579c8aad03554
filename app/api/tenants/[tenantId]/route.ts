// GET|PATCH /api/tenants/:tenantId: read or update the workspace profile.
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { assertOwner, withWorkspace } from "@/lib/api/handler.ts";
import { getTenant } from "@/lib/tenants/get-tenant.ts";
import { tenantResponseSchema, tenantUpdateSchema } from "@/lib/tenants/schemas.ts";
import { updateTenant } from "@/lib/tenants/update-tenant.ts";

// GET /api/tenants/:tenantId: the workspace profile and its gateway address.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const tenant = await getTenant({ prisma: ctx.db.prisma, tenantId });
  return Response.json(tenantResponseSchema.parse({ ...tenant, gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug) }));
});

// PATCH /api/tenants/:tenantId: update name, description, tags, listed, or (owners) originUrl.
export const PATCH = withWorkspace(
  async ({ ctx, tenantId, body, principal }) => {
    // The origin receives the gateway secret and every signed request: owners decide where that is.
    if (body.originUrl !== undefined)
      assertOwner(principal, "Only workspace owners can change originUrl: the origin receives the gateway secret and signed requests");
    const tenant = await updateTenant({ prisma: ctx.db.prisma, store: ctx.store, tenantId, changes: body, originAllowPrivate: ctx.config.originAllowPrivate });
    return Response.json(tenantResponseSchema.parse({ ...tenant, gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug) }));
  },
  { body: tenantUpdateSchema },
);
