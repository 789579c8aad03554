// Deleting a workspace (DELETE /api/tenants/:tenantId, the dashboard's danger zone; spec 1.10):
// the platform fee stops, the outstanding fee invoice is canceled, and the gateway answers 404 for
// its URL. A soft delete (docs/decisions.md "Deleting a workspace"): the row stays, marked with
// `deletedAt`, so the slug stays reserved (nobody else can take over a URL that agents and
// consumers still call) and the money records (invoices received, fee cycles) stay for accounting;
// everything that would let the workspace act or be reached goes.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "./config-events.ts";

export type DeleteTenantOptions = {
  prisma: PrismaClient;
  /** Where every gateway instance hears that the tenant is gone (its cache drops it at once). */
  store: KeyValueStore;
  tenantId: string;
  log?: (message: string, err: unknown) => void;
};

/** What one deletion did. */
export type DeletedTenant = { slug: string; deletedAt: Date; canceledCycles: number };

/**
 * Deletes the workspace once, in one transaction: the tenant marked deleted (unlisted, inactive),
 * its fee cycles still to be paid (`open` or `invoiced`) turned `canceled`, endpoints unpublished,
 * webhook subscriptions disabled, API keys revoked, the wallet's sealed credentials and the
 * memberships and invitations removed. 404 when it does not exist or was already deleted (a racing
 * second call finds the conditional update already done and changes nothing).
 */
export async function deleteTenant({ prisma, store, tenantId, log }: DeleteTenantOptions): Promise<DeletedTenant> {
  const deleted = await prisma.$transaction(
    async (tx) => {
      // The conditional write that makes the deletion happen once; the database clock stamps it.
      const rows = await tx.$queryRaw<{ slug: string; deletedAt: Date }[]>`
      UPDATE "Tenant" SET "deletedAt" = now(), "status" = 'inactive', "listed" = false, "updatedAt" = now()
      WHERE "id" = ${tenantId} AND "deletedAt" IS NULL
      RETURNING "slug", "deletedAt"`;
      const tenant = rows[0];
      if (!tenant) return null;
      // A fee not yet paid is never collected: the invoice's row says canceled (it stays for the record;
      // paying the old BOLT11 string afterwards changes nothing, as no pass looks at canceled cycles).
      const canceled = await tx.billingCycle.updateMany({
        where: { tenantId, status: { in: ["open", "invoiced"] } },
        data: { status: "canceled", invoiceClaimedUntil: null },
      });
      await tx.endpoint.updateMany({ where: { tenantId, isActive: true }, data: { isActive: false } });
      await tx.webhookSubscription.updateMany({ where: { tenantId, isActive: true }, data: { isActive: false } });
      await tx.apiKey.updateMany({ where: { tenantId, revokedAt: null }, data: { revokedAt: tenant.deletedAt } });
      await tx.wallet.deleteMany({ where: { tenantId } });
      await tx.invitation.deleteMany({ where: { tenantId } });
      await tx.membership.deleteMany({ where: { tenantId } });
      return { slug: tenant.slug, deletedAt: tenant.deletedAt, canceledCycles: canceled.count };
    },
    // Racing deletions queue on the tenant row (or, on PGlite, for the one connection): let them wait
    // their turn and answer 404, rather than fail on Prisma's default 2 s wait for a transaction.
    { maxWait: 10_000, timeout: 15_000 },
  );
  if (!deleted) throw new AppError("not_found", "Workspace not found");
  await publishConfigChanged({ store, tenantId, log });
  return deleted;
}
