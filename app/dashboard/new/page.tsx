// /dashboard/new: create another workspace.
import type { Metadata } from "next";
import { getServerContext } from "@/lib/server-context.ts";
import { CreateWorkspaceForm } from "@/app/dashboard/_components/create-workspace-form.tsx";
import { requireUser } from "@/app/dashboard/session.ts";

export const metadata: Metadata = { title: "New workspace" };
export const dynamic = "force-dynamic";

export default async function NewWorkspacePage() {
  const [, ctx] = await Promise.all([requireUser(), getServerContext()]);
  return (
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6">
      <h1 className="text-2xl font-semibold tracking-tight">New workspace</h1>
      <p className="mt-2 text-muted">Each workspace has its own gateway address, origin, wallet and members.</p>
      <div className="card mt-6">
        <CreateWorkspaceForm gatewayUrlTemplate={ctx.config.gatewayUrlTemplate} />
      </div>
    </div>
  );
}
