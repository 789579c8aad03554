// GET /api/tenants/:tenantId/webhooks/:id/deliveries?limit&before: recent deliveries of one subscription.
import { withWorkspace } from "@/lib/api/handler.ts";
import { listDeliveries } from "@/lib/webhooks/list-deliveries.ts";
import { deliveryListResponseSchema, parseDeliveriesQuery } from "@/lib/webhooks/schemas.ts";

// GET /api/tenants/:tenantId/webhooks/:id/deliveries: newest first, limit 1-100 (default 50), `before` = the previous page's nextCursor.
export const GET = withWorkspace(async ({ req, ctx, tenantId, params }) => {
  const { limit, before } = parseDeliveriesQuery(new URL(req.url).searchParams);
  const page = await listDeliveries({ prisma: ctx.db.prisma, tenantId, webhookId: params.id, limit, before });
  return Response.json(deliveryListResponseSchema.parse(page));
});
