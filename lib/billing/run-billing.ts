// Every due billing transition at one instant (spec 1.10, 3.2, 8): close the cycles that ended,
// invoice them from the platform's wallet, record payments, suspend the overdue. Each transition is
// one conditional write (an INSERT … ON CONFLICT DO NOTHING or an UPDATE … WHERE state) with its
// event in the same transaction, so two workers (or the worker and the admin clock) racing each do
// it once. `now` is the one clock of every decision; only the invoicing lease uses the database's.
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import { enqueueEvent, type OutboxWriter } from "@/lib/events/enqueue-event.ts";
import type { WalletBackend } from "@/lib/lightning/index.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { billingStartsAt, cycleFrom, isDueForClosing, paymentDueAt } from "./cycle-schedule.ts";
import { computeCycleFee } from "./fee.ts";
import { measureCycle } from "./measure-cycle.ts";

export type RunBillingOptions = {
  prisma: PrismaClient;
  /** Where gateways hear that a tenant was suspended or reactivated. */
  store: KeyValueStore;
  /** The platform's wallet (platform-wallet.ts); null: cycles close but wait for a wallet to be invoiced. */
  wallet: WalletBackend | null;
  now: Date;
  log?: Logger;
};

/** What one pass did: each count is of transitions this caller made (a racing caller's are not in it). */
export type BillingPass = { closed: number; invoiced: number; paid: number; suspended: number; reactivated: number };

/** Cycles one tenant may catch up on in one pass (a worker that was down for months). */
const MAX_CYCLES_PER_TENANT = 13;
/** How long a worker may take to issue one invoice before another may try. */
const INVOICE_CLAIM_MS = 120_000;
/** A billing invoice stays payable this long, so a suspended tenant can still pay it. */
const INVOICE_EXPIRY_SECONDS = 60 * 24 * 3600;

/** Runs every transition due at `now`, in order: close, invoice, payments, suspensions. */
export async function runBilling(options: RunBillingOptions): Promise<BillingPass> {
  const closed = await closeDueCycles(options);
  const invoiced = await invoiceClosedCycles(options);
  const { paid, reactivated } = await recordPayments(options);
  const suspended = await suspendOverdue(options);
  return { closed, invoiced, paid, suspended, reactivated };
}

/** Closes, for every billed tenant whose trial has started, each cycle that ended before `now`. */
async function closeDueCycles({ prisma, now }: RunBillingOptions): Promise<number> {
  const tenants = await prisma.tenant.findMany({
    // The install's own APIs (the demo, the hosted examples) are exempt from the fee.
    // A deleted workspace pays nothing more (its unpaid cycles were canceled with it).
    where: { trialStartedAt: { not: null }, billingExempt: false, deletedAt: null },
    select: { id: true, trialStartedAt: true, trialDays: true, billingCycles: { orderBy: { periodStart: "desc" }, take: 1, select: { periodEnd: true } } },
  });
  let closed = 0;
  for (const tenant of tenants) {
    let start = tenant.billingCycles[0]?.periodEnd ?? billingStartsAt(tenant);
    for (let i = 0; start && i < MAX_CYCLES_PER_TENANT; i++) {
      const cycle = cycleFrom(start);
      if (!isDueForClosing(cycle.periodEnd, now)) break;
      if (await closeCycle(prisma, tenant.id, cycle)) closed += 1;
      start = cycle.periodEnd;
    }
  }
  return closed;
}

/**
 * Prices one ended cycle and writes it once: `open` (to be invoiced) when it costs something,
 * `no_charge` with its billing.cycle_closed event when it had no traffic. False when it existed.
 */
async function closeCycle(prisma: PrismaClient, tenantId: string, cycle: { periodStart: Date; periodEnd: Date }): Promise<boolean> {
  const fee = computeCycleFee(await measureCycle({ prisma, tenantId, ...cycle }));
  const status = fee.amountSats === 0 ? "no_charge" : "open";
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<CycleRow[]>`
      INSERT INTO "BillingCycle" ("id", "tenantId", "periodStart", "periodEnd", "requests", "earningsSats", "baseFeeSats", "usageFeeSats",
        "capSats", "totalSats", "tiers", "status", "createdAt", "updatedAt")
      VALUES (gen_random_uuid()::text, ${tenantId}, ${timestamptz(cycle.periodStart)}, ${timestamptz(cycle.periodEnd)}, ${fee.requests}, ${fee.earningsSats},
        ${fee.baseFeeSats}, ${fee.usageFeeSats}, ${fee.capSats}, ${fee.amountSats}, ${JSON.stringify(fee.tiers)}::jsonb,
        CAST(${status} AS "BillingStatus"), now(), now())
      ON CONFLICT ("tenantId", "periodStart") DO NOTHING
      RETURNING ${cycleColumns}`;
    const row = rows[0];
    if (!row) return false;
    if (status === "no_charge") await writeCycleClosed(tx, row);
    return true;
  });
}

/**
 * Issues the invoice of each closed cycle still `open`: a lease on the database clock picks one
 * worker per cycle, the invoice is made, and the cycle turns `invoiced` with its event once.
 */
async function invoiceClosedCycles({ prisma, wallet, now, log }: RunBillingOptions): Promise<number> {
  if (!wallet) {
    const waiting = await prisma.billingCycle.count({ where: { status: "open" } });
    if (waiting) log?.warn("billing cycles wait for a platform wallet (PLATFORM_WALLET_TYPE, or the dev node)", { cycles: waiting });
    return 0;
  }
  const claimed = await prisma.$queryRaw<(CycleRow & { slug: string })[]>`
    UPDATE "BillingCycle" c SET "invoiceClaimedUntil" = now() + ${INVOICE_CLAIM_MS}::double precision * interval '1 millisecond', "updatedAt" = now()
    FROM "Tenant" t
    WHERE t."id" = c."tenantId" AND c."id" IN (
      SELECT "id" FROM "BillingCycle" WHERE "status" = 'open' AND ("invoiceClaimedUntil" IS NULL OR "invoiceClaimedUntil" < now())
      ORDER BY "periodEnd" LIMIT 100 FOR UPDATE SKIP LOCKED)
      AND c."status" = 'open' AND (c."invoiceClaimedUntil" IS NULL OR c."invoiceClaimedUntil" < now())
    RETURNING ${cycleColumnsOf("c")}, t."slug"`;
  let invoiced = 0;
  for (const cycle of claimed) {
    try {
      const invoice = await wallet.createInvoice({
        amountSats: cycle.totalSats,
        description: feeInvoiceDescription(cycle.slug, cycle),
        expirySeconds: INVOICE_EXPIRY_SECONDS,
      });
      const dueAt = paymentDueAt(now);
      const done = await prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<CycleRow[]>`
          UPDATE "BillingCycle" SET "status" = 'invoiced', "paymentHash" = ${invoice.paymentHash}, "paymentRequest" = ${invoice.paymentRequest},
            "dueAt" = ${timestamptz(dueAt)}, "invoiceClaimedUntil" = NULL, "updatedAt" = now()
          WHERE "id" = ${cycle.id} AND "status" = 'open'
          RETURNING ${cycleColumns}`;
        if (rows[0]) await writeCycleClosed(tx, rows[0]);
        return rows.length;
      });
      invoiced += done;
    } catch (error) {
      // The claim lapses and a later pass tries again; the cycle stays `open` meanwhile.
      log?.error("billing invoice not issued", { cycleId: cycle.id, tenantId: cycle.tenantId, error });
    }
  }
  return invoiced;
}

/**
 * Records, for one tenant only, a payment of its outstanding fee invoice at `now`: what the billing
 * page asks right after paying (POST /api/tenants/:tenantId/billing/check), so a suspended
 * workspace is back at once instead of at the worker's next pass. The same conditional writes as
 * the worker's, so whichever of the two sees the payment first records it, once.
 */
export async function recordTenantPayments(options: RunBillingOptions & { tenantId: string }): Promise<{ paid: number; reactivated: number }> {
  return recordPayments(options, options.tenantId);
}

/** Asks the platform wallet about every unpaid billing invoice (of one tenant, or all); a paid one is recorded once and lifts a suspension. */
async function recordPayments({ prisma, store, wallet, now, log }: RunBillingOptions, tenantId?: string): Promise<{ paid: number; reactivated: number }> {
  if (!wallet) return { paid: 0, reactivated: 0 };
  const unpaid = await prisma.billingCycle.findMany({
    where: { status: "invoiced", ...(tenantId ? { tenantId } : {}) },
    select: { id: true, tenantId: true, paymentHash: true, totalSats: true, periodStart: true, periodEnd: true, tenant: { select: { slug: true } } },
  });
  let paid = 0;
  let reactivated = 0;
  for (const cycle of unpaid) {
    if (!cycle.paymentHash) continue;
    let state: string | undefined;
    try {
      state = (await wallet.lookupInvoice(cycle.paymentHash))?.state;
    } catch (error) {
      log?.warn("billing invoice lookup failed; asking again next pass", { cycleId: cycle.id, error });
      continue;
    }
    if (state === "expired" || state === "canceled") {
      await renewInvoice({ prisma, wallet, log }, { ...cycle, paymentHash: cycle.paymentHash, slug: cycle.tenant.slug });
      continue;
    }
    if (state !== "settled") continue;
    const outcome = await prisma.$transaction(async (tx) => {
      const marked = await tx.billingCycle.updateMany({ where: { id: cycle.id, status: "invoiced" }, data: { status: "paid", paidAt: now } });
      if (marked.count === 0) return { paid: 0, reactivated: 0 };
      await enqueueEvent(tx, {
        tenantId: cycle.tenantId,
        type: "billing.payment_received",
        data: { cycleId: cycle.id, amountSats: cycle.totalSats, paymentHash: cycle.paymentHash!, paidAt: now.toISOString() },
      });
      // Back at once, unless another cycle's unpaid invoice also suspended it.
      const back = await tx.tenant.updateMany({
        where: { id: cycle.tenantId, status: "suspended", billingCycles: { none: { status: "invoiced", suspendedAt: { not: null } } } },
        data: { status: "active" },
      });
      return { paid: 1, reactivated: back.count };
    });
    paid += outcome.paid;
    reactivated += outcome.reactivated;
    if (outcome.reactivated) await publishConfigChanged({ store, tenantId: cycle.tenantId, log: (message, error) => log?.warn(message, { error }) });
  }
  return { paid, reactivated };
}

/**
 * Replaces an unpaid invoice the wallet let expire (a provider may pay long after its suspension),
 * same amount and due date; the invoicing lease keeps two workers from making two.
 */
async function renewInvoice(
  { prisma, wallet, log }: { prisma: PrismaClient; wallet: WalletBackend; log?: Logger },
  cycle: { id: string; paymentHash: string; totalSats: number; periodStart: Date; periodEnd: Date; slug: string },
): Promise<void> {
  const claimed = await prisma.$executeRaw`
    UPDATE "BillingCycle" SET "invoiceClaimedUntil" = now() + ${INVOICE_CLAIM_MS}::double precision * interval '1 millisecond'
    WHERE "id" = ${cycle.id} AND "status" = 'invoiced' AND "paymentHash" = ${cycle.paymentHash}
      AND ("invoiceClaimedUntil" IS NULL OR "invoiceClaimedUntil" < now())`;
  if (claimed === 0) return;
  try {
    const invoice = await wallet.createInvoice({
      amountSats: cycle.totalSats,
      description: feeInvoiceDescription(cycle.slug, cycle),
      expirySeconds: INVOICE_EXPIRY_SECONDS,
    });
    await prisma.billingCycle.updateMany({
      where: { id: cycle.id, status: "invoiced", paymentHash: cycle.paymentHash },
      data: { paymentHash: invoice.paymentHash, paymentRequest: invoice.paymentRequest, invoiceClaimedUntil: null },
    });
  } catch (error) {
    log?.error("expired billing invoice not renewed; trying again after the lease", { cycleId: cycle.id, error });
  }
}

/** What the payer's wallet shows for a fee invoice. */
function feeInvoiceDescription(slug: string, cycle: { periodStart: Date; periodEnd: Date }): string {
  return `L402 Hub platform fee for ${slug}, ${cycle.periodStart.toISOString().slice(0, 10)} to ${cycle.periodEnd.toISOString().slice(0, 10)}`;
}

/** Suspends the tenant of every invoice past its due date, once per cycle, with billing.suspended. */
async function suspendOverdue({ prisma, store, now, log }: RunBillingOptions): Promise<number> {
  const overdue = await prisma.billingCycle.findMany({
    where: { status: "invoiced", suspendedAt: null, dueAt: { lte: now } },
    select: { id: true, tenantId: true, totalSats: true, dueAt: true },
  });
  let suspended = 0;
  for (const cycle of overdue) {
    const done = await prisma.$transaction(async (tx) => {
      const marked = await tx.billingCycle.updateMany({ where: { id: cycle.id, status: "invoiced", suspendedAt: null }, data: { suspendedAt: now } });
      if (marked.count === 0) return false;
      // Only an active tenant is suspended: an inactive one stays as it was, and hears nothing.
      await tx.tenant.updateMany({ where: { id: cycle.tenantId, status: "active" }, data: { status: "suspended" } });
      const tenant = await tx.tenant.findUnique({ where: { id: cycle.tenantId }, select: { status: true } });
      if (tenant?.status !== "suspended") return false;
      await enqueueEvent(tx, {
        tenantId: cycle.tenantId,
        type: "billing.suspended",
        data: { cycleId: cycle.id, amountDueSats: cycle.totalSats, dueAt: cycle.dueAt!.toISOString(), suspendedAt: now.toISOString() },
      });
      return true;
    });
    if (!done) continue;
    suspended += 1;
    await publishConfigChanged({ store, tenantId: cycle.tenantId, log: (message, error) => log?.warn(message, { error }) });
  }
  return suspended;
}

type CycleRow = {
  id: string;
  tenantId: string;
  periodStart: Date;
  periodEnd: Date;
  requests: number;
  earningsSats: number;
  baseFeeSats: number;
  usageFeeSats: number;
  capSats: number;
  totalSats: number;
  paymentRequest: string | null;
  dueAt: Date | null;
};

const columnNames = [
  "id",
  "tenantId",
  "periodStart",
  "periodEnd",
  "requests",
  "earningsSats",
  "baseFeeSats",
  "usageFeeSats",
  "capSats",
  "totalSats",
  "paymentRequest",
  "dueAt",
];
const cycleColumns = Prisma.raw(columnNames.map((c) => `"${c}"`).join(", "));
const cycleColumnsOf = (alias: string) => Prisma.raw(columnNames.map((c) => `${alias}."${c}"`).join(", "));

/** billing.cycle_closed for a priced cycle: the fee recomputed from what was stored (a pure function of it). */
async function writeCycleClosed(tx: OutboxWriter, cycle: CycleRow): Promise<void> {
  const fee = computeCycleFee({ requests: cycle.requests, earningsSats: cycle.earningsSats });
  await enqueueEvent(tx, {
    tenantId: cycle.tenantId,
    type: "billing.cycle_closed",
    data: {
      cycleId: cycle.id,
      periodStart: cycle.periodStart.toISOString(),
      periodEnd: cycle.periodEnd.toISOString(),
      requests: cycle.requests,
      earningsSats: cycle.earningsSats,
      baseFeeSats: cycle.baseFeeSats,
      usageFeeSats: cycle.usageFeeSats,
      capSats: cycle.capSats,
      capApplied: fee.capApplied,
      tiers: fee.tiers,
      totalSats: cycle.totalSats,
      paymentRequest: cycle.paymentRequest,
      dueAt: cycle.dueAt?.toISOString() ?? null,
    },
  });
}

/** An instant as SQL: ISO 8601 with its zone, cast to timestamptz (the same instant in any session time zone). */
function timestamptz(at: Date): Prisma.Sql {
  return Prisma.sql`CAST(${at.toISOString()} AS timestamptz)`;
}
