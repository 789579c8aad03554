// GET|POST /api/tenants: the signed-in user's workspaces, and creating one (the user becomes owner).
import { withSignedInUser } from "@/lib/api/handler.ts";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { tenantResponseSchema } from "@/lib/tenants/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/create-workspace.ts";
import { listWorkspacesForUser } from "@/lib/workspaces/list-workspaces.ts";
import { workspaceCreateSchema, workspaceListSchema } from "@/lib/workspaces/schemas.ts";

// GET /api/tenants: every workspace the signed-in user belongs to, with their role.
export const GET = withSignedInUser(async ({ ctx, userId }) => {
  const workspaces = await listWorkspacesForUser({ prisma: ctx.db.prisma, userId });
  return Response.json(workspaceListSchema.parse({ workspaces }));
});

// POST /api/tenants: create a workspace owned by the signed-in user (409 when the slug is taken).
export const POST = withSignedInUser(
  async ({ ctx, userId, body }) => {
    const tenant = await createWorkspace({ prisma: ctx.db.prisma, store: ctx.store, appSecret: ctx.config.appSecret, userId, input: body });
    return Response.json(tenantResponseSchema.parse({ ...tenant, gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug) }), { status: 201 });
  },
  { body: workspaceCreateSchema },
);
