// A workspace's frame: switcher, section navigation, the suspension banner (while an unpaid fee
// invoice suspends it), and the page. 404 for non-members (the same answer as for a slug that does
// not exist).
import type { ReactNode } from "react";
import { getSuspension } from "@/lib/billing/get-billing.ts";
import { listWorkspacesForUser } from "@/lib/workspaces/list-workspaces.ts";
import { DashboardNav } from "@/app/dashboard/_components/dashboard-nav.tsx";
import { sectionHref } from "@/app/dashboard/_components/sections.ts";
import { SuspensionBanner } from "@/app/dashboard/_components/suspension-banner.tsx";
import { WorkspaceSwitcher } from "@/app/dashboard/_components/workspace-switcher.tsx";
import { requireWorkspace } from "@/app/dashboard/session.ts";

export default async function WorkspaceLayout({ children, params }: { children: ReactNode; params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { user, ctx, tenant } = await requireWorkspace(slug);
  const suspended = tenant.status === "suspended";
  const [workspaces, suspension] = await Promise.all([
    listWorkspacesForUser({ prisma: ctx.db.prisma, userId: user.id }),
    suspended ? getSuspension({ prisma: ctx.db.prisma, tenantId: tenant.id }) : null,
  ]);
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 lg:flex-row lg:gap-10 lg:py-10">
      <aside className="flex shrink-0 flex-col gap-4 lg:w-56">
        <WorkspaceSwitcher current={{ slug: tenant.slug, name: tenant.name }} workspaces={workspaces} />
        <DashboardNav slug={tenant.slug} />
      </aside>
      <div className="min-w-0 flex-1">
        <SuspensionBanner
          tenantId={tenant.id}
          billingHref={sectionHref(tenant.slug, "billing")!}
          initial={{ suspended, notice: suspension && { amountSats: suspension.amountSats, dueAt: suspension.dueAt.toISOString() } }}
        />
        {children}
      </div>
    </div>
  );
}
