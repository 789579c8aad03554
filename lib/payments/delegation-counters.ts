// The n_uses and max_sats counters of delegated credentials (lib/l402/delegation-caveats.ts), in
// DelegationCounter: one row per caveat, created on first use. A call takes its share from every
// counter of its credential at once or from none: each row moves in one conditional upsert
// (`used + n <= limit`), all rows of one call in one transaction, rows in key order (so concurrent
// calls on shared counters queue instead of deadlocking). PostgreSQL decides, so the limits hold
// across any number of gateway instances. A refunded call gives its share back (spec 7.3).
import type { PrismaClient } from "@/lib/db/client.ts";

/** What one call takes from one counter. */
export type CounterCharge = { key: string; kind: "n_uses" | "max_sats"; limit: number; amount: number };

/** Taken, or the first counter that could not afford the call (nothing was taken then). */
export type CounterTakeResult = { ok: true } | { ok: false; exhausted: CounterCharge };

/** Raised inside the transaction to roll back the counters already taken. */
class CounterExhausted extends Error {
  constructor(readonly charge: CounterCharge) {
    super(`Delegation counter ${charge.kind} exhausted`);
  }
}

/** Rows `($n, $n+1::bigint, $n+2::bigint, …)` of a VALUES list for these charges, and their parameters. */
function valuesList(
  charges: CounterCharge[],
  columns: (c: CounterCharge) => (string | number)[],
  casts: string[],
): { sql: string; params: (string | number)[] } {
  const params: (string | number)[] = [];
  const rows = charges.map((charge) => {
    const values = columns(charge);
    const placeholders = values.map((value, i) => {
      params.push(value);
      return `$${params.length}${casts[i]}`;
    });
    return `(${placeholders.join(", ")})`;
  });
  return { sql: rows.join(", "), params };
}

/**
 * Takes `amount` from each counter (creating rows on first use), all or nothing. Charges of 0 take
 * nothing. On refusal, `exhausted` is the counter that could not pay.
 */
export async function takeDelegationCounters(options: { prisma: PrismaClient; paymentHash: string; charges: CounterCharge[] }): Promise<CounterTakeResult> {
  const charges = options.charges.filter((c) => c.amount > 0).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (charges.length === 0) return { ok: true };
  // A first use above the limit never creates its row; it is simply refused.
  const tooLarge = options.charges.find((c) => c.amount > c.limit);
  if (tooLarge) return { ok: false, exhausted: tooLarge };
  const values = valuesList(charges, (c) => [c.key, c.kind, c.limit, c.amount], ["", "", "::bigint", "::bigint"]);
  const paymentHashParam = `$${values.params.length + 1}`;
  const sql = `
    INSERT INTO "DelegationCounter" ("key", "paymentHash", "kind", "limit", "used")
    SELECT w.key, ${paymentHashParam}, w.kind, w.lim, w.amount FROM (VALUES ${values.sql}) AS w(key, kind, lim, amount)
    ORDER BY w.key
    ON CONFLICT ("key") DO UPDATE SET "used" = "DelegationCounter"."used" + EXCLUDED."used", "updatedAt" = now()
      WHERE "DelegationCounter"."used" + EXCLUDED."used" <= "DelegationCounter"."limit"
    RETURNING "key"`;
  const params = [...values.params, options.paymentHash];
  // Reported in the caller's order (n_uses before max_sats), not the lock order of the keys.
  const exhausted = (rows: { key: string }[]) => options.charges.find((c) => c.amount > 0 && !rows.some((r) => r.key === c.key));
  if (charges.length === 1) {
    // One row: the single statement is all or nothing by itself.
    const missing = exhausted(await options.prisma.$queryRawUnsafe<{ key: string }[]>(sql, ...params));
    return missing ? { ok: false, exhausted: missing } : { ok: true };
  }
  try {
    await options.prisma.$transaction(async (tx) => {
      const missing = exhausted(await tx.$queryRawUnsafe<{ key: string }[]>(sql, ...params));
      if (missing) throw new CounterExhausted(missing);
    });
    return { ok: true };
  } catch (err) {
    if (err instanceof CounterExhausted) return { ok: false, exhausted: err.charge };
    throw err;
  }
}

/** Gives back what a refunded call took (never below zero). */
export async function returnDelegationCounters(options: { prisma: PrismaClient; charges: CounterCharge[] }): Promise<void> {
  const charges = options.charges.filter((c) => c.amount > 0).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (charges.length === 0) return;
  const values = valuesList(charges, (c) => [c.key, c.amount], ["", "::bigint"]);
  await options.prisma.$executeRawUnsafe(
    `UPDATE "DelegationCounter" AS c SET "used" = GREATEST(c."used" - v.amount, 0), "updatedAt" = now()
     FROM (VALUES ${values.sql}) AS v(key, amount) WHERE c."key" = v.key`,
    ...values.params,
  );
}
