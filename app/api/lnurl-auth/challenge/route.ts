// POST /api/lnurl-auth/challenge: a new LNURL-auth k1 for this browser (bound by an httpOnly cookie).
import { withErrors } from "@/lib/api/handler.ts";
import { browserSecretCookie } from "@/lib/auth/cookies.ts";
import { CHALLENGE_TTL_MS, createLoginChallenge } from "@/lib/auth/lnurl-auth.ts";
import { loginChallengeResponseSchema } from "@/lib/auth/schemas.ts";

export const POST = withErrors(async ({ ctx }) => {
  const challenge = await createLoginChallenge({ prisma: ctx.db.prisma, apiUrl: ctx.config.apiUrl });
  return Response.json(loginChallengeResponseSchema.parse(challenge), {
    headers: { "set-cookie": browserSecretCookie(ctx.config.siteUrl, challenge.browserSecret, CHALLENGE_TTL_MS / 1000) },
  });
});
