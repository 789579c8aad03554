// POST /api/tenants/:tenantId/billing/check: ask the platform wallet now whether the outstanding fee invoice was paid (owners).
import { withWorkspace } from "@/lib/api/handler.ts";
import { checkBillingPayment } from "@/lib/billing/check-payment.ts";
import { billingCheckResponseSchema } from "@/lib/billing/schemas.ts";

export const POST = withWorkspace(
  async ({ ctx, tenantId }) => {
    const check = await checkBillingPayment({ prisma: ctx.db.prisma, store: ctx.store, config: ctx.config, devNode: ctx.devNode, tenantId });
    return Response.json(billingCheckResponseSchema.parse(check));
  },
  { role: "owner" },
);
