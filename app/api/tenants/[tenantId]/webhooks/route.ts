// GET|POST /api/tenants/:tenantId/webhooks: list the workspace's subscriptions or create one.
import { withWorkspace } from "@/lib/api/handler.ts";
import { createWebhook } from "@/lib/webhooks/create-webhook.ts";
import { listWebhooks } from "@/lib/webhooks/list-webhooks.ts";
import { webhookCreatedSchema, webhookCreateSchema, webhookListResponseSchema } from "@/lib/webhooks/schemas.ts";
import { targetPolicyFor } from "@/lib/origin/ssrf.ts";

// GET /api/tenants/:tenantId/webhooks: every subscription, never a secret.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const webhooks = await listWebhooks({ prisma: ctx.db.prisma, tenantId });
  return Response.json(webhookListResponseSchema.parse({ webhooks }));
});

// POST /api/tenants/:tenantId/webhooks: create a subscription; the only response with its secret.
export const POST = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const created = await createWebhook({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, policy: targetPolicyFor(ctx.config), tenantId, input: body });
    return Response.json(webhookCreatedSchema.parse(created), { status: 201 });
  },
  { body: webhookCreateSchema, role: "owner" },
);
