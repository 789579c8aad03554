// GET /api/tenants/:tenantId/secrets: the origin-protection secrets (and the previous pair in grace).
import { withWorkspace } from "@/lib/api/handler.ts";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { originSecretsResponseSchema } from "@/lib/tenants/schemas.ts";

export const GET = withWorkspace(
  async ({ ctx, tenantId }) => {
    const secrets = await getOriginSecrets({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, tenantId });
    return Response.json(originSecretsResponseSchema.parse(secrets));
  },
  { role: "owner" },
);
