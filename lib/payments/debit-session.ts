// Spending a session (spec 3.3 rules 2-3, 7.3): every balance change is ONE conditional statement
// that PostgreSQL decides, never a read-modify-write, so N concurrent calls on a balance of K serve
// exactly K across any number of gateway instances:
//   debit:  UPDATE … SET balance = balance - cost WHERE … AND balance >= cost AND expiresAt > now RETURNING
//   refund: UPDATE … SET balance = balance + cost WHERE id = … RETURNING
// A refused debit is explained by a second read (unknown token, other endpoint, expired, depleted)
// only on the refusal path; the happy path is one round trip. Debits commit asynchronously
// (synchronous_commit off for that one statement, as finishProof does): a debit lost in a database
// crash can only favour the payer, and without the flush wait a busy session's row lock is held for
// microseconds instead of a disk flush. Refunds stay fully durable.
import { Prisma, type PrismaClient } from "../db/client.ts";
import type { SessionModel } from "../pricing/quote.ts";
import type { SessionState } from "./open-session.ts";

/** Which session: by the hash of the token the client sent, or by id (after opening it from a proof). */
export type SessionLookup = { tokenHash: string } | { sessionId: string };

/**
 * Why a session cannot pay: `unknown` (no such token: forged or tampered), `wrong_endpoint` (a
 * genuine token of another endpoint or tenant), `expired`, `depleted`.
 */
export type SessionRefusal = "unknown" | "wrong_endpoint" | "expired" | "depleted";

/** Which session pays for which endpoint's call, and when (the gateway's clock decides expiry). */
export type DebitSessionOptions = {
  prisma: PrismaClient;
  lookup: SessionLookup;
  tenantId: string;
  endpointId: string;
  /**
   * The endpoint's model now: a time_pass endpoint's call is first tried as a plain read (a pass
   * spends nothing, so it should write nothing); any other case runs the conditional update.
   */
  modelHint: SessionModel;
  now: Date;
};

/** A debited session, with what this call took (to give back on a refund). */
export type DebitedSession = SessionState & { debited: number };

/** The debited session, or why it could not pay (the gateway maps reasons to 401 or 402). */
export type SessionDebitResult = { ok: true; session: DebitedSession } | { ok: false; reason: SessionRefusal };

type Row = { id: string; endpointId: string; model: SessionModel; balance: number | null; unitCostSats: number | null; expiresAt: Date; debited: number };

/**
 * The SQL form of callDebit and minimumBalance (../pricing/quote.ts), evaluated on the row, so a
 * session pays the unit price it was sold at in the same statement that checks and takes it.
 * tests/gateway/sessions.test.ts holds the two forms to the same numbers.
 */
const debitSql = Prisma.sql`(CASE "model" WHEN 'token_bucket' THEN 1 WHEN 'metered' THEN COALESCE("unitCostSats", 0) ELSE 0 END)`;
const minimumSql = Prisma.sql`GREATEST(${debitSql}, CASE "model" WHEN 'per_kb' THEN 1 ELSE 0 END)`;

/** Makes the statement's own transaction commit without waiting for the WAL flush (see the top). */
export const asyncCommitSql = Prisma.sql`EXISTS (SELECT set_config('synchronous_commit', 'off', true))`;

function where(lookup: SessionLookup): Prisma.Sql {
  return "tokenHash" in lookup ? Prisma.sql`"tokenHash" = ${lookup.tokenHash}` : Prisma.sql`"id" = ${lookup.sessionId}`;
}

/**
 * Takes one call's debit from a live session of this endpoint (one request for token_bucket, the
 * unit cost for metered, nothing for time_pass and per_kb, which must still hold one sat).
 */
export async function debitSession(options: DebitSessionOptions): Promise<SessionDebitResult> {
  const { prisma, lookup, tenantId, endpointId, now } = options;
  const live = Prisma.sql`${where(lookup)} AND "tenantId" = ${tenantId} AND "endpointId" = ${endpointId} AND "expiresAt" > ${now}`;
  if (options.modelHint === "time_pass") {
    const passes = await prisma.$queryRaw<Row[]>`
      SELECT "id", "endpointId", "model"::text AS "model", "balance", "unitCostSats", "expiresAt", 0 AS "debited"
      FROM "PaymentSession" WHERE ${live} AND "model" = 'time_pass'`;
    if (passes[0]) return { ok: true, session: { ...passes[0], debited: 0 } };
  }
  const rows = await prisma.$queryRaw<Row[]>`
    UPDATE "PaymentSession" SET "balance" = "balance" - ${debitSql}, "updatedAt" = ${now}
    WHERE ${live} AND ("balance" IS NULL OR "balance" >= ${minimumSql}) AND ${asyncCommitSql}
    RETURNING "id", "endpointId", "model"::text AS "model", "balance", "unitCostSats", "expiresAt", ${debitSql} AS "debited"`;
  if (rows[0]) return { ok: true, session: { ...rows[0], debited: Number(rows[0].debited) } };
  return { ok: false, reason: await explainRefusal(prisma, lookup, tenantId, endpointId, now) };
}

async function explainRefusal(prisma: PrismaClient, lookup: SessionLookup, tenantId: string, endpointId: string, now: Date): Promise<SessionRefusal> {
  const rows = await prisma.$queryRaw<{ tenantId: string; endpointId: string; expiresAt: Date }[]>`
    SELECT "tenantId", "endpointId", "expiresAt" FROM "PaymentSession" WHERE ${where(lookup)}`;
  const row = rows[0];
  if (!row) return "unknown";
  if (row.tenantId !== tenantId || row.endpointId !== endpointId) return "wrong_endpoint";
  return row.expiresAt.getTime() <= now.getTime() ? "expired" : "depleted";
}

/**
 * Takes a per_kb charge once the response size is known: the same conditional debit, so a
 * response the balance cannot pay for is refused (never half-charged). Null when it cannot pay.
 */
export async function chargeSession(options: { prisma: PrismaClient; sessionId: string; amount: number; now: Date }): Promise<{ balance: number } | null> {
  const { prisma, sessionId, amount, now } = options;
  const rows = await prisma.$queryRaw<{ balance: number }[]>`
    UPDATE "PaymentSession" SET "balance" = "balance" - ${amount}, "updatedAt" = ${now}
    WHERE "id" = ${sessionId} AND "balance" >= ${amount} AND "expiresAt" > ${now} AND ${asyncCommitSql}
    RETURNING "balance"`;
  return rows[0] ?? null;
}

/**
 * Returns a debit to the balance (upstream failure, client gone before the response, a stream that
 * delivered nothing). One statement; returns the restored balance. An expired session is refunded
 * too: the balance is history then, but the record stays true. `amount` must be positive.
 */
export async function refundSession(options: { prisma: PrismaClient; sessionId: string; amount: number; now: Date }): Promise<{ balance: number | null }> {
  const { prisma, sessionId, amount, now } = options;
  if (!(amount > 0)) throw new RangeError("refundSession: nothing to refund");
  const rows = await prisma.$queryRaw<{ balance: number }[]>`
    UPDATE "PaymentSession" SET "balance" = "balance" + ${amount}, "updatedAt" = ${now}
    WHERE "id" = ${sessionId} AND "balance" IS NOT NULL
    RETURNING "balance"`;
  return { balance: rows[0]?.balance ?? null };
}
