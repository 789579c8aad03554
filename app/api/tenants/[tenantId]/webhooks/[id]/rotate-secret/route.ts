// POST /api/tenants/:tenantId/webhooks/:id/rotate-secret: replace the signing secret.
import { withWorkspace } from "@/lib/api/handler.ts";
import { rotateWebhookSecret } from "@/lib/webhooks/rotate-webhook-secret.ts";
import { webhookSecretRotatedSchema } from "@/lib/webhooks/schemas.ts";

// POST /api/tenants/:tenantId/webhooks/:id/rotate-secret: the new secret, shown once; effective immediately.
export const POST = withWorkspace(
  async ({ ctx, tenantId, params }) => {
    const rotated = await rotateWebhookSecret({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, tenantId, webhookId: params.id });
    return Response.json(webhookSecretRotatedSchema.parse(rotated));
  },
  { role: "owner" },
);
