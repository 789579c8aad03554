// POST /api/admin/billing/run: run every due billing transition at the given instant (operator's clock; never in production).
import { withAdmin } from "@/lib/api/handler.ts";
import { runBillingAt } from "@/lib/billing/run-billing-at.ts";
import { billingRunResultSchema, billingRunSchema } from "@/lib/billing/schemas.ts";
import { AppError } from "@/lib/errors/index.ts";

export const POST = withAdmin(
  async ({ ctx, body }) => {
    // Moving billing's clock would let anyone with the admin token suspend or bill workspaces early.
    if (ctx.config.isProduction) throw new AppError("forbidden", "The billing clock cannot be moved in production");
    const pass = await runBillingAt({ prisma: ctx.db.prisma, store: ctx.store, config: ctx.config, devNode: ctx.devNode, now: body.now });
    return Response.json(billingRunResultSchema.parse({ now: body.now.toISOString(), ...pass }));
  },
  { body: billingRunSchema },
);
