// POST /api/tenants/:tenantId/webhooks/deliveries/:deliveryId/retry: re-queue a failed delivery.
import { withWorkspace } from "@/lib/api/handler.ts";
import { retryDelivery } from "@/lib/webhooks/retry-delivery.ts";
import { deliveryQueuedResponseSchema } from "@/lib/webhooks/schemas.ts";

// POST /api/tenants/:tenantId/webhooks/deliveries/:deliveryId/retry: 202 queued; 409 unless it failed.
export const POST = withWorkspace(async ({ ctx, tenantId, params }) => {
  const delivery = await retryDelivery({ prisma: ctx.db.prisma, tenantId, deliveryId: params.deliveryId });
  return Response.json(deliveryQueuedResponseSchema.parse({ delivery }), { status: 202 });
});
