// DELETE /api/tenants/:tenantId/invitations/:invitationId: withdraw a pending invitation (owners).
import { withWorkspace } from "@/lib/api/handler.ts";
import { cancelInvitation } from "@/lib/workspaces/members.ts";

export const DELETE = withWorkspace(
  async ({ ctx, tenantId, params }) => {
    await cancelInvitation({ prisma: ctx.db.prisma, tenantId, invitationId: params.invitationId });
    return new Response(null, { status: 204 });
  },
  { role: "owner" },
);
