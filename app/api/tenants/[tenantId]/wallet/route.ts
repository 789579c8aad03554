// GET|PUT|DELETE /api/tenants/:tenantId/wallet: read, connect or disconnect the workspace's receiving wallet.
import { withWorkspace } from "@/lib/api/handler.ts";
import { walletTargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { connectWallet } from "@/lib/wallets/connect-wallet.ts";
import { disconnectWallet } from "@/lib/wallets/disconnect-wallet.ts";
import { getWallet } from "@/lib/wallets/get-wallet.ts";
import { walletConnectSchema, walletResponseSchema } from "@/lib/wallets/schemas.ts";

// GET /api/tenants/:tenantId/wallet: the connected wallet (no credentials), or 404.
export const GET = withWorkspace(async ({ ctx, tenantId }) => {
  const wallet = await getWallet({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, tenantId });
  return Response.json(walletResponseSchema.parse(wallet));
});

// PUT /api/tenants/:tenantId/wallet: connect (or replace) the wallet after a test invoice succeeds.
export const PUT = withWorkspace(
  async ({ ctx, tenantId, body }) => {
    const wallet = await connectWallet({
      prisma: ctx.db.prisma,
      store: ctx.store,
      appSecret: ctx.config.appSecret,
      devNode: ctx.devNode,
      targetPolicy: walletTargetPolicy(ctx.config),
      tenantId,
      wallet: body,
    });
    return Response.json(walletResponseSchema.parse(wallet));
  },
  { body: walletConnectSchema, role: "owner" },
);

// DELETE /api/tenants/:tenantId/wallet: disconnect; priced endpoints answer 503 until a wallet is connected again.
export const DELETE = withWorkspace(
  async ({ ctx, tenantId }) => {
    await disconnectWallet({ prisma: ctx.db.prisma, store: ctx.store, tenantId });
    return new Response(null, { status: 204 });
  },
  { role: "owner" },
);
