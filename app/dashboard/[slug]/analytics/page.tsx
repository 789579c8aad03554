// /dashboard/<slug>/analytics: requests, paid requests, earnings, refunds and origin errors over
// time and per endpoint. The default view (last 30 days) and what a new provider still has to do
// are loaded here, so the first paint needs no client fetch.
import type { Metadata } from "next";
import { getAnalytics } from "@/lib/analytics/get-analytics.ts";
import { analyticsQuerySchema, analyticsResponseSchema } from "@/lib/analytics/schemas.ts";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { getOnboardingState } from "@/lib/workspaces/onboarding.ts";
import { sectionHref } from "@/app/dashboard/_components/sections.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { AnalyticsView, type EndpointOption } from "./analytics-view.tsx";

export const metadata: Metadata = { title: "Analytics" };

export default async function AnalyticsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant } = await requireWorkspace(slug);
  const prisma = ctx.db.prisma;
  const [analytics, endpoints, onboarding] = await Promise.all([
    getAnalytics({ prisma, tenantId: tenant.id, query: analyticsQuerySchema.parse({}) }),
    prisma.endpoint.findMany({
      where: { tenantId: tenant.id },
      select: { id: true, method: true, path: true, title: true },
      orderBy: [{ path: "asc" }, { method: "asc" }],
    }),
    getOnboardingState({ prisma, tenantId: tenant.id }),
  ]);
  const endpointOptions: EndpointOption[] = endpoints.map((e) => ({ id: e.id, label: `${e.method} ${e.path}${e.title ? ` · ${e.title}` : ""}` }));
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Analytics</h1>
        <p className="mt-1 text-sm text-muted">
          Requests as the gateway counted them, and earnings from settled invoices (the money itself), in UTC days, weeks or months.
        </p>
      </header>
      <AnalyticsView
        tenantId={tenant.id}
        initial={analyticsResponseSchema.parse(analytics)}
        endpoints={endpointOptions}
        nextSteps={{
          walletConnected: onboarding.walletConnected,
          hasActiveEndpoint: onboarding.hasActiveEndpoint,
          listed: onboarding.listed,
          walletHref: sectionHref(tenant.slug, "wallet"),
          endpointsHref: sectionHref(tenant.slug, "endpoints"),
          directoryHref: `/directory/${tenant.slug}`,
          gatewayUrl: gatewayUrlFor(ctx.config, tenant.slug),
        }}
      />
    </div>
  );
}
