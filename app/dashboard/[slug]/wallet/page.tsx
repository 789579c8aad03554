// /dashboard/<slug>/wallet: the receiving wallet's state (type, since when, node key, last invoice,
// capacity warnings) and the per-type connect form. Connecting, replacing and disconnecting are for
// owners; members see the state and why the controls are off.
import type { Metadata } from "next";
import { AppError } from "@/lib/errors/index.ts";
import { getWallet } from "@/lib/wallets/get-wallet.ts";
import { walletResponseSchema, type WalletResponse } from "@/lib/wallets/schemas.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { WalletPanel } from "./wallet-panel.tsx";

export const metadata: Metadata = { title: "Wallet" };

export default async function WalletPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  let wallet: WalletResponse | null = null;
  try {
    wallet = walletResponseSchema.parse(await getWallet({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret, tenantId: tenant.id }));
  } catch (err) {
    if (!(err instanceof AppError && err.code === "not_found")) throw err;
  }
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Wallet</h1>
        <p className="mt-1 text-sm text-muted">
          Consumers pay invoices from your own wallet: the platform never holds your sats. Every priced call creates an invoice here, so priced endpoints only
          work while a wallet is connected.
        </p>
      </header>
      <WalletPanel tenantId={tenant.id} initialWallet={wallet} isOwner={role === "owner"} devNodeOn={ctx.devNode !== null} />
    </div>
  );
}
