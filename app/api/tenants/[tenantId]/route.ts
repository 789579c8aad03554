// GET|PATCH|DELETE /api/tenants/:tenantId: read, update or delete the workspace.
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { assertOwner, withWorkspace } from "@/lib/api/handler.ts";
import { deleteTenant } from "@/lib/tenants/delete-tenant.ts";
import { getTenant } from "@/lib/tenants/get-tenant.ts";
import { tenantDeletedResponseSchema, tenantResponseSchema, tenantUpdateSchema } from "@/lib/tenants/schemas.ts";
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

// DELETE /api/tenants/:tenantId: delete the workspace (owners): the fee stops, its unpaid invoice is canceled, the gateway URL answers 404.
export const DELETE = withWorkspace(
  async ({ ctx, tenantId }) => {
    const deleted = await deleteTenant({ prisma: ctx.db.prisma, store: ctx.store, tenantId });
    return Response.json(tenantDeletedResponseSchema.parse(deleted));
  },
  { role: "owner" },
);
