// /dashboard/<slug>/billing: the platform fee (docs/billing.md): trial state, the cycle under way
// with its projected fee and tier breakdown, the invoice to pay (WebLN, QR code or dev wallet, as
// in try-it) and past cycles. The first page of everything is loaded here, so the first paint
// needs no client fetch.
import type { Metadata } from "next";
import { getBilling, listCycles } from "@/lib/billing/get-billing.ts";
import { CYCLES_DEFAULT_LIMIT, billingResponseSchema, cycleListResponseSchema } from "@/lib/billing/schemas.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { BillingPanel } from "./billing-panel.tsx";

export const metadata: Metadata = { title: "Billing" };

export default async function BillingPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  const prisma = ctx.db.prisma;
  const [billing, cycles] = await Promise.all([
    getBilling({ prisma, tenantId: tenant.id }),
    listCycles({ prisma, tenantId: tenant.id, limit: CYCLES_DEFAULT_LIMIT }),
  ]);
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Billing</h1>
        <p className="mt-1 text-sm text-muted">
          The platform fee, billed over Lightning every 30 days after the free trial: 5,000 sats base plus usage, the usage part capped at 5% of what your
          endpoints earned. A cycle without traffic costs nothing.
        </p>
      </header>
      <BillingPanel
        tenantId={tenant.id}
        slug={tenant.slug}
        exempt={tenant.billingExempt}
        isOwner={role === "owner"}
        // The dev wallet pays the dev node's invoices only: offered when the platform's wallet is the dev node.
        devWallet={ctx.devNode !== null && (ctx.config.platformWallet?.type ?? "dev") === "dev"}
        initialBilling={billingResponseSchema.parse(billing)}
        initialCycles={cycleListResponseSchema.parse(cycles)}
      />
    </div>
  );
}
