// The money statements of a paid call (proof claim and finish, session debit/charge/refund, credit
// burn/refund) run on every request, so on PostgreSQL they skip Prisma's raw-query pipeline (query
// compiler and result mapping cost about three times the CPU of the statement through `pg`) and go
// straight to the pool as named prepared statements: parsed and planned once per connection. On
// PGlite, or when no pool is given, the same SQL text runs through Prisma. Same text, same
// parameters, same single statement per call: the race guarantees are PostgreSQL's either way.
import type pg from "pg";
import type { PrismaClient } from "@/lib/db/client.ts";

/**
 * A statement with a stable name: within one process its text must never change under the same name
 * (pg prepares by name on each connection, so a new text under an old name is safe only across a restart).
 */
export type HotStatement = { readonly name: string; readonly text: string };

/**
 * Parameter values. No Date: the money statements take their times from the database's now()
 * (one clock for every instance, no session time zone involved). Arrays are batch parameters
 * (lib/payments/hot-batch.ts).
 */
export type HotValue = string | number | null | readonly (string | number | null)[];

/** Where a hot statement runs: the pg pool when there is one (PostgreSQL), else Prisma (PGlite). */
export type HotDb = { prisma: Pick<PrismaClient, "$queryRawUnsafe">; pg?: pg.Pool | null };

/** Runs one hot statement and returns its rows. */
export async function runHot<Row>(db: HotDb, statement: HotStatement, values: readonly HotValue[]): Promise<Row[]> {
  if (db.pg) return runOnPool<Row>(db.pg, statement, values);
  return db.prisma.$queryRawUnsafe<Row[]>(statement.text, ...values);
}

/** Runs a hot statement on the pool as a named prepared statement. */
export async function runOnPool<Row>(pool: pg.Pool, statement: HotStatement, values: readonly HotValue[]): Promise<Row[]> {
  const result = await pool.query({ name: statement.name, text: statement.text, values: values as unknown[] });
  return result.rows as Row[];
}
