// GET|POST /api/tenants/:tenantId/members: members and pending invitations; invite by e-mail (owners).
import { withWorkspace } from "@/lib/api/handler.ts";
import { inviteMember, listMembers } from "@/lib/workspaces/members.ts";
import { memberInviteResultSchema, memberInviteSchema, membersResponseSchema } from "@/lib/workspaces/schemas.ts";

// GET /api/tenants/:tenantId/members: every member with their role, and pending invitations.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  return Response.json(membersResponseSchema.parse(await listMembers({ prisma: ctx.db.prisma, tenantId })));
});

// POST /api/tenants/:tenantId/members: add an existing user by e-mail, or invite the address.
export const POST = withWorkspace(
  async ({ ctx, tenantId, body, principal }) => {
    const result = await inviteMember({ prisma: ctx.db.prisma, tenantId, invite: body, invitedById: principal.kind === "user" ? principal.userId : null });
    return Response.json(memberInviteResultSchema.parse(result), { status: 201 });
  },
  { body: memberInviteSchema, role: "owner" },
);
