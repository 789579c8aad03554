// POST /api/l402/settlement: where a 402 challenge's invoice stands; its preimage, once paid, for the holder of its macaroon.
import { withErrors } from "@/lib/api/handler.ts";
import { requestClientIp } from "@/lib/directory/rate-limit.ts";
import { lookupChallengeSettlement } from "@/lib/payments/challenge-settlement.ts";
import { settlementQuerySchema, settlementResponseSchema } from "@/lib/payments/settlement-schemas.ts";

export const dynamic = "force-dynamic";

export const POST = withErrors(
  async ({ req, ctx, body }) => {
    const settlement = await lookupChallengeSettlement({
      prisma: ctx.db.prisma,
      store: ctx.store,
      appSecret: ctx.config.appSecret,
      wallets: ctx.wallets,
      macaroon: body.macaroon,
      clientIp: requestClientIp(req.headers),
    });
    return Response.json(settlementResponseSchema.parse(settlement));
  },
  { body: settlementQuerySchema },
);
