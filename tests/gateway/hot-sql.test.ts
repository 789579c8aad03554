// On PostgreSQL the money statements run through the pg pool as prepared statements
// (lib/payments/hot-sql.ts) instead of Prisma. These tests hold both paths to the same results,
// in a process whose time zone is not UTC (pg's own date handling would shift every timestamp by
// the offset: expiry decided hours early or late), and run each statement more than five times so
// PostgreSQL's generic plan for the prepared statement is exercised too. Expiry is the database's
// decision (now()), so the tests move rows in time rather than a clock.
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeSession, debitSession, refundSession } from "@/lib/payments/debit-session.ts";
import type { HotDb } from "@/lib/payments/hot-sql.ts";
import { claimProof, finishProof } from "@/lib/payments/redeem-proof.ts";
import { refundCredit, spendCredit } from "@/lib/payments/spend-credit.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { usingPostgres, useTestContext } from "@/tests/helpers/context.ts";

describe.skipIf(!usingPostgres)("money statements through the pg pool (PostgreSQL only)", () => {
  const ctx = useTestContext();
  let pgPath: HotDb;
  let prismaPath: HotDb;
  const originalTz = process.env.TZ;

  beforeAll(async () => {
    pgPath = { prisma: ctx().db.prisma, pg: ctx().db.pg };
    prismaPath = { prisma: ctx().db.prisma };
    process.env.TZ = "America/New_York";
  });
  afterAll(async () => {
    process.env.TZ = originalTz;
  });

  it("has a pool, and this process is really off UTC", () => {
    expect(ctx().db.pg).toBeDefined();
    expect(new Date(Date.UTC(2026, 0, 15)).getTimezoneOffset()).not.toBe(0);
  });

  async function tenantWithEndpoint() {
    const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
    await webhookSubscriptionFactory(ctx().db.prisma, ctx().config.appSecret, tenantId);
    const endpoint = await endpointFactory(ctx().db.prisma, tenantId, { pricingModel: "token_bucket", priceSats: 10, tokenBudget: 100 });
    return { tenantId, endpointId: endpoint.id };
  }

  async function session(
    tenantId: string,
    endpointId: string,
    model: "token_bucket" | "metered" | "per_kb",
    balance: number,
    expiresAt: Date,
    unitCostSats: number | null = null,
  ) {
    const tokenHash = randomBytes(32).toString("hex");
    const row = await ctx().db.prisma.paymentSession.create({
      data: {
        id: randomUUID(),
        tenantId,
        endpointId,
        model,
        tokenHash,
        paymentHash: randomBytes(32).toString("hex"),
        balance,
        initialBalance: balance,
        unitCostSats,
        expiresAt,
      },
    });
    return { id: row.id, tokenHash };
  }

  /** Moves a row's expiry to the database's now() plus `offset` (a PostgreSQL interval). */
  async function expireIn(table: "PaymentSession" | "Credit", id: string, offset: string) {
    await ctx().db.sql.query(`UPDATE "${table}" SET "expiresAt" = now() + $2::interval WHERE "id" = $1`, [id, offset]);
  }

  it("debits, charges and refunds a session alike on both paths, with expiry decided by the database's clock", async () => {
    const { tenantId, endpointId } = await tenantWithEndpoint();
    const expiresAt = new Date(Date.now() + 3 * 3_600_000 + 123);
    const { id, tokenHash } = await session(tenantId, endpointId, "token_bucket", 20, expiresAt);

    for (let i = 0; i < 6; i++) {
      const [viaPg, viaPrisma] = [
        await debitSession({ ...pgPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "token_bucket" }),
        await debitSession({ ...prismaPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "token_bucket" }),
      ];
      expect(viaPg.ok && viaPrisma.ok).toBe(true);
      if (!viaPg.ok || !viaPrisma.ok) return;
      expect(viaPg.session.expiresAt.getTime()).toBe(expiresAt.getTime());
      expect({ ...viaPg.session, balance: viaPg.session.balance! - 1 }).toEqual(viaPrisma.session);
      expect(viaPg.session).toMatchObject({ id, endpointId, model: "token_bucket", debited: 1, unitCostSats: null });
    }
    // A millisecond past its end the session is expired on both paths (no offset either way).
    await expireIn("PaymentSession", id, "-1 millisecond");
    for (const db of [pgPath, prismaPath]) {
      expect(await debitSession({ ...db, lookup: { tokenHash }, tenantId, endpointId, modelHint: "token_bucket" })).toEqual({ ok: false, reason: "expired" });
      expect(await debitSession({ ...db, lookup: { sessionId: id }, tenantId, endpointId, modelHint: "token_bucket" })).toEqual({
        ok: false,
        reason: "expired",
      });
      expect(await chargeSession({ ...db, sessionId: id, amount: 1 })).toBeNull();
    }
    await expireIn("PaymentSession", id, "1 minute");
    expect(await debitSession({ ...pgPath, lookup: { tokenHash: "0".repeat(64) }, tenantId, endpointId, modelHint: "token_bucket" })).toEqual({
      ok: false,
      reason: "unknown",
    });
    expect(await debitSession({ ...pgPath, lookup: { tokenHash }, tenantId, endpointId: randomUUID(), modelHint: "token_bucket" })).toEqual({
      ok: false,
      reason: "wrong_endpoint",
    });

    const refundedAt = Date.now();
    expect(await refundSession({ ...pgPath, sessionId: id, amount: 2 })).toEqual({ balance: 10 });
    expect(await refundSession({ ...prismaPath, sessionId: id, amount: 2 })).toEqual({ balance: 12 });
    expect(await chargeSession({ ...pgPath, sessionId: id, amount: 12 })).toEqual({ balance: 0 });
    expect(await chargeSession({ ...pgPath, sessionId: id, amount: 1 })).toBeNull();
    expect(await debitSession({ ...pgPath, lookup: { sessionId: id }, tenantId, endpointId, modelHint: "token_bucket" })).toEqual({
      ok: false,
      reason: "depleted",
    });
    // updatedAt is the database's now(), read back as that instant.
    const updatedAt = (await ctx().db.prisma.paymentSession.findUniqueOrThrow({ where: { id } })).updatedAt.getTime();
    expect(updatedAt).toBeGreaterThanOrEqual(refundedAt - 1000);
    expect(updatedAt).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("takes a metered session's unit cost in the statement on both paths", async () => {
    const { tenantId, endpointId } = await tenantWithEndpoint();
    const { tokenHash } = await session(tenantId, endpointId, "metered", 10, new Date(Date.now() + 60_000), 3);
    const viaPg = await debitSession({ ...pgPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "metered" });
    const viaPrisma = await debitSession({ ...prismaPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "metered" });
    expect(viaPg).toMatchObject({ ok: true, session: { balance: 7, debited: 3, unitCostSats: 3 } });
    expect(viaPrisma).toMatchObject({ ok: true, session: { balance: 4, debited: 3, unitCostSats: 3 } });
    expect(await debitSession({ ...pgPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "metered" })).toMatchObject({
      ok: true,
      session: { balance: 1 },
    });
    expect(await debitSession({ ...pgPath, lookup: { tokenHash }, tenantId, endpointId, modelHint: "metered" })).toEqual({ ok: false, reason: "depleted" });
  });

  it("claims, consumes and releases proofs alike on both paths, with the lease in UTC", async () => {
    const { tenantId, endpointId } = await tenantWithEndpoint();
    for (let i = 0; i < 6; i++) {
      const paymentHash = randomBytes(32).toString("hex");
      await ctx().db.prisma.invoice.create({
        data: {
          tenantId,
          endpointId,
          paymentHash,
          paymentRequest: "lnbcrt-test",
          amountSats: 10,
          purpose: "per_request",
          expiresAt: new Date(Date.now() + 600_000),
        },
      });
      const [first, second] = i % 2 ? [pgPath, prismaPath] : [prismaPath, pgPath];
      const claim = { paymentHash, tenantId, endpointId, leaseMs: 60_000 };
      expect(await claimProof({ ...first, ...claim, requestId: "a" })).toBe("claimed");
      const proof = await ctx().db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } });
      expect(Math.abs(proof.claimedUntil!.getTime() - (Date.now() + 60_000))).toBeLessThan(10_000);
      expect(await claimProof({ ...second, ...claim, requestId: "b" })).toBe("in_use");
      await finishProof({ ...second, paymentHash, requestId: "a", outcome: "release" });
      expect(await claimProof({ ...second, ...claim, requestId: "b" })).toBe("claimed");
      await finishProof({ ...first, paymentHash, requestId: "a", outcome: "consume" }); // not its claim any more: no effect
      expect((await ctx().db.prisma.proof.findUniqueOrThrow({ where: { paymentHash } })).state).toBe("claimed");
      await finishProof({ ...first, paymentHash, requestId: "b", outcome: "consume" });
      expect(await claimProof({ ...first, ...claim, requestId: "c" })).toBe("spent");
      expect(await claimProof({ ...second, ...claim, requestId: "c" })).toBe("spent");
      expect((await ctx().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).status).toBe("settled");
    }
    expect(await ctx().db.prisma.outboxEvent.count({ where: { type: "invoice.settled" } })).toBe(6);
  });

  it("burns and refunds credit alike on both paths, and refuses it once the database's clock passes its expiry", async () => {
    const { tenantId, endpointId } = await tenantWithEndpoint();
    const paymentHash = randomBytes(32).toString("hex");
    const expiresAt = new Date(Date.now() + 5 * 3_600_000 + 7);
    await ctx().db.prisma.invoice.create({
      data: { tenantId, endpointId, paymentHash, paymentRequest: "lnbcrt-test", amountSats: 100, purpose: "credit", expiresAt: new Date(Date.now() + 600_000) },
    });
    const spend = (db: HotDb) => spendCredit({ ...db, prisma: ctx().db.prisma, tenantId, paymentHash, endpointId, priceSats: 7, expiresAt });
    const first = await spend(pgPath);
    expect(first).toMatchObject({ ok: true, balanceSats: 93 });
    for (let i = 0; i < 6; i++) expect(await spend(i % 2 ? pgPath : prismaPath)).toMatchObject({ ok: true, balanceSats: 86 - 7 * i });
    if (!first.ok) return;
    const credit = await ctx().db.prisma.credit.findUniqueOrThrow({ where: { paymentHash } });
    expect(credit.expiresAt.getTime()).toBe(expiresAt.getTime());
    expect(await refundCredit({ ...pgPath, creditId: first.creditId, amount: 7 })).toEqual({ balanceSats: 58 });
    await expireIn("Credit", first.creditId, "-1 millisecond");
    expect(await spend(pgPath)).toEqual({ ok: false, reason: "expired" });
    expect(await spend(prismaPath)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a credit whose validity ended before its first use, opening nothing", async () => {
    const { tenantId, endpointId } = await tenantWithEndpoint();
    const paymentHash = randomBytes(32).toString("hex");
    await ctx().db.prisma.invoice.create({
      data: { tenantId, endpointId, paymentHash, paymentRequest: "lnbcrt-test", amountSats: 100, purpose: "credit", expiresAt: new Date(Date.now() + 600_000) },
    });
    const lapsed = await spendCredit({
      ...pgPath,
      prisma: ctx().db.prisma,
      tenantId,
      paymentHash,
      endpointId,
      priceSats: 7,
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(lapsed).toEqual({ ok: false, reason: "expired" });
    expect(await ctx().db.prisma.credit.count()).toBe(0);
    expect((await ctx().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash } })).status).toBe("pending");
  });
});
