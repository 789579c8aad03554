// /dashboard/<slug>/settings: the workspace profile (name, description, tags, directory opt-out)
// its members with roles and pending invitations, and (owners) the danger zone: deleting it.
import type { Metadata } from "next";
import { membersResponseSchema } from "@/lib/workspaces/schemas.ts";
import { listMembers } from "@/lib/workspaces/members.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { DangerZone } from "./danger-zone.tsx";
import { MembersPanel } from "./members-panel.tsx";
import { ProfileForm } from "./profile-form.tsx";

export const metadata: Metadata = { title: "Settings & members" };

export default async function SettingsPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role, user } = await requireWorkspace(slug);
  const members = membersResponseSchema.parse(await listMembers({ prisma: ctx.db.prisma, tenantId: tenant.id }));
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Settings &amp; members</h1>
        <p className="mt-1 text-sm text-muted">
          Slug <span className="font-mono">{tenant.slug}</span> is permanent: it is your gateway address.
        </p>
      </header>
      <section aria-labelledby="profile-heading" className="card flex flex-col gap-4">
        <h2 id="profile-heading" className="text-lg font-semibold">
          Profile
        </h2>
        <ProfileForm tenantId={tenant.id} initial={{ name: tenant.name, description: tenant.description, tags: tenant.tags, listed: tenant.listed }} />
      </section>
      <MembersPanel tenantId={tenant.id} initial={members} isOwner={role === "owner"} currentUserId={user.id} />
      {role === "owner" ? <DangerZone tenantId={tenant.id} slug={tenant.slug} /> : null}
    </div>
  );
}
