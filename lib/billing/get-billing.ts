// The provider's view of its billing (GET /api/tenants/:tenantId/billing and …/billing/cycles):
// status, the cycle under way with its projected fee, the invoice to pay, and past cycles.
import type { PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import { billingStartsAt, cycleAt } from "./cycle-schedule.ts";
import { computeCycleFee } from "./fee.ts";
import { measureCycle } from "./measure-cycle.ts";
import type { BillingView, CycleView, CyclesQuery } from "./schemas.ts";

export type GetBillingOptions = { prisma: PrismaClient; tenantId: string; now?: Date };

/** Where the workspace stands at `now`: free (never published, or exempt), trial, active or suspended. */
export async function getBilling({ prisma, tenantId, now = new Date() }: GetBillingOptions): Promise<BillingView> {
  const tenant = await prisma.tenant.findUnique({
    where: { id: tenantId },
    select: { status: true, trialStartedAt: true, trialDays: true, billingExempt: true },
  });
  if (!tenant) throw new AppError("not_found", "Workspace not found");
  // The install's own APIs (demo, hosted examples) never pay the fee: always free, no cycle.
  const start = tenant.billingExempt ? null : billingStartsAt(tenant);
  const outstanding = await prisma.billingCycle.findFirst({
    where: { tenantId, status: "invoiced" },
    orderBy: { periodStart: "asc" },
    select: { totalSats: true, paymentRequest: true, dueAt: true },
  });
  const status = !start ? "free" : tenant.status === "suspended" ? "suspended" : now < start ? "trial" : "active";
  return {
    status,
    trialEndsAt: start,
    currentCycle: start ? await currentCycle({ prisma, tenantId, billingStart: start, now }) : null,
    outstandingInvoice:
      outstanding?.paymentRequest && outstanding.dueAt
        ? { amountSats: outstanding.totalSats, paymentRequest: outstanding.paymentRequest, dueAt: outstanding.dueAt }
        : null,
  };
}

/** The cycle under way (null during the trial), its figures so far and what they would cost. */
async function currentCycle({ prisma, tenantId, billingStart, now }: { prisma: PrismaClient; tenantId: string; billingStart: Date; now: Date }) {
  const cycle = cycleAt(billingStart, now);
  if (!cycle) return null;
  const measured = await measureCycle({ prisma, tenantId, ...cycle });
  return {
    startsAt: cycle.periodStart,
    endsAt: cycle.periodEnd,
    requests: measured.requests,
    earningsSats: measured.earningsSats,
    projectedFeeSats: computeCycleFee(measured).amountSats,
  };
}

export type ListCyclesOptions = GetBillingOptions & CyclesQuery;

/**
 * Cycles newest first: on the first page the one under way (`open`, figures so far, fee projected),
 * then the closed ones. The cursor is the last cycle's start.
 */
export async function listCycles({
  prisma,
  tenantId,
  now = new Date(),
  limit,
  before,
}: ListCyclesOptions): Promise<{ cycles: CycleView[]; nextCursor: string | null }> {
  const tenant = await prisma.tenant.findUnique({ where: { id: tenantId }, select: { trialStartedAt: true, trialDays: true } });
  if (!tenant) throw new AppError("not_found", "Workspace not found");
  const views: CycleView[] = [];
  const start = billingStartsAt(tenant);
  const underWay = !before && start ? cycleAt(start, now) : null;
  const closedRows = await prisma.billingCycle.findMany({
    where: { tenantId, ...(before ? { periodStart: { lt: new Date(before) } } : {}) },
    orderBy: { periodStart: "desc" },
    take: limit + 1,
  });
  // The cycle under way has no row until it closes (a closed cycle's row replaces it).
  if (underWay && !closedRows.some((r) => r.periodStart.getTime() === underWay.periodStart.getTime())) {
    const measured = await measureCycle({ prisma, tenantId, ...underWay });
    const fee = computeCycleFee(measured);
    views.push({
      startsAt: underWay.periodStart,
      endsAt: underWay.periodEnd,
      requests: measured.requests,
      earningsSats: measured.earningsSats,
      baseFeeSats: fee.baseFeeSats,
      usageFeeSats: fee.usageFeeSats,
      amountSats: fee.amountSats,
      status: "open",
      paymentRequest: null,
    });
  }
  for (const row of closedRows) {
    views.push({
      startsAt: row.periodStart,
      endsAt: row.periodEnd,
      requests: row.requests,
      earningsSats: row.earningsSats,
      baseFeeSats: row.baseFeeSats,
      usageFeeSats: row.usageFeeSats,
      amountSats: row.totalSats,
      status: row.status,
      paymentRequest: row.paymentRequest,
    });
  }
  const page = views.slice(0, limit);
  const more = views.length > limit;
  return { cycles: page, nextCursor: more ? (page[page.length - 1]!.startsAt as Date).toISOString() : null };
}

/** Why a suspended workspace is suspended: its oldest fee invoice that suspended it and is still unpaid. */
export type Suspension = { amountSats: number; dueAt: Date; suspendedAt: Date };

/** The suspension the dashboard's banner explains, or null when the workspace is not suspended for an unpaid invoice. */
export async function getSuspension({ prisma, tenantId }: { prisma: PrismaClient; tenantId: string }): Promise<Suspension | null> {
  const cycle = await prisma.billingCycle.findFirst({
    where: { tenantId, status: "invoiced", suspendedAt: { not: null }, tenant: { status: "suspended" } },
    orderBy: { periodStart: "asc" },
    select: { totalSats: true, dueAt: true, suspendedAt: true },
  });
  if (!cycle?.dueAt || !cycle.suspendedAt) return null;
  return { amountSats: cycle.totalSats, dueAt: cycle.dueAt, suspendedAt: cycle.suspendedAt };
}
