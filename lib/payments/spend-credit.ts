// Prepaid credit (spec 2.3, 4.1 rule 7): a paid credit proof is a sats balance usable on every
// per_request endpoint of the tenant that issued it, each call burning that endpoint's price. The
// Credit row is created on the proof's first valid presentation (INSERT … ON CONFLICT DO NOTHING,
// with the invoice's settlement and invoice.settled in the same transaction); every burn and refund
// is one conditional statement, so concurrent calls never spend a sat twice, and commits durably
// like session debits (lib/payments/debit-session.ts): a burn a crash undid would be a free call. The
// database's now() decides whether the credit has lapsed, as it does for sessions.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@/lib/db/client.ts";
import { settleInvoice } from "./settle-invoice.ts";
import { runHot, type HotDb, type HotStatement } from "./hot-sql.ts";

/** `no_invoice`: the proof's invoice is not a credit invoice of this tenant (never expected for a valid macaroon). */
export type CreditSpendResult = { ok: true; creditId: string; balanceSats: number } | { ok: false; reason: "expired" | "depleted" | "no_invoice" };

/** Whose credit (the proof's payment hash, at this tenant) pays which call. */
export type SpendCreditOptions = HotDb & {
  prisma: PrismaClient;
  tenantId: string;
  paymentHash: string;
  /** The endpoint being called: its price is burnt, and it is recorded on the first settlement. */
  endpointId: string;
  priceSats: number;
  /** When the credit lapses: the macaroon's valid_until (challenge time + CREDIT_TTL_DAYS). */
  expiresAt: Date;
};

type Burnt = { id: string; balanceSats: number };

/** $1 payment hash, $2 tenant, $3 price. Alone or inside the transaction that opens the credit. */
const burnStatement: HotStatement = {
  name: "hub_credit_burn",
  text: `
    UPDATE "Credit" SET "balanceSats" = "balanceSats" - $3, "updatedAt" = now()
    WHERE "paymentHash" = $1 AND "tenantId" = $2 AND "balanceSats" >= $3 AND "expiresAt" > now()
    RETURNING "id", "balanceSats"`,
};

const refundStatement: HotStatement = {
  name: "hub_credit_refund",
  text: `
    UPDATE "Credit" SET "balanceSats" = "balanceSats" + $2, "updatedAt" = now()
    WHERE "id" = $1
    RETURNING "balanceSats"`,
};

/** Burns one call's price from the credit, opening the credit on its first use. */
export async function spendCredit(options: SpendCreditOptions): Promise<CreditSpendResult> {
  const { prisma, tenantId, paymentHash, priceSats } = options;
  const values = [paymentHash, tenantId, priceSats];
  const burn = (db: HotDb) => runHot<Burnt>(db, burnStatement, values);

  const burnt = (await burn(options))[0];
  if (burnt) return { ok: true, creditId: burnt.id, balanceSats: burnt.balanceSats };

  const existing = (
    await prisma.$queryRaw<{ tenantId: string; expired: boolean }[]>`
      SELECT "tenantId", "expiresAt" <= now() AS "expired" FROM "Credit" WHERE "paymentHash" = ${paymentHash}`
  )[0];
  if (existing) {
    if (existing.tenantId !== tenantId) return { ok: false, reason: "no_invoice" };
    if (existing.expired) return { ok: false, reason: "expired" };
    // A concurrent first presentation may have opened it between our burn and our read: burn again.
    const retried = (await burn(options))[0];
    return retried ? { ok: true, creditId: retried.id, balanceSats: retried.balanceSats } : { ok: false, reason: "depleted" };
  }

  const invoice = await prisma.invoice.findUnique({ where: { paymentHash }, select: { tenantId: true, purpose: true, amountSats: true } });
  if (!invoice || invoice.tenantId !== tenantId || invoice.purpose !== "credit") return { ok: false, reason: "no_invoice" };
  // An instant with its zone (ISO 8601, Z): the same timestamptz in any session.
  const expiresAt = options.expiresAt.toISOString();

  const first = await prisma.$transaction(async (tx) => {
    // The credit lapses at the macaroon's valid_until, by the database's clock.
    const [opening] = await tx.$queryRaw<{ lapsed: boolean; id: string | null }[]>`
      WITH lapse AS (SELECT ${expiresAt}::timestamptz <= now() AS "lapsed"),
      inserted AS (
        INSERT INTO "Credit" ("id", "tenantId", "paymentHash", "balanceSats", "initialSats", "expiresAt", "createdAt", "updatedAt")
        SELECT ${randomUUID()}, ${tenantId}, ${paymentHash}, ${invoice.amountSats}::int, ${invoice.amountSats}::int, ${expiresAt}::timestamptz, now(), now()
        FROM lapse WHERE NOT lapse."lapsed"
        ON CONFLICT ("paymentHash") DO NOTHING
        RETURNING "id"
      )
      SELECT (SELECT "lapsed" FROM lapse) AS "lapsed", (SELECT "id" FROM inserted) AS "id"`;
    if (opening.lapsed) return "lapsed" as const;
    if (opening.id) await settleInvoice({ tx, tenantId, paymentHash, source: "proof" });
    // Whether this request or a concurrent one opened it, the burn itself is the one conditional update.
    return (await burn({ prisma: tx }))[0] ?? null;
  });
  if (first === "lapsed") return { ok: false, reason: "expired" };
  return first ? { ok: true, creditId: first.id, balanceSats: first.balanceSats } : { ok: false, reason: "depleted" };
}

/** Returns a burnt price to the credit after an upstream failure or a stream that delivered nothing. */
export async function refundCredit(options: HotDb & { creditId: string; amount: number }): Promise<{ balanceSats: number | null }> {
  const rows = await runHot<{ balanceSats: number }>(options, refundStatement, [options.creditId, options.amount]);
  return { balanceSats: rows[0]?.balanceSats ?? null };
}
