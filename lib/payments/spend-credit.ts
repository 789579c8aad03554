// Prepaid credit (spec 2.3, 4.1 rule 7): a paid credit proof is a sats balance usable on every
// per_request endpoint of the tenant that issued it, each call burning that endpoint's price. The
// Credit row is created on the proof's first valid presentation (INSERT … ON CONFLICT DO NOTHING,
// with the invoice's settlement and invoice.settled in the same transaction); every burn and refund
// is one conditional statement, so concurrent calls never spend a sat twice. Burns commit
// asynchronously like session debits (lib/payments/debit-session.ts); refunds stay durable.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../db/client.ts";
import { enqueueEvent } from "../webhooks/enqueue-event.ts";
import { asyncCommitSql } from "./debit-session.ts";
import { runHot, type HotDb, type HotStatement } from "./hot-sql.ts";
import type { InvoiceSettledData } from "./outbox.ts";

/** `no_invoice`: the proof's invoice is not a credit invoice of this tenant (never expected for a valid macaroon). */
export type CreditSpendResult = { ok: true; creditId: string; balanceSats: number } | { ok: false; reason: "expired" | "depleted" | "no_invoice" };

/** Whose credit (the proof's payment hash, at this tenant) pays which call, and when. */
export type SpendCreditOptions = HotDb & {
  prisma: PrismaClient;
  tenantId: string;
  paymentHash: string;
  /** The endpoint being called: its price is burnt, and it is recorded on the first settlement. */
  endpointId: string;
  priceSats: number;
  /** When the credit lapses: the macaroon's valid_until (challenge time + CREDIT_TTL_DAYS). */
  expiresAt: Date;
  now: Date;
};

type Burnt = { id: string; balanceSats: number };

/** $1 payment hash, $2 tenant, $3 price, $4 now; `guard` decides how the burn commits. */
function burnSql(guard: string): string {
  return `
    UPDATE "Credit" SET "balanceSats" = "balanceSats" - $3, "updatedAt" = $4
    WHERE "paymentHash" = $1 AND "tenantId" = $2 AND "balanceSats" >= $3 AND "expiresAt" > $4
      AND ${guard}
    RETURNING "id", "balanceSats"`;
}

const burnStatement: HotStatement = { name: "hub_credit_burn", text: burnSql(asyncCommitSql) };
const burnInTransactionStatement: HotStatement = { name: "hub_credit_burn_in_tx", text: burnSql("TRUE") };

const refundStatement: HotStatement = {
  name: "hub_credit_refund",
  text: `
    UPDATE "Credit" SET "balanceSats" = "balanceSats" + $2, "updatedAt" = $3
    WHERE "id" = $1
    RETURNING "balanceSats"`,
};

/** Burns one call's price from the credit, opening the credit on its first use. */
export async function spendCredit(options: SpendCreditOptions): Promise<CreditSpendResult> {
  const { prisma, tenantId, paymentHash, priceSats, now } = options;
  const values = [paymentHash, tenantId, priceSats, now];
  // Alone, a burn commits asynchronously; inside the opening transaction it commits with it, durably.
  const burn = (db: HotDb, alone = true) => runHot<Burnt>(db, alone ? burnStatement : burnInTransactionStatement, values);

  const burnt = (await burn(options))[0];
  if (burnt) return { ok: true, creditId: burnt.id, balanceSats: burnt.balanceSats };

  const existing = await prisma.credit.findUnique({ where: { paymentHash }, select: { tenantId: true, expiresAt: true } });
  if (existing) {
    if (existing.tenantId !== tenantId) return { ok: false, reason: "no_invoice" };
    if (existing.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };
    // A concurrent first presentation may have opened it between our burn and our read: burn again.
    const retried = (await burn(options))[0];
    return retried ? { ok: true, creditId: retried.id, balanceSats: retried.balanceSats } : { ok: false, reason: "depleted" };
  }

  const invoice = await prisma.invoice.findUnique({ where: { paymentHash }, select: { tenantId: true, purpose: true, amountSats: true } });
  if (!invoice || invoice.tenantId !== tenantId || invoice.purpose !== "credit") return { ok: false, reason: "no_invoice" };
  if (options.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: "expired" };

  const first = await prisma.$transaction(async (tx) => {
    const inserted = await tx.$queryRaw<{ id: string }[]>`
      INSERT INTO "Credit" ("id", "tenantId", "paymentHash", "balanceSats", "initialSats", "expiresAt", "createdAt", "updatedAt")
      VALUES (${randomUUID()}, ${tenantId}, ${paymentHash}, ${invoice.amountSats}, ${invoice.amountSats}, ${options.expiresAt}, ${now}, ${now})
      ON CONFLICT ("paymentHash") DO NOTHING
      RETURNING "id"`;
    if (inserted[0]) {
      const settled = await tx.invoice.updateManyAndReturn({
        where: { paymentHash, tenantId, status: { not: "settled" } },
        data: { status: "settled", settledAt: now },
      });
      if (settled[0]) {
        const data: InvoiceSettledData = {
          paymentHash,
          amountSats: settled[0].amountSats,
          purpose: "credit",
          endpointId: settled[0].endpointId,
          settledAt: now.toISOString(),
          source: "proof",
        };
        await enqueueEvent(tx, { tenantId, type: "invoice.settled", data });
      }
    }
    // Whether this request or a concurrent one opened it, the burn itself is the one conditional update.
    return (await burn({ prisma: tx }, false))[0] ?? null;
  });
  return first ? { ok: true, creditId: first.id, balanceSats: first.balanceSats } : { ok: false, reason: "depleted" };
}

/** Returns a burnt price to the credit after an upstream failure or a stream that delivered nothing. */
export async function refundCredit(options: HotDb & { creditId: string; amount: number; now: Date }): Promise<{ balanceSats: number | null }> {
  const rows = await runHot<{ balanceSats: number }>(options, refundStatement, [options.creditId, options.amount, options.now]);
  return { balanceSats: rows[0]?.balanceSats ?? null };
}
