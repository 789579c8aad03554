// PATCH|DELETE /api/tenants/:tenantId/webhooks/:id: change url/events/isActive, or delete.
import { withWorkspace } from "@/lib/api/handler.ts";
import { deleteWebhook } from "@/lib/webhooks/delete-webhook.ts";
import { webhookResponseSchema, webhookUpdateSchema } from "@/lib/webhooks/schemas.ts";
import { targetPolicyFor } from "@/lib/origin/ssrf.ts";
import { updateWebhook } from "@/lib/webhooks/update-webhook.ts";

// PATCH /api/tenants/:tenantId/webhooks/:id: update; the secret is never rotated here.
export const PATCH = withWorkspace(
  async ({ ctx, tenantId, params, body }) => {
    const webhook = await updateWebhook({ prisma: ctx.db.prisma, policy: targetPolicyFor(ctx.config), tenantId, webhookId: params.id, patch: body });
    return Response.json(webhookResponseSchema.parse(webhook));
  },
  { body: webhookUpdateSchema, role: "owner" },
);

// DELETE /api/tenants/:tenantId/webhooks/:id: delete the subscription and its deliveries (204).
export const DELETE = withWorkspace(
  async ({ ctx, tenantId, params }) => {
    await deleteWebhook({ prisma: ctx.db.prisma, tenantId, webhookId: params.id });
    return new Response(null, { status: 204 });
  },
  { role: "owner" },
);
