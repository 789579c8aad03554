// Workspace members and their roles. Who may call what (owners manage; anyone may leave) is the
// route's business; here are the rules every caller gets: a workspace always keeps at least one
// owner, and each change locks the tenant row so two concurrent demotions cannot both pass.
import type { Prisma, PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { InvitationRow, MemberInvite, MemberRole, MemberRow } from "./schemas.ts";

type Tx = Prisma.TransactionClient;

const memberSelect = { role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } } as const;

function toMember(row: { role: MemberRole; createdAt: Date; user: { id: string; name: string | null; email: string | null } }) {
  return { userId: row.user.id, name: row.user.name, email: row.user.email, role: row.role, joinedAt: row.createdAt };
}

/** Members (owners first) and pending invitations of one workspace. */
export async function listMembers({ prisma, tenantId }: { prisma: PrismaClient; tenantId: string }) {
  const [members, invitations] = await Promise.all([
    prisma.membership.findMany({ where: { tenantId }, select: memberSelect, orderBy: [{ role: "asc" }, { createdAt: "asc" }] }),
    prisma.invitation.findMany({ where: { tenantId }, orderBy: { createdAt: "asc" }, select: { id: true, email: true, role: true, createdAt: true } }),
  ]);
  return { members: members.map(toMember), invitations };
}

/** Serializes membership changes of one workspace (the last-owner rule needs a stable count). */
async function lockTenant(tx: Tx, tenantId: string): Promise<void> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Tenant" WHERE "id" = ${tenantId} FOR UPDATE`;
  if (rows.length === 0) throw new AppError("not_found", "Workspace not found");
}

async function assertOwnerRemains(tx: Tx, tenantId: string): Promise<void> {
  const owners = await tx.membership.count({ where: { tenantId, role: "owner" } });
  if (owners === 0) throw new AppError("conflict", "A workspace needs at least one owner: make someone else owner first");
}

export type InviteMemberOptions = { prisma: PrismaClient; tenantId: string; invite: MemberInvite; invitedById: string | null };

/**
 * Adds the user with this e-mail when one exists; otherwise records an invitation that becomes a
 * membership at that address's first sign-in (docs/decisions.md). 409 when already a member.
 */
export async function inviteMember({
  prisma,
  tenantId,
  invite,
  invitedById,
}: InviteMemberOptions): Promise<{ kind: "member"; member: MemberRow } | { kind: "invitation"; invitation: InvitationRow }> {
  return prisma.$transaction(async (tx) => {
    await lockTenant(tx, tenantId);
    const user = await tx.user.findUnique({ where: { email: invite.email }, select: { id: true } });
    if (user) {
      const existing = await tx.membership.findUnique({ where: { tenantId_userId: { tenantId, userId: user.id } } });
      if (existing) throw new AppError("conflict", `${invite.email} is already a member`, { fields: [{ field: "email", message: "is already a member" }] });
      const row = await tx.membership.create({ data: { tenantId, userId: user.id, role: invite.role }, select: memberSelect });
      return { kind: "member" as const, member: toMember(row) };
    }
    const invitation = await tx.invitation.upsert({
      where: { tenantId_email: { tenantId, email: invite.email } },
      create: { tenantId, email: invite.email, role: invite.role, invitedById },
      update: { role: invite.role },
      select: { id: true, email: true, role: true, createdAt: true },
    });
    return { kind: "invitation" as const, invitation };
  });
}

export type ChangeMemberRoleOptions = { prisma: PrismaClient; tenantId: string; userId: string; role: MemberRole };

/** Sets a member's role; demoting the last owner is refused (409). */
export async function changeMemberRole({ prisma, tenantId, userId, role }: ChangeMemberRoleOptions): Promise<MemberRow> {
  return prisma.$transaction(async (tx) => {
    await lockTenant(tx, tenantId);
    const updated = await tx.membership.updateMany({ where: { tenantId, userId }, data: { role } });
    if (updated.count === 0) throw new AppError("not_found", "Member not found");
    await assertOwnerRemains(tx, tenantId);
    return toMember(await tx.membership.findUniqueOrThrow({ where: { tenantId_userId: { tenantId, userId } }, select: memberSelect }));
  });
}

/** Removes a member (or lets one leave); removing the last owner is refused (409). */
export async function removeMember({ prisma, tenantId, userId }: { prisma: PrismaClient; tenantId: string; userId: string }): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await lockTenant(tx, tenantId);
    const removed = await tx.membership.deleteMany({ where: { tenantId, userId } });
    if (removed.count === 0) throw new AppError("not_found", "Member not found");
    await assertOwnerRemains(tx, tenantId);
  });
}

/** Withdraws a pending invitation of this workspace. */
export async function cancelInvitation({ prisma, tenantId, invitationId }: { prisma: PrismaClient; tenantId: string; invitationId: string }): Promise<void> {
  const removed = await prisma.invitation.deleteMany({ where: { id: invitationId, tenantId } });
  if (removed.count === 0) throw new AppError("not_found", "Invitation not found");
}

/**
 * Turns every invitation of a verified e-mail address into memberships of the user who just signed
 * in with it (Auth.js `signIn` event). Returns how many workspaces were joined.
 */
export async function acceptInvitations({ prisma, userId, email }: { prisma: PrismaClient; userId: string; email: string }): Promise<number> {
  const address = email.trim().toLowerCase();
  return prisma.$transaction(async (tx) => {
    const invitations = await tx.invitation.findMany({ where: { email: address } });
    if (invitations.length === 0) return 0;
    const joined = await tx.membership.createMany({
      data: invitations.map((i) => ({ tenantId: i.tenantId, userId, role: i.role })),
      skipDuplicates: true,
    });
    await tx.invitation.deleteMany({ where: { id: { in: invitations.map((i) => i.id) } } });
    return joined.count;
  });
}
