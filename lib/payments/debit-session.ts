// Spending a session (spec 3.3 rules 2-3, 7.3): every balance change is ONE conditional statement
// that PostgreSQL decides, never a read-modify-write, so N concurrent calls on a balance of K serve
// exactly K across any number of gateway instances:
//   debit:  UPDATE … SET balance = balance - cost WHERE … AND balance >= cost AND expiresAt > now() RETURNING
//   refund: UPDATE … SET balance = balance + cost WHERE id = … RETURNING
// A refused debit is explained by a second read (unknown token, other endpoint, expired, depleted)
// only on the refusal path; the happy path is one round trip. Every debit and charge commits durably,
// like the claim and consumption of a proof: a debit a database crash undid would hand the payer back
// what it spent, a call served for free (the soak's PostgreSQL crash showed it for proofs, when their
// consumption committed asynchronously; RELIABILITY.md). Concurrent debits of one gateway share one
// statement and so one WAL flush (lib/payments/hot-batch.ts). Refunds are durable too. Expiry is the
// database's decision: now() against the timestamptz the session was opened with (one clock for
// every gateway instance, whatever their clocks or the session's time zone).
import type { SessionModel } from "@/lib/pricing/quote.ts";
import type pg from "pg";
import { batcherPerPool, StatementBatcher } from "./hot-batch.ts";
import { runHot, runOnPool, type HotDb, type HotStatement } from "./hot-sql.ts";
import type { SessionState } from "./open-session.ts";

/** Which session: by the hash of the token the client sent, or by id (after opening it from a proof). */
export type SessionLookup = { tokenHash: string } | { sessionId: string };

/**
 * Why a session cannot pay: `unknown` (no such token: forged or tampered), `wrong_endpoint` (a
 * genuine token of another endpoint or tenant), `expired`, `depleted`.
 */
export type SessionRefusal = "unknown" | "wrong_endpoint" | "expired" | "depleted";

/** Which session pays for which endpoint's call (the database's clock decides expiry). */
export type DebitSessionOptions = HotDb & {
  lookup: SessionLookup;
  tenantId: string;
  endpointId: string;
  /**
   * The endpoint's model now: a time_pass endpoint's call is first tried as a plain read (a pass
   * spends nothing, so it should write nothing); any other case runs the conditional update.
   */
  modelHint: SessionModel;
};

/** A debited session, with what this call took (to give back on a refund). */
export type DebitedSession = SessionState & { debited: number };

/** The debited session, or why it could not pay (the gateway maps reasons to 401 or 402). */
export type SessionDebitResult = { ok: true; session: DebitedSession } | { ok: false; reason: SessionRefusal };

type Row = { id: string; endpointId: string; model: SessionModel; balance: number | null; unitCostSats: number | null; expiresAt: Date; debited: number };

/** Why a session that did not pay was refused (explainRefusal). */
type RefusalRow = { tenantId: string; endpointId: string; expired: boolean };

/**
 * The SQL form of callDebit and minimumBalance (../pricing/quote.ts), evaluated on the row, so a
 * session pays the unit price it was sold at in the same statement that checks and takes it.
 * tests/gateway/sessions.test.ts holds the two forms to the same numbers.
 */
const debitSql = `(CASE "model" WHEN 'token_bucket' THEN 1 WHEN 'metered' THEN COALESCE("unitCostSats", 0) ELSE 0 END)`;
const minimumSql = `GREATEST(${debitSql}, CASE "model" WHEN 'per_kb' THEN 1 ELSE 0 END)`;

const sessionColumns = `"id", "endpointId", "model"::text AS "model", "balance", "unitCostSats", "expiresAt"`;

/** A lookup kind's statements; parameters: $1 token hash or session id, $2 tenant, $3 endpoint. */
type LookupStatements = { pass: HotStatement; debit: HotStatement; explain: HotStatement };

function lookupStatements(kind: "token" | "id", column: "tokenHash" | "id"): LookupStatements {
  const live = `"${column}" = $1 AND "tenantId" = $2 AND "endpointId" = $3 AND "expiresAt" > now()`;
  return {
    pass: {
      name: `hub_session_pass_by_${kind}`,
      text: `SELECT ${sessionColumns}, 0 AS "debited" FROM "PaymentSession" WHERE ${live} AND "model" = 'time_pass'`,
    },
    debit: {
      name: `hub_session_debit_by_${kind}`,
      text: `
        UPDATE "PaymentSession" SET "balance" = "balance" - ${debitSql}, "updatedAt" = now()
        WHERE ${live} AND ("balance" IS NULL OR "balance" >= ${minimumSql})
        RETURNING ${sessionColumns}, ${debitSql} AS "debited"`,
    },
    explain: {
      name: `hub_session_explain_by_${kind}`,
      text: `SELECT "tenantId", "endpointId", "expiresAt" <= now() AS "expired" FROM "PaymentSession" WHERE "${column}" = $1`,
    },
  };
}

const byToken = lookupStatements("token", "tokenHash");
const byId = lookupStatements("id", "id");

/**
 * The debit by token for many calls in one statement (lib/payments/hot-batch.ts): the same
 * conditions as `hub_session_debit_by_token`, row by row, each with its own tenant and endpoint.
 */
const batchDebitStatement: HotStatement = {
  name: "hub_session_debit_batch",
  text: `
    WITH req AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS r("key", "reqTenantId", "reqEndpointId")
    )
    UPDATE "PaymentSession" SET "balance" = "balance" - ${debitSql}, "updatedAt" = now()
    FROM req
    WHERE "tokenHash" = req."key" AND "tenantId" = req."reqTenantId" AND "endpointId" = req."reqEndpointId" AND "expiresAt" > now()
      AND ("balance" IS NULL OR "balance" >= ${minimumSql})
    RETURNING req."key", ${sessionColumns}, ${debitSql} AS "debited"`,
};

type DebitCall = { tokenHash: string; tenantId: string; endpointId: string };

const debitBatcher = batcherPerPool(
  (pool: pg.Pool) =>
    new StatementBatcher<DebitCall, Row>({
      keyOf: (call) => call.tokenHash,
      runBatch: async (calls) => {
        const rows = await runOnPool<Row & { key: string }>(pool, batchDebitStatement, [
          calls.map((c) => c.tokenHash),
          calls.map((c) => c.tenantId),
          calls.map((c) => c.endpointId),
        ]);
        return new Map(rows.map((row) => [row.key, row]));
      },
      runOne: async (call) => (await runOnPool<Row>(pool, byToken.debit, [call.tokenHash, call.tenantId, call.endpointId]))[0] ?? null,
    }),
);

/** The conditional debit: batched with concurrent calls by token on PostgreSQL, else one statement. */
async function runDebit(db: HotDb, lookup: SessionLookup, values: [string, string, string]): Promise<Row | null> {
  if (db.pg && "tokenHash" in lookup) {
    return debitBatcher(db.pg).submit({ tokenHash: values[0], tenantId: values[1], endpointId: values[2] });
  }
  return (await runHot<Row>(db, "tokenHash" in lookup ? byToken.debit : byId.debit, values))[0] ?? null;
}

/**
 * Takes one call's debit from a live session of this endpoint (one request for token_bucket, the
 * unit cost for metered, nothing for time_pass and per_kb, which must still hold one sat).
 */
export async function debitSession(options: DebitSessionOptions): Promise<SessionDebitResult> {
  const { lookup, tenantId, endpointId } = options;
  const statements = "tokenHash" in lookup ? byToken : byId;
  const key = "tokenHash" in lookup ? lookup.tokenHash : lookup.sessionId;
  const values: [string, string, string] = [key, tenantId, endpointId];
  if (options.modelHint === "time_pass") {
    const passes = await runHot<Row>(options, statements.pass, values);
    if (passes[0]) return { ok: true, session: { ...passes[0], debited: 0 } };
  }
  const row = await runDebit(options, lookup, values);
  if (row)
    return {
      ok: true,
      session: {
        id: row.id,
        endpointId: row.endpointId,
        model: row.model,
        balance: row.balance,
        unitCostSats: row.unitCostSats,
        expiresAt: row.expiresAt,
        debited: Number(row.debited),
      },
    };
  return { ok: false, reason: await explainRefusal(options, statements.explain, key, tenantId, endpointId) };
}

async function explainRefusal(db: HotDb, statement: HotStatement, key: string, tenantId: string, endpointId: string): Promise<SessionRefusal> {
  const row = (await runHot<RefusalRow>(db, statement, [key]))[0];
  if (!row) return "unknown";
  if (row.tenantId !== tenantId || row.endpointId !== endpointId) return "wrong_endpoint";
  return row.expired ? "expired" : "depleted";
}

const chargeStatement: HotStatement = {
  name: "hub_session_charge",
  text: `
    UPDATE "PaymentSession" SET "balance" = "balance" - $2, "updatedAt" = now()
    WHERE "id" = $1 AND "balance" >= $2 AND "expiresAt" > now()
    RETURNING "balance"`,
};

/**
 * Takes a per_kb charge once the response size is known: the same conditional debit, so a
 * response the balance cannot pay for is refused (never half-charged). Null when it cannot pay.
 */
export async function chargeSession(options: HotDb & { sessionId: string; amount: number }): Promise<{ balance: number } | null> {
  const rows = await runHot<{ balance: number }>(options, chargeStatement, [options.sessionId, options.amount]);
  return rows[0] ?? null;
}

const refundStatement: HotStatement = {
  name: "hub_session_refund",
  text: `
    UPDATE "PaymentSession" SET "balance" = "balance" + $2, "updatedAt" = now()
    WHERE "id" = $1 AND "balance" IS NOT NULL
    RETURNING "balance"`,
};

/**
 * Returns a debit to the balance (upstream failure, client gone before the response, a stream that
 * delivered nothing). One statement; returns the restored balance. An expired session is refunded
 * too: the balance is history then, but the record stays true. `amount` must be positive.
 */
export async function refundSession(options: HotDb & { sessionId: string; amount: number }): Promise<{ balance: number | null }> {
  const { sessionId, amount } = options;
  if (!(amount > 0)) throw new RangeError("refundSession: nothing to refund");
  const rows = await runHot<{ balance: number }>(options, refundStatement, [sessionId, amount]);
  return { balance: rows[0]?.balance ?? null };
}
