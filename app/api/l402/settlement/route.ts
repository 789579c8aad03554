// POST /api/l402/settlement: where a 402 challenge's invoice stands; its preimage, once paid, for the holder of its macaroon.
import { withErrors } from "../../../../lib/api/handler.ts";
import { walletTargetPolicy } from "../../../../lib/lightning/wallet-network.ts";
import { lookupChallengeSettlement } from "../../../../lib/payments/challenge-settlement.ts";
import { settlementQuerySchema, settlementResponseSchema } from "../../../../lib/payments/settlement-schemas.ts";

export const dynamic = "force-dynamic";

export const POST = withErrors(
  async ({ ctx, body }) => {
    const settlement = await lookupChallengeSettlement({
      prisma: ctx.db.prisma,
      store: ctx.store,
      appSecret: ctx.config.appSecret,
      devNode: ctx.devNode,
      targetPolicy: walletTargetPolicy(ctx.config),
      macaroon: body.macaroon,
    });
    return Response.json(settlementResponseSchema.parse(settlement));
  },
  { body: settlementQuerySchema },
);
