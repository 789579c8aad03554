// POST /api/admin/tenants: create a workspace with its owner and first API key (platform operator).
import { withAdmin } from "@/lib/api/handler.ts";
import { createTenant } from "@/lib/tenants/create-tenant.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { adminTenantCreatedSchema, adminTenantCreateSchema } from "@/lib/tenants/schemas.ts";

export const POST = withAdmin(
  async ({ ctx, body }) => {
    const created = await createTenant(ctx.db.prisma, ctx.config.appSecret, body);
    // A gateway may have cached "no such slug" for this address.
    await publishConfigChanged({ store: ctx.store, tenantId: created.tenantId });
    return Response.json(adminTenantCreatedSchema.parse(created), { status: 201 });
  },
  { body: adminTenantCreateSchema },
);
