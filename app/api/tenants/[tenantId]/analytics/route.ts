// GET /api/tenants/:tenantId/analytics?granularity=day|week|month&from&to&endpointId: usage and earnings over time.
import { getAnalytics } from "@/lib/analytics/get-analytics.ts";
import { analyticsResponseSchema, parseAnalyticsQuery } from "@/lib/analytics/schemas.ts";
import { withWorkspace } from "@/lib/api/handler.ts";

export const GET = withWorkspace(async ({ req, ctx, tenantId }) => {
  const query = parseAnalyticsQuery(new URL(req.url).searchParams);
  const analytics = await getAnalytics({ prisma: ctx.db.prisma, tenantId, query });
  return Response.json(analyticsResponseSchema.parse(analytics), { headers: { "cache-control": "private, no-store" } });
});
