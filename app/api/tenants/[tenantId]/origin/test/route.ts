// POST /api/tenants/:tenantId/origin/test: send one signed probe to the saved origin; status and latency.
import { withWorkspace } from "@/lib/api/handler.ts";
import { originTestResponseSchema } from "@/lib/tenants/schemas.ts";
import { testOriginConnection } from "@/lib/health/test-origin-connection.ts";

export const POST = withWorkspace(async ({ ctx, tenantId }) => {
  const result = await testOriginConnection({
    prisma: ctx.db.prisma,
    appSecret: ctx.config.appSecret,
    tenantId,
    allowPrivate: ctx.config.originAllowPrivate,
  });
  return Response.json(originTestResponseSchema.parse(result));
});
