// GET /api/tenants/:tenantId/billing/cycles?limit&before: the workspace's cycles, newest first (the one under way included).
import { withWorkspace } from "@/lib/api/handler.ts";
import { listCycles } from "@/lib/billing/get-billing.ts";
import { cycleListResponseSchema, parseCyclesQuery } from "@/lib/billing/schemas.ts";

export const GET = withWorkspace(async ({ req, ctx, tenantId }) => {
  const query = parseCyclesQuery(new URL(req.url).searchParams);
  const page = await listCycles({ prisma: ctx.db.prisma, tenantId, ...query });
  return Response.json(cycleListResponseSchema.parse(page), { headers: { "cache-control": "private, no-store" } });
});
