// GET /api/tenants/:tenantId/billing: the workspace's billing status, cycle under way and invoice to pay.
import { withWorkspace } from "@/lib/api/handler.ts";
import { getBilling } from "@/lib/billing/get-billing.ts";
import { billingResponseSchema } from "@/lib/billing/schemas.ts";

export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const billing = await getBilling({ prisma: ctx.db.prisma, tenantId });
  return Response.json(billingResponseSchema.parse(billing), { headers: { "cache-control": "private, no-store" } });
});
