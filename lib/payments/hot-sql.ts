// The money statements of a paid call (proof claim and finish, session debit/charge/refund, credit
// burn/refund) run on every request, so on PostgreSQL they skip Prisma's raw-query pipeline (query
// compiler and result mapping cost about three times the CPU of the statement through `pg`) and go
// straight to the pool as named prepared statements: parsed and planned once per connection. On
// PGlite, or when no pool is given, the same SQL text runs through Prisma. Same text, same
// parameters, same single statement per call: the race guarantees are PostgreSQL's either way.
import pg from "pg";
import type { PrismaClient } from "../db/client.ts";

/** A statement with a stable name: its text must never change under the same name (pg prepares by name). */
export type HotStatement = { readonly name: string; readonly text: string };

/**
 * Parameter values: Date is sent as UTC wall time, which is how Prisma stores `timestamp(3)` columns.
 * Arrays are batch parameters (lib/payments/hot-batch.ts): dates in them go as `utcWallTime` text.
 */
export type HotValue = string | number | Date | null | readonly (string | number | null)[];

/** Where a hot statement runs: the pg pool when there is one (PostgreSQL), else Prisma (PGlite). */
export type HotDb = { prisma: Pick<PrismaClient, "$queryRawUnsafe">; pg?: pg.Pool | null };

const TIMESTAMP_OID = 1114;

/** `timestamp` columns hold UTC wall time (Prisma's convention); pg's default parser would read local time. */
function parseUtcTimestamp(text: string): Date {
  return new Date(`${text.replace(" ", "T")}Z`);
}

const resultTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID && format !== "binary" ? parseUtcTimestamp : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/** The UTC wall-time form adapter-pg sends for a DateTime (`YYYY-MM-DD HH:MM:SS.mmm`). */
export function utcWallTime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

/** Runs one hot statement and returns its rows. */
export async function runHot<Row>(db: HotDb, statement: HotStatement, values: readonly HotValue[]): Promise<Row[]> {
  if (db.pg) return runOnPool<Row>(db.pg, statement, values);
  return db.prisma.$queryRawUnsafe<Row[]>(statement.text, ...values);
}

/** Runs a hot statement on the pool as a named prepared statement. */
export async function runOnPool<Row>(pool: pg.Pool, statement: HotStatement, values: readonly HotValue[]): Promise<Row[]> {
  const result = await pool.query({
    name: statement.name,
    text: statement.text,
    values: values.map((v) => (v instanceof Date ? utcWallTime(v) : v)),
    types: resultTypes,
  });
  return result.rows as Row[];
}
