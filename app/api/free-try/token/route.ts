// GET /api/free-try/token: a short-lived free-try JWT for the signed-in user (401 when signed out).
import { withSignedInUser } from "@/lib/api/handler.ts";
import { FREE_TRY_AUDIENCE, mintFreeTryToken } from "@/lib/payments/free-try-issuer.ts";
import { freeTryTokenResponseSchema } from "@/lib/payments/free-try-schemas.ts";

export const dynamic = "force-dynamic";

export const GET = withSignedInUser(async ({ ctx, userId }) => {
  const { token, expiresAt } = await mintFreeTryToken({ appSecret: ctx.config.appSecret, issuer: ctx.config.siteUrl, userId });
  return Response.json(
    freeTryTokenResponseSchema.parse({
      token,
      tokenType: "Bearer",
      expiresAt: expiresAt.toISOString(),
      issuer: ctx.config.siteUrl,
      audience: FREE_TRY_AUDIENCE,
    }),
  );
});
