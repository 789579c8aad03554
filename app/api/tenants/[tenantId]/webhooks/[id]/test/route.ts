// POST /api/tenants/:tenantId/webhooks/:id/test: queue a synthetic invoice.settled delivery.
import { withWorkspace } from "@/lib/api/handler.ts";
import { deliveryQueuedResponseSchema } from "@/lib/webhooks/schemas.ts";
import { sendTestDelivery } from "@/lib/webhooks/send-test-delivery.ts";

// POST /api/tenants/:tenantId/webhooks/:id/test: 202 with the queued delivery (same pipeline as real events).
export const POST = withWorkspace(async ({ ctx, tenantId, params }) => {
  const delivery = await sendTestDelivery({ prisma: ctx.db.prisma, tenantId, webhookId: params.id });
  return Response.json(deliveryQueuedResponseSchema.parse({ delivery }), { status: 202 });
});
