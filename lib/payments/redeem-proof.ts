// per_request proof redemption (spec 3.3 rule 4, 7.3): a proof is claimed before proxying and
// consumed by one successful call; after an upstream failure it is released and redeems again.
// PostgreSQL decides every race: the claim is one conditional upsert, so two gateway instances
// presenting the same proof at once cannot both win.
import type pg from "pg";
import { batcherPerPool, StatementBatcher } from "./hot-batch.ts";
import { subscribedSql } from "@/lib/events/enqueue-event.ts";
import { runHot, runOnPool, type HotDb, type HotStatement } from "./hot-sql.ts";

export type ClaimResult = "claimed" | "spent" | "in_use";

/** Which proof, for which call; `pg` (PostgreSQL) runs the statements as prepared statements. */
export type ClaimProofOptions = HotDb & {
  paymentHash: string;
  tenantId: string;
  endpointId: string;
  requestId: string;
  /**
   * How long a claim blocks others if this process dies mid-call (then it is redeemable again).
   * The lease ends at the database's now() plus this: one clock for every gateway instance.
   */
  leaseMs: number;
};

/**
 * A claim wins a new proof, a released one, or one whose lease lapsed (the single and batch
 * claims). Lease ends are timestamptz from now() (database clock), so no session time zone or
 * gateway clock moves them.
 */
const claimConflictSql = `ON CONFLICT ("paymentHash") DO UPDATE
        SET "state" = 'claimed', "claimedUntil" = EXCLUDED."claimedUntil", "requestId" = EXCLUDED."requestId", "updatedAt" = now()
        WHERE "Proof"."state" = 'released' OR ("Proof"."state" = 'claimed' AND "Proof"."claimedUntil" < now())
      RETURNING "paymentHash"`;

/**
 * The invoice.settled outbox rows of the invoices a claim CTE named `settled` just settled, for the
 * tenants that receive the event (lib/events/enqueue-event.ts). settledAt is timestamptz, so
 * `AT TIME ZONE 'UTC'` gives its UTC wall time whatever the session's zone.
 * With the `settled` CTEs below, this is the batched twin of settleInvoice
 * (lib/payments/settle-invoice.ts): the same conditional UPDATE scoped to the proof's tenant, the
 * same event data (source "proof"), folded into the claim statement so a paid call costs one round
 * trip. Keep the two in step.
 */
const settledEventSql = `event AS (
      INSERT INTO "OutboxEvent" ("id", "tenantId", "type", "data", "createdAt")
      SELECT gen_random_uuid()::text, s."tenantId", 'invoice.settled',
        jsonb_build_object('paymentHash', s."paymentHash", 'amountSats', s."amountSats", 'purpose', s."purpose",
          'endpointId', s."endpointId", 'settledAt', to_char(s."settledAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'source', 'proof'),
        now()
      FROM settled s
      WHERE ${subscribedSql('s."tenantId"', "'invoice.settled'")}
      RETURNING "id"
    )`;

/** The claim, the first settlement and its invoice.settled event: one statement (see claimProof). $4: lease ms. */
const claimStatement: HotStatement = {
  name: "hub_claim_proof",
  text: `
    WITH claim AS (
      INSERT INTO "Proof" ("paymentHash", "tenantId", "endpointId", "state", "claimedUntil", "requestId", "createdAt", "updatedAt")
      VALUES ($1, $2, $3, 'claimed', now() + $4::double precision * interval '1 millisecond', $5, now(), now())
      ${claimConflictSql}
    ),
    settled AS (
      UPDATE "Invoice" SET "status" = 'settled', "settledAt" = now()
      WHERE "paymentHash" = $1 AND "tenantId" = $2 AND "status" <> 'settled'
        AND EXISTS (SELECT 1 FROM claim)
      RETURNING "tenantId", "paymentHash", "amountSats", "purpose", "endpointId", "settledAt"
    ),
    ${settledEventSql}
    SELECT (SELECT count(*)::int FROM claim) AS claimed, (SELECT count(*)::int FROM event) AS events`,
};

/** A lost claim: consumed (spent) or held by a live lease (in use). Only the losing path reads it. */
const proofStateStatement: HotStatement = {
  name: "hub_proof_state",
  text: `SELECT "state"::text AS "state" FROM "Proof" WHERE "paymentHash" = $1`,
};

/** Ends a claim, durably (see finishProof). $1: "consumed" or "released". */
const finishStatement: HotStatement = {
  name: "hub_finish_proof",
  text: `
    UPDATE "Proof" SET "state" = $1::text::"ProofState",
      "consumedAt" = CASE WHEN $1::text = 'consumed' THEN now() ELSE NULL END,
      "claimedUntil" = NULL, "updatedAt" = now()
    WHERE "paymentHash" = $2 AND "requestId" = $3 AND "state" = 'claimed'
    RETURNING 1 AS "finished"`,
};

/**
 * The claim for many calls in one statement (lib/payments/hot-batch.ts): the same conditional
 * upsert, settlement and event, row by row; returns the payment hashes it claimed. One WAL flush
 * commits every claim of the batch.
 */
const batchClaimStatement: HotStatement = {
  name: "hub_claim_proof_batch",
  text: `
    WITH req AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::text[])
        AS r("paymentHash", "tenantId", "endpointId", "leaseMs", "requestId")
    ),
    claim AS (
      INSERT INTO "Proof" ("paymentHash", "tenantId", "endpointId", "state", "claimedUntil", "requestId", "createdAt", "updatedAt")
      SELECT "paymentHash", "tenantId", "endpointId", 'claimed'::"ProofState", now() + "leaseMs" * interval '1 millisecond', "requestId", now(), now()
      FROM req ORDER BY "paymentHash"
      ${claimConflictSql}
    ),
    settled AS (
      UPDATE "Invoice" SET "status" = 'settled', "settledAt" = now()
      FROM claim JOIN req ON req."paymentHash" = claim."paymentHash"
      WHERE "Invoice"."paymentHash" = claim."paymentHash" AND "Invoice"."tenantId" = req."tenantId" AND "Invoice"."status" <> 'settled'
      RETURNING "Invoice"."tenantId", "Invoice"."paymentHash", "Invoice"."amountSats", "Invoice"."purpose", "Invoice"."endpointId", "Invoice"."settledAt"
    ),
    ${settledEventSql}
    SELECT "paymentHash" FROM claim`,
};

/**
 * One proof batch in flight per process and statement: the calls that arrive meanwhile wait for it
 * and go together in the next, so PostgreSQL is woken once per batch rather than once per few
 * calls. Measured against 4 in flight (BENCHMARKS.md, "One proof batch in flight"): +5% per_request
 * throughput, B ahead in 8 of 10 paired rounds, and a lower p99 at full load. A proof batch does
 * not queue behind a hot row as a session debit can (each proof and invoice row belongs to one
 * call), so the calls waiting for it never wait long.
 */
const proofBatchesInFlight = 1;

type ClaimCall = { paymentHash: string; tenantId: string; endpointId: string; leaseMs: number; requestId: string };

const claimBatcher = batcherPerPool(
  (pool: pg.Pool) =>
    new StatementBatcher<ClaimCall, true>({
      keyOf: (call) => call.paymentHash,
      runBatch: async (calls) => {
        const rows = await runOnPool<{ paymentHash: string }>(pool, batchClaimStatement, [
          calls.map((c) => c.paymentHash),
          calls.map((c) => c.tenantId),
          calls.map((c) => c.endpointId),
          calls.map((c) => c.leaseMs),
          calls.map((c) => c.requestId),
        ]);
        return new Map(rows.map((row) => [row.paymentHash, true as const]));
      },
      runOne: async (c) => {
        const rows = await runOnPool<{ claimed: number }>(pool, claimStatement, [c.paymentHash, c.tenantId, c.endpointId, c.leaseMs, c.requestId]);
        return rows[0]?.claimed === 1 ? true : null;
      },
      maxInFlight: proofBatchesInFlight,
    }),
);

/** Ends many claims in one statement (one WAL flush for the batch), durably like `hub_finish_proof`. */
const batchFinishStatement: HotStatement = {
  name: "hub_finish_proof_batch",
  text: `
    WITH req AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS r("newState", "reqPaymentHash", "reqRequestId")
    )
    UPDATE "Proof" SET "state" = req."newState"::"ProofState",
      "consumedAt" = CASE WHEN req."newState" = 'consumed' THEN now() ELSE NULL END,
      "claimedUntil" = NULL, "updatedAt" = now()
    FROM req
    WHERE "paymentHash" = req."reqPaymentHash" AND "requestId" = req."reqRequestId" AND "state" = 'claimed'
    RETURNING "paymentHash"`,
};

type FinishCall = { state: "consumed" | "released"; paymentHash: string; requestId: string };

const finishBatcher = batcherPerPool(
  (pool: pg.Pool) =>
    new StatementBatcher<FinishCall, true>({
      keyOf: (call) => call.paymentHash,
      runBatch: async (calls) => {
        const rows = await runOnPool<{ paymentHash: string }>(pool, batchFinishStatement, [
          calls.map((c) => c.state),
          calls.map((c) => c.paymentHash),
          calls.map((c) => c.requestId),
        ]);
        return new Map(rows.map((row) => [row.paymentHash, true as const]));
      },
      runOne: async (c) => ((await runOnPool(pool, finishStatement, [c.state, c.paymentHash, c.requestId])).length ? true : null),
      maxInFlight: proofBatchesInFlight,
    }),
);

/**
 * Claims a proof. In the same statement, the first valid proof marks its invoice settled and writes
 * `invoice.settled` to the outbox (unless the wallet already reported it): one round trip.
 */
export async function claimProof(options: ClaimProofOptions): Promise<ClaimResult> {
  const { paymentHash, tenantId, endpointId, requestId, leaseMs } = options;
  const claimed = options.pg
    ? (await claimBatcher(options.pg).submit({ paymentHash, tenantId, endpointId, leaseMs, requestId })) !== null
    : (await runHot<{ claimed: number }>(options, claimStatement, [paymentHash, tenantId, endpointId, leaseMs, requestId]))[0]?.claimed === 1;
  if (claimed) return "claimed";
  const existing = (await runHot<{ state: string }>(options, proofStateStatement, [paymentHash]))[0];
  return existing?.state === "consumed" ? "spent" : "in_use";
}

/**
 * Ends a claim: `consume` after a served call (charged), `release` after an upstream failure.
 * Committed durably, as the claim is: a consumption a crash undid would turn a served proof back
 * to `claimed`, redeemable again once its lease ran out, a proof served twice (the soak's
 * PostgreSQL crash showed it when this was committed asynchronously; RELIABILITY.md).
 */
export async function finishProof(options: HotDb & { paymentHash: string; requestId: string; outcome: "consume" | "release" }): Promise<void> {
  const state = options.outcome === "consume" ? "consumed" : "released";
  if (options.pg) await finishBatcher(options.pg).submit({ state, paymentHash: options.paymentHash, requestId: options.requestId });
  else await runHot(options, finishStatement, [state, options.paymentHash, options.requestId]);
}
