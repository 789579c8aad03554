// Group commit of the money statements (lib/payments/hot-batch.ts). The batcher's rules on their
// own (keys never in two batches at once, sorted rows, a failed batch retried call by call), then
// on PostgreSQL: concurrent debits and claims really share statements and stay exact, two gateway
// instances (two pools) claiming the same proofs each win a proof once, and one bad call in a batch
// costs the others nothing.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { debitSession } from "@/lib/payments/debit-session.ts";
import { StatementBatcher } from "@/lib/payments/hot-batch.ts";
import { claimProof, finishProof } from "@/lib/payments/redeem-proof.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { createTestContext, usingPostgres, type TestContext } from "@/tests/helpers/context.ts";

describe("StatementBatcher", () => {
  it("gathers one turn's calls into one sorted batch, and sends a call whose key is taken as its own statement", async () => {
    const batches: string[][] = [];
    const alone: string[] = [];
    const inFlightKeys = new Set<string>();
    // Each batch stays in flight until the test releases it: no timing decides what is busy.
    const releases: (() => void)[] = [];
    const batcher = new StatementBatcher<string, string>({
      keyOf: (item) => item,
      runBatch: async (items) => {
        for (const item of items) {
          expect(inFlightKeys.has(item)).toBe(false);
          inFlightKeys.add(item);
        }
        batches.push(items);
        await new Promise<void>((resolve) => releases.push(resolve));
        for (const item of items) inFlightKeys.delete(item);
        return new Map(items.filter((i) => i !== "miss").map((i) => [i, `row:${i}`]));
      },
      runOne: async (item) => {
        alone.push(item);
        return `alone:${item}`;
      },
      maxInFlight: 2,
    });
    const turn = () => new Promise((r) => setImmediate(r));
    const first = ["c", "a", "b", "a", "miss", "a"].map((k) => batcher.submit(k));
    await turn();
    expect(batches).toEqual([["a", "b", "c", "miss"]]);
    // "b" is in the batch in flight; "d" is not: it goes out in a second batch.
    const second = ["b", "d"].map((k) => batcher.submit(k));
    await turn();
    expect(batches).toEqual([["a", "b", "c", "miss"], ["d"]]);
    releases.forEach((release) => release());
    expect(await Promise.all(first)).toEqual(["row:c", "row:a", "row:b", "alone:a", null, "alone:a"]);
    expect(await Promise.all(second)).toEqual(["alone:b", "row:d"]);
    expect(alone).toEqual(["a", "a", "b"]);
  });

  it("runs every call of a batch PostgreSQL refused alone, so each gets its own answer or error", async () => {
    const batcher = new StatementBatcher<string, string>({
      keyOf: (item) => item,
      runBatch: async () => {
        throw Object.assign(new Error("deadlock detected"), { code: "40P01", severity: "ERROR" });
      },
      runOne: async (item) => {
        if (item === "bad") throw new Error(`bad call ${item}`);
        return item === "none" ? null : `alone:${item}`;
      },
    });
    const results = await Promise.allSettled(["x", "bad", "none", "y"].map((k) => batcher.submit(k)));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual(["alone:x", "bad call bad", null, "alone:y"]);
  });

  it("fails the calls of a batch whose connection broke, without running them again (the commit may have happened)", async () => {
    let alone = 0;
    const broken = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104 });
    const batcher = new StatementBatcher<string, string>({
      keyOf: (item) => item,
      runBatch: async () => {
        throw broken;
      },
      runOne: async (item) => {
        alone += 1;
        return item;
      },
    });
    const results = await Promise.allSettled(["x", "y"].map((k) => batcher.submit(k)));
    expect(results.map((r) => r.status === "rejected" && r.reason)).toEqual([broken, broken]);
    expect(alone).toBe(0);
  });

  it("with one batch in flight, holds the calls that arrive meanwhile and sends them together next", async () => {
    const batches: string[][] = [];
    const releases: (() => void)[] = [];
    const batcher = new StatementBatcher<string, string>({
      keyOf: (item) => item,
      runBatch: async (items) => {
        batches.push(items);
        await new Promise<void>((resolve) => releases.push(resolve));
        return new Map(items.map((i) => [i, `row:${i}`]));
      },
      runOne: async (item) => `alone:${item}`,
      maxInFlight: 1,
    });
    const turn = () => new Promise((r) => setImmediate(r));
    const first = batcher.submit("a");
    await turn();
    const waiting = ["c", "b"].map((k) => batcher.submit(k));
    await turn();
    waiting.push(batcher.submit("d"));
    await turn();
    expect(batches).toEqual([["a"]]);
    releases.shift()!();
    expect(await first).toBe("row:a");
    // The next batch leaves on a later turn of the loop, once the first has settled.
    for (let i = 0; i < 5 && batches.length < 2; i++) await turn();
    expect(batches).toEqual([["a"], ["b", "c", "d"]]);
    releases.shift()!();
    expect(await Promise.all(waiting)).toEqual(["row:c", "row:b", "row:d"]);
  });

  it("caps a batch at maxBatch calls", async () => {
    const sizes: number[] = [];
    const batcher = new StatementBatcher<number, number>({
      keyOf: (n) => String(n).padStart(4, "0"),
      runBatch: async (items) => {
        sizes.push(items.length);
        return new Map(items.map((n) => [String(n).padStart(4, "0"), n]));
      },
      runOne: async (n) => n,
      maxBatch: 10,
      maxInFlight: 1,
    });
    expect(await Promise.all(Array.from({ length: 35 }, (_, i) => batcher.submit(i)))).toEqual(Array.from({ length: 35 }, (_, i) => i));
    expect(sizes).toEqual([10, 10, 10, 5]);
  });
});

describe.skipIf(!usingPostgres)("batched money statements on PostgreSQL", () => {
  let ctx: TestContext;
  /** Pools of their own, so the statements they run can be counted (a pool is one gateway instance). */
  const pools: pg.Pool[] = [];
  const statements = new Map<string, number>();

  function countingPool(): pg.Pool {
    const pool = new pg.Pool({ connectionString: ctx.config.databaseUrl!, max: 8 });
    // pool.end() resolves before its idle connections have closed, and the scratch database is then
    // dropped WITH (FORCE): a connection still closing gets FATAL 57P01, which a pool without an
    // 'error' listener throws as an uncaught exception (as lib/db/client.ts's pool, it is ignored).
    pool.on("error", () => {});
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
      const name = (args[0] as { name?: string }).name ?? "(unnamed)";
      statements.set(name, (statements.get(name) ?? 0) + 1);
      return query(...args);
    };
    pools.push(pool);
    return pool;
  }

  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await ctx?.close();
  });
  beforeEach(async () => {
    await ctx.reset();
    statements.clear();
  });

  it("serves exactly each session's balance when 200 calls on 20 sessions arrive at once (a batch with each session once, the rest alone)", async () => {
    const pool = countingPool();
    const { tenantId } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret);
    await webhookSubscriptionFactory(ctx.db.prisma, ctx.config.appSecret, tenantId);
    const endpoint = await endpointFactory(ctx.db.prisma, tenantId, { pricingModel: "token_bucket", priceSats: 10, tokenBudget: 5 });
    const expiresAt = new Date(Date.now() + 3_600_000);
    const sessions = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const tokenHash = randomBytes(32).toString("hex");
        await ctx.db.prisma.paymentSession.create({
          data: {
            id: randomUUID(),
            tenantId,
            endpointId: endpoint.id,
            model: "token_bucket",
            tokenHash,
            paymentHash: randomBytes(32).toString("hex"),
            balance: 5,
            initialBalance: 5,
            expiresAt,
          },
        });
        return tokenHash;
      }),
    );
    const calls = sessions.flatMap((tokenHash) => Array.from({ length: 10 }, () => tokenHash));
    const results = await Promise.all(
      calls.map((tokenHash) =>
        debitSession({ prisma: ctx.db.prisma, pg: pool, lookup: { tokenHash }, tenantId, endpointId: endpoint.id, modelHint: "token_bucket" }),
      ),
    );
    for (const tokenHash of sessions) {
      const own = results.filter((_, i) => calls[i] === tokenHash);
      expect(own.filter((r) => r.ok)).toHaveLength(5);
      expect(own.filter((r) => !r.ok).every((r) => !r.ok && r.reason === "depleted")).toBe(true);
    }
    const balances = await ctx.db.prisma.paymentSession.findMany({ select: { balance: true } });
    expect(balances.every((b) => b.balance === 0)).toBe(true);
    // A batch holds each session once; the other calls of a session in flight go alone.
    const batched = statements.get("hub_session_debit_batch") ?? 0;
    expect(batched).toBeGreaterThanOrEqual(1);
    expect(batched + (statements.get("hub_session_debit_by_token") ?? 0)).toBeLessThan(200);
  });

  it("claims each of 100 proofs exactly once when two gateway instances present all of them at once, with one settlement and one event each", async () => {
    const [a, b] = [countingPool(), countingPool()];
    const { tenantId } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret);
    await webhookSubscriptionFactory(ctx.db.prisma, ctx.config.appSecret, tenantId);
    const endpoint = await endpointFactory(ctx.db.prisma, tenantId, { pricingModel: "per_request", priceSats: 1 });
    const hashes = Array.from({ length: 100 }, () => createHash("sha256").update(randomBytes(32)).digest("hex"));
    await ctx.db.prisma.invoice.createMany({
      data: hashes.map((paymentHash) => ({
        tenantId,
        endpointId: endpoint.id,
        paymentHash,
        paymentRequest: "lnbcrt-test",
        amountSats: 1,
        purpose: "per_request" as const,
        expiresAt: new Date(Date.now() + 600_000),
      })),
    });
    // Each instance sees the proofs in its own order.
    const attempts = [...hashes.map((h) => ({ pool: a, h })), ...[...hashes].reverse().map((h) => ({ pool: b, h }))];
    const results = await Promise.all(
      attempts.map(({ pool, h }) =>
        claimProof({ prisma: ctx.db.prisma, pg: pool, paymentHash: h, tenantId, endpointId: endpoint.id, requestId: randomUUID(), leaseMs: 30_000 }),
      ),
    );
    for (const h of hashes) {
      const own = results.filter((_, i) => attempts[i].h === h);
      expect(own.filter((r) => r === "claimed")).toHaveLength(1);
      expect(own.filter((r) => r === "in_use")).toHaveLength(1);
    }
    expect(await ctx.db.prisma.invoice.count({ where: { status: "settled" } })).toBe(100);
    expect(await ctx.db.prisma.outboxEvent.count({ where: { type: "invoice.settled" } })).toBe(100);
    expect(statements.get("hub_claim_proof_batch") ?? 0).toBeLessThan(100);
  });

  it("answers the other calls of a batch when one call breaks a constraint, and finishes claims in batches", async () => {
    const pool = countingPool();
    const { tenantId } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret);
    await webhookSubscriptionFactory(ctx.db.prisma, ctx.config.appSecret, tenantId);
    const endpoint = await endpointFactory(ctx.db.prisma, tenantId, { pricingModel: "per_request", priceSats: 1 });
    const good = Array.from({ length: 5 }, () => randomBytes(32).toString("hex"));
    const claims = [
      ...good.map((paymentHash) => ({ paymentHash, tenantId, requestId: randomUUID() })),
      // No such tenant: the Proof row violates its foreign key, failing the batch it is in.
      { paymentHash: randomBytes(32).toString("hex"), tenantId: "no-such-tenant", requestId: randomUUID() },
    ];
    const results = await Promise.allSettled(
      claims.map((c) =>
        claimProof({
          prisma: ctx.db.prisma,
          pg: pool,
          paymentHash: c.paymentHash,
          tenantId: c.tenantId,
          endpointId: endpoint.id,
          requestId: c.requestId,
          leaseMs: 30_000,
        }),
      ),
    );
    expect(results.slice(0, 5).map((r) => r.status === "fulfilled" && r.value)).toEqual(Array(5).fill("claimed"));
    expect(results[5].status).toBe("rejected");
    expect(String((results[5] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
    expect(statements.get("hub_claim_proof_batch")).toBe(1);
    expect(statements.get("hub_claim_proof")).toBe(6);

    await Promise.all(
      claims
        .slice(0, 5)
        .map((c, i) =>
          finishProof({ prisma: ctx.db.prisma, pg: pool, paymentHash: c.paymentHash, requestId: c.requestId, outcome: i < 3 ? "consume" : "release" }),
        ),
    );
    const states = await ctx.db.prisma.proof.findMany({ where: { paymentHash: { in: good } }, select: { paymentHash: true, state: true, consumedAt: true } });
    expect(states.filter((s) => s.state === "consumed" && s.consumedAt)).toHaveLength(3);
    expect(states.filter((s) => s.state === "released" && !s.consumedAt)).toHaveLength(2);
    expect(statements.get("hub_finish_proof_batch")).toBe(1);
  });
});
