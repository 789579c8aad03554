// POST /api/dev/lnurl-auth: the dev wallet signs a k1 with its linking key and calls the same
// verification as a real wallet's callback (404 when the dev Lightning node is off).
import { withErrors } from "@/lib/api/handler.ts";
import { devLinkingKey, signK1 } from "@/lib/auth/dev-lnurl-wallet.ts";
import { verifyLoginSignature } from "@/lib/auth/lnurl-auth.ts";
import { devLoginSignSchema } from "@/lib/auth/schemas.ts";
import { AppError } from "@/lib/errors/index.ts";

export const POST = withErrors(
  async ({ ctx, body }) => {
    if (!ctx.devNode) throw new AppError("not_found", "Not found");
    const { secretKey, publicKey } = devLinkingKey(ctx.config.appSecret, new URL(ctx.config.siteUrl).host);
    const sig = await signK1(secretKey, body.k1);
    await verifyLoginSignature({ prisma: ctx.db.prisma, k1: body.k1, sig, key: publicKey });
    return Response.json({ status: "OK", key: publicKey });
  },
  { body: devLoginSignSchema },
);
