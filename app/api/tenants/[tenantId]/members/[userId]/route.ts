// PATCH|DELETE /api/tenants/:tenantId/members/:userId: change a role (owners), remove a member
// (owners) or leave (any member removing themself). The last owner can be neither demoted nor removed.
import { withWorkspace } from "@/lib/api/handler.ts";
import { AppError } from "@/lib/errors/index.ts";
import { changeMemberRole, removeMember } from "@/lib/workspaces/members.ts";
import { memberSchema, memberUpdateSchema } from "@/lib/workspaces/schemas.ts";

// PATCH /api/tenants/:tenantId/members/:userId: set the member's role.
export const PATCH = withWorkspace(
  async ({ ctx, tenantId, params, body }) => {
    const member = await changeMemberRole({ prisma: ctx.db.prisma, tenantId, userId: params.userId, role: body.role });
    return Response.json(memberSchema.parse(member));
  },
  { body: memberUpdateSchema, role: "owner" },
);

// DELETE /api/tenants/:tenantId/members/:userId: remove the member (or leave the workspace).
export const DELETE = withWorkspace(async ({ ctx, tenantId, params, principal }) => {
  const leaving = principal.kind === "user" && principal.userId === params.userId;
  if (principal.kind === "user" && principal.role !== "owner" && !leaving) throw new AppError("forbidden", "Only workspace owners can do this");
  await removeMember({ prisma: ctx.db.prisma, tenantId, userId: params.userId });
  return new Response(null, { status: 204 });
});
