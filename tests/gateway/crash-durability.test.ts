// Money survives a PostgreSQL crash (RELIABILITY.md; docs/decisions.md, "Every balance change is one
// conditional statement").
// A statement the gateway has answered on must still be there after `pg_ctl stop -m immediate` and
// recovery: a consumed proof turned back to `claimed` would be redeemable again (a proof served
// twice), a debit or credit burn undone would be a call served for free. The cluster is private
// (initdb in a temporary directory), its WAL writer slowed to 10 s so that nothing but the
// statements' own commits flushes their WAL before the crash: a statement committed with
// `synchronous_commit off` loses its last commit here (it did in every run tried).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/client.ts";
import { chargeSession, debitSession, refundSession } from "@/lib/payments/debit-session.ts";
import { claimProof, finishProof } from "@/lib/payments/redeem-proof.ts";
import { refundCredit, spendCredit } from "@/lib/payments/spend-credit.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { PrivatePostgres, postgresToolsAvailable } from "@/scripts/cluster-topology.ts";
import { usingPostgres } from "@/tests/helpers/context.ts";
import { freePort } from "@/tests/helpers/free-port.ts";

const appSecret = randomBytes(32).toString("hex");

// On PostgreSQL runs (CI's second suite run), where the server's own tools are installed too.
describe.skipIf(!usingPostgres || !postgresToolsAvailable())("money statements after a PostgreSQL crash", () => {
  let tmp: string;
  let postgres: PrivatePostgres;
  let db: Database | null = null;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), "l402-crash-"));
    // On a root shell PostgreSQL runs as `postgres`, which must reach its data directory.
    chmodSync(tmp, 0o755);
    postgres = new PrivatePostgres(path.join(tmp, "postgres"), await freePort(), ["wal_writer_delay=10000"]);
    postgres.start();
    db = await openDatabase({ databaseUrl: postgres.url, pgliteDir: null, migrate: true, poolSize: 4 });
  }, 120_000);

  afterAll(async () => {
    await db?.close().catch(() => undefined);
    try {
      postgres?.stop("fast");
    } catch {
      // Already stopped.
    }
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("keeps every proof claim and consumption, session debit, charge and refund, credit burn and refund it answered on", async () => {
    const prisma = db!.prisma;
    const { tenantId } = await tenantFactory(prisma, appSecret);
    const perRequest = await endpointFactory(prisma, tenantId, { pricingModel: "per_request", priceSats: 1 });
    const bucket = await endpointFactory(prisma, tenantId, { path: "/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 50 });
    const perKb = await endpointFactory(prisma, tenantId, { path: "/kb", pricingModel: "per_kb", priceSats: 60, unitCostSats: 1 });
    const expiresAt = new Date(Date.now() + 3_600_000);
    const invoiceExpiry = new Date(Date.now() + 600_000);

    const proofs = Array.from({ length: 41 }, () => createHash("sha256").update(randomBytes(32)).digest("hex"));
    await prisma.invoice.createMany({
      data: proofs.map((paymentHash) => ({
        tenantId,
        endpointId: perRequest.id,
        paymentHash,
        paymentRequest: "lnbcrt-test",
        amountSats: 1,
        purpose: "per_request" as const,
        expiresAt: invoiceExpiry,
      })),
    });
    const tokens = Array.from({ length: 10 }, () => randomBytes(32).toString("hex"));
    const sessionIds = tokens.map(() => randomUUID());
    await prisma.paymentSession.createMany({
      data: tokens.map((tokenHash, i) => ({
        id: sessionIds[i],
        tenantId,
        endpointId: bucket.id,
        model: "token_bucket" as const,
        tokenHash,
        paymentHash: randomBytes(32).toString("hex"),
        balance: 50,
        initialBalance: 50,
        expiresAt,
      })),
    });
    const kbSessionId = randomUUID();
    await prisma.paymentSession.create({
      data: {
        id: kbSessionId,
        tenantId,
        endpointId: perKb.id,
        model: "per_kb",
        tokenHash: randomBytes(32).toString("hex"),
        paymentHash: randomBytes(32).toString("hex"),
        balance: 60,
        initialBalance: 60,
        unitCostSats: 1,
        expiresAt,
      },
    });
    const creditHash = createHash("sha256").update(randomBytes(32)).digest("hex");
    await prisma.invoice.create({
      data: {
        tenantId,
        endpointId: perRequest.id,
        paymentHash: creditHash,
        paymentRequest: "lnbcrt-test",
        amountSats: 100,
        purpose: "credit",
        expiresAt: invoiceExpiry,
      },
    });
    const credit = { prisma, tenantId, paymentHash: creditHash, endpointId: perRequest.id, priceSats: 2, expiresAt };
    // The first burn opens the credit in a transaction (durable in any case); the ones that follow burn alone.
    const opened = await spendCredit(credit);
    expect(opened).toMatchObject({ ok: true, balanceSats: 98 });
    const creditId = opened.ok ? opened.creditId : "";

    // The gateway's path on PostgreSQL: prepared statements on the pg pool, concurrent calls batched.
    let hot = { prisma, pg: db!.pg! };
    const extra = proofs.pop()!;
    const claims = await Promise.all(
      proofs.map(async (paymentHash) => {
        const requestId = randomUUID();
        const claimed = await claimProof({ ...hot, paymentHash, tenantId, endpointId: perRequest.id, requestId, leaseMs: 600_000 });
        return { paymentHash, requestId, claimed };
      }),
    );
    expect(claims.every((c) => c.claimed === "claimed")).toBe(true);
    const last = claims.pop()!;

    /** Crashes PostgreSQL (before any backend exits cleanly: that would flush), starts it, reconnects. */
    const crash = async () => {
      postgres.stop("immediate");
      await db!.close().catch(() => undefined);
      postgres.start();
      db = await openDatabase({ databaseUrl: postgres.url, pgliteDir: null, migrate: false, poolSize: 4 });
      hot = { prisma: db.prisma, pg: db.pg! };
    };
    const rows = async (sql: string, values: unknown[] = []) => (await hot.pg.query(sql, values)).rows;
    /** Everything at once, so a failure shows every kind of statement a crash undid. */
    const state = async () => ({
      proofs: await rows(`SELECT "state"::text AS "state", count(*)::int AS "n" FROM "Proof" GROUP BY 1 ORDER BY 1`),
      sessions: (await rows(`SELECT "balance" FROM "PaymentSession" WHERE "endpointId" = $1 ORDER BY "balance"`, [bucket.id])).map((r) => r.balance),
      perKb: (await rows(`SELECT "balance" FROM "PaymentSession" WHERE "id" = $1`, [kbSessionId]))[0].balance,
      credit: (await rows(`SELECT "balanceSats" FROM "Credit" WHERE "paymentHash" = $1`, [creditHash]))[0].balanceSats,
    });
    const debit = (tokenHash: string) => debitSession({ ...hot, lookup: { tokenHash }, tenantId, endpointId: bucket.id, modelHint: "token_bucket" });

    // A burst as a busy gateway sends them (the WAL writer's passes write part of it meanwhile)...
    const [debits, charges, burns] = await Promise.all([
      Promise.all(tokens.flatMap((tokenHash) => Array.from({ length: 20 }, () => debit(tokenHash)))),
      Promise.all(Array.from({ length: 10 }, () => chargeSession({ ...hot, sessionId: kbSessionId, amount: 3 }))),
      Promise.all(Array.from({ length: 10 }, () => spendCredit({ ...credit, ...hot }))),
      Promise.all(claims.map((c) => finishProof({ ...hot, paymentHash: c.paymentHash, requestId: c.requestId, outcome: "consume" }))),
    ]);
    expect(debits.every((d) => d.ok)).toBe(true);
    expect(charges.every((c) => c !== null)).toBe(true);
    expect(burns.every((b) => b.ok)).toBe(true);
    await crash();
    const expected = {
      proofs: [
        { state: "claimed", n: 1 },
        { state: "consumed", n: 39 },
      ],
      sessions: Array.from({ length: 10 }, () => 30),
      perKb: 30,
      credit: 78,
    };
    expect(await state()).toEqual(expected);

    // ...then each kind alone as the last statement before a crash: a tail no other commit flushes.
    const extraRequestId = randomUUID();
    const alone: Array<[string, () => Promise<unknown>, Partial<typeof expected>]> = [
      ["session debit by token", () => debit(tokens[0]), { sessions: [29, ...expected.sessions.slice(1)] }],
      [
        "session debit by id",
        () => debitSession({ ...hot, lookup: { sessionId: sessionIds[1] }, tenantId, endpointId: bucket.id, modelHint: "token_bucket" }),
        { sessions: [29, 29, ...expected.sessions.slice(2)] },
      ],
      ["per_kb charge", () => chargeSession({ ...hot, sessionId: kbSessionId, amount: 3 }), { perKb: 27 }],
      ["session refund", () => refundSession({ ...hot, sessionId: kbSessionId, amount: 3 }), { perKb: 30 }],
      ["credit burn", () => spendCredit({ ...credit, ...hot }), { credit: 76 }],
      ["credit refund", () => refundCredit({ ...hot, creditId, amount: 2 }), { credit: 78 }],
      [
        "proof claim",
        () => claimProof({ ...hot, paymentHash: extra, tenantId, endpointId: perRequest.id, requestId: extraRequestId, leaseMs: 600_000 }),
        {
          proofs: [
            { state: "claimed", n: 2 },
            { state: "consumed", n: 39 },
          ],
        },
      ],
      [
        "proof consumption",
        () => finishProof({ ...hot, paymentHash: last.paymentHash, requestId: last.requestId, outcome: "consume" }),
        {
          proofs: [
            { state: "claimed", n: 1 },
            { state: "consumed", n: 40 },
          ],
        },
      ],
    ];
    let now = expected;
    for (const [what, run, changes] of alone) {
      await run();
      await crash();
      now = { ...now, ...changes };
      expect(await state(), `after a crash right after a ${what}`).toEqual(now);
    }
  }, 120_000);
});
