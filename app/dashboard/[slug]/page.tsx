// /dashboard/<slug>: the workspace overview. The onboarding checklist is computed from the real
// state and links each open step to its page (when that page exists).
import type { Metadata } from "next";
import Link from "next/link";
import { getAnalytics } from "@/lib/analytics/get-analytics.ts";
import { formatCount, plural } from "@/lib/analytics/present.ts";
import { analyticsQuerySchema } from "@/lib/analytics/schemas.ts";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { getOnboardingState, onboardingSteps, type OnboardingStepId } from "@/lib/workspaces/onboarding.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { StatCard } from "@/app/dashboard/_components/stat-card.tsx";
import { sectionHref } from "@/app/dashboard/_components/sections.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";

export const metadata: Metadata = { title: "Overview" };

/** The dashboard section that completes each step. */
const stepSection: Record<OnboardingStepId, string> = { origin: "origin", wallet: "wallet", endpoint: "endpoints", listed: "settings" };

export default async function OverviewPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  const [onboarding, recent] = await Promise.all([
    getOnboardingState({ prisma: ctx.db.prisma, tenantId: tenant.id }),
    getAnalytics({ prisma: ctx.db.prisma, tenantId: tenant.id, query: analyticsQuerySchema.parse({}) }),
  ]);
  const steps = onboardingSteps(onboarding);
  const analyticsHref = sectionHref(tenant.slug, "analytics");
  const next = steps.find((s) => !s.done);
  const doneCount = steps.filter((s) => s.done).length;
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">{tenant.name}</h1>
        <p className="mt-1 text-sm text-muted">
          {tenant.slug} · you are {role === "owner" ? "an owner" : "a member"} · status {tenant.status}
        </p>
      </header>
      <section aria-labelledby="gateway-heading" className="flex flex-col gap-2">
        <h2 id="gateway-heading" className="text-sm font-medium text-muted">
          Gateway address
        </h2>
        <CodeBlock code={gatewayUrlFor(ctx.config, tenant.slug)} copyLabel="Copy gateway address" wrap />
      </section>
      <section aria-labelledby="recent-heading" className="flex flex-col gap-2">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="recent-heading" className="text-sm font-medium text-muted">
            Last 30 days
          </h2>
          {analyticsHref ? (
            <Link href={analyticsHref} className="text-sm text-accent underline">
              Analytics
            </Link>
          ) : null}
        </div>
        <dl className="grid grid-cols-3 gap-3">
          <StatCard label="Requests" value={formatCount(recent.totals.requests)} />
          <StatCard label="Paid requests" value={formatCount(recent.totals.paidRequests)} />
          <StatCard label="Earnings" value={plural(recent.totals.earningsSats, "sat")} />
        </dl>
      </section>
      <section aria-labelledby="checklist-heading" className="card">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="checklist-heading" className="text-lg font-semibold">
            Get started
          </h2>
          <p className="text-sm text-muted">
            {doneCount} of {steps.length} done
          </p>
        </div>
        <ol className="mt-4 flex flex-col gap-3">
          {steps.map((step, i) => {
            const href = sectionHref(tenant.slug, stepSection[step.id]);
            return (
              <li key={step.id} className="flex items-start gap-3" aria-label={`${step.title}: ${step.done ? "done" : "to do"}`}>
                <span
                  aria-hidden
                  className={`mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full border text-xs font-semibold ${
                    step.done ? "border-success bg-success-soft text-success" : "border-line-strong text-muted"
                  }`}
                >
                  {step.done ? "✓" : i + 1}
                </span>
                <div className="min-w-0 flex-1">
                  <p className={`font-medium ${step.done ? "text-muted line-through" : ""}`}>{step.title}</p>
                  <p className="text-sm text-muted">{step.hint}</p>
                  {!step.done && step === next ? (
                    href ? (
                      <Link href={href} className="btn-primary mt-2">
                        {step.title}
                      </Link>
                    ) : (
                      <p className="mt-2 text-sm">
                        Not in the dashboard yet: use the{" "}
                        <Link href="/docs" className="text-accent underline">
                          platform API
                        </Link>{" "}
                        (docs/api.md).
                      </p>
                    )
                  ) : null}
                </div>
              </li>
            );
          })}
        </ol>
        {!next ? <p className="mt-4 text-sm font-medium text-success">All set: your API is live and listed.</p> : null}
      </section>
    </div>
  );
}
