// GET /api/tenants/:tenantId/webhooks/:id/deliveries?limit: recent deliveries of one subscription.
import { withWorkspace } from "../../../../../../../lib/api/handler.ts";
import { listDeliveries } from "../../../../../../../lib/webhooks/list-deliveries.ts";
import { deliveryListResponseSchema, parseDeliveriesQuery } from "../../../../../../../lib/webhooks/schemas.ts";

// GET /api/tenants/:tenantId/webhooks/:id/deliveries: newest first, limit 1-100 (default 50).
export const GET = withWorkspace(async ({ req, ctx, tenantId, params }) => {
  const { limit } = parseDeliveriesQuery(new URL(req.url).searchParams);
  const deliveries = await listDeliveries({ prisma: ctx.db.prisma, tenantId, webhookId: params.id, limit });
  return Response.json(deliveryListResponseSchema.parse({ deliveries }));
});
