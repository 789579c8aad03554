// /dashboard: the user's workspaces. One workspace opens directly; none shows how to start.
import Link from "next/link";
import { redirect } from "next/navigation";
import { getServerContext } from "@/lib/server-context.ts";
import { listWorkspacesForUser } from "@/lib/workspaces/list-workspaces.ts";
import { CreateWorkspaceForm } from "./_components/create-workspace-form.tsx";
import { requireUser } from "./session.ts";

export const dynamic = "force-dynamic";

export default async function DashboardHome() {
  const [user, ctx] = await Promise.all([requireUser(), getServerContext()]);
  const workspaces = await listWorkspacesForUser({ prisma: ctx.db.prisma, userId: user.id });
  if (workspaces.length === 1) redirect(`/dashboard/${workspaces[0].slug}`);
  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      {workspaces.length === 0 ? (
        <>
          <h1 className="text-2xl font-semibold tracking-tight">Create your first workspace</h1>
          <p className="mt-2 text-muted">A workspace is one API behind the gateway: its address, origin, wallet, endpoints and team.</p>
          <div className="card mt-6">
            <CreateWorkspaceForm gatewayUrlTemplate={ctx.config.gatewayUrlTemplate} />
          </div>
        </>
      ) : (
        <>
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">Your workspaces</h1>
            <Link href="/dashboard/new" className="btn-primary">
              New workspace
            </Link>
          </div>
          <ul className="mt-6 grid gap-3 sm:grid-cols-2">
            {workspaces.map((w) => (
              <li key={w.id}>
                <Link href={`/dashboard/${w.slug}`} className="card block hover:border-line-strong">
                  <span className="font-medium">{w.name}</span>
                  <span className="mt-1 block text-sm text-muted">
                    {w.slug} · {w.role}
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
