// POST /api/tenants/:tenantId/secrets/rotate: new secrets; the old pair stays valid for the grace period.
import { withWorkspace } from "@/lib/api/handler.ts";
import { rotateOriginSecrets } from "@/lib/tenants/rotate-origin-secrets.ts";
import { originSecretsResponseSchema } from "@/lib/tenants/schemas.ts";

export const POST = withWorkspace(
  async ({ ctx, tenantId }) => {
    const secrets = await rotateOriginSecrets({
      prisma: ctx.db.prisma,
      store: ctx.store,
      appSecret: ctx.config.appSecret,
      tenantId,
      graceHours: ctx.config.secretRotationGraceHours,
    });
    return Response.json(originSecretsResponseSchema.parse(secrets));
  },
  { role: "owner" },
);
