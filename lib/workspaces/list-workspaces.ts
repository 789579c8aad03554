// The signed-in user's workspaces: for the switcher and for resolving /dashboard/<slug> (a slug the
// user is not a member of resolves to nothing, exactly like one that does not exist).
import type { PrismaClient } from "@/lib/db/client.ts";
import type { MemberRole, WorkspaceSummary } from "./schemas.ts";

/** Every workspace the user belongs to, by name. */
export async function listWorkspacesForUser({ prisma, userId }: { prisma: PrismaClient; userId: string }): Promise<WorkspaceSummary[]> {
  const rows = await prisma.membership.findMany({
    where: { userId },
    select: { role: true, tenant: { select: { id: true, slug: true, name: true } } },
  });
  return rows.map((r) => ({ ...r.tenant, role: r.role })).sort((a, b) => a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug));
}

export type WorkspaceForUser = { tenant: Awaited<ReturnType<PrismaClient["tenant"]["findUniqueOrThrow"]>>; role: MemberRole };

/** The workspace with this slug when the user is a member, else null (scoped in the query). */
export async function getWorkspaceForUser({ prisma, userId, slug }: { prisma: PrismaClient; userId: string; slug: string }): Promise<WorkspaceForUser | null> {
  const membership = await prisma.membership.findFirst({ where: { userId, tenant: { slug } }, include: { tenant: true } });
  return membership ? { tenant: membership.tenant, role: membership.role } : null;
}
