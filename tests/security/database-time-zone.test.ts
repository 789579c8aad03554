// The database session's time zone must not move money or leases (issue 23, finding 2). A lease
// written as UTC wall time into `timestamp without time zone` and compared with now() was already
// over east of UTC (every concurrent redemption of one proof was served) and hours long west of it
// (a crashed claim blocked its proof). Each zone runs against its own database whose connections
// start in that zone; assertions read instants as epoch milliseconds in SQL, which no zone changes.
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Gateway } from "@/lib/gateway/server.ts";
import { acquireLease } from "@/lib/jobs/worker.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { expireSessions } from "@/lib/payments/expire-sessions.ts";
import { claimProof } from "@/lib/payments/redeem-proof.ts";
import { claimDueDeliveries } from "@/lib/webhooks/deliver.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { eventExamples } from "@/lib/events/catalogue.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { createTestContext, useTestContext, usingPostgres } from "@/tests/helpers/context.ts";
import { call, header, payChallenge, startGateways } from "@/tests/helpers/gateway.ts";
import { json, startTestOrigin, type TestOrigin } from "@/tests/helpers/origin.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** East of UTC (a lease looked lapsed at once) and west of it (a lease outlived itself by hours). */
const zones = ["Asia/Tokyo", "Europe/Berlin", "America/Los_Angeles"] as const;

describe.each(zones)("database session time zone %s", (zone) => {
  const context = useTestContext({}, { sessionTimeZone: zone });
  let origin: TestOrigin;
  let devNode: DevLightningNode;
  let gateways: Gateway[];
  let urls: string[];
  let closeGateways: () => Promise<void>;
  let setup: { tenantId: string; slug: string; slowId: string; bucketId: string };

  beforeAll(async () => {
    const ctx = context();
    origin = await startTestOrigin();
    // Slow enough that every concurrent redemption claims while the first call is still at the origin.
    origin.route("/v1/slow", async (req, res) => {
      await sleep(400);
      json(200, { ok: true })(req, res);
    });
    origin.route("/v1/bucket", json(200, { ok: true }));
    devNode = new DevLightningNode({ prisma: ctx.db.prisma, appSecret: ctx.config.appSecret });
    ({ gateways, urls, close: closeGateways } = await startGateways(ctx, devNode, 2));
  });

  afterAll(async () => {
    await closeGateways?.();
    await origin?.close();
  });

  beforeEach(async () => {
    const ctx = context();
    gateways.forEach((g) => g.tenants.invalidate());
    origin.received.length = 0;
    const { tenantId, slug } = await tenantFactory(ctx.db.prisma, ctx.config.appSecret, { originUrl: origin.url });
    await webhookSubscriptionFactory(ctx.db.prisma, ctx.config.appSecret, tenantId);
    await devWalletFactory(ctx.db.prisma, ctx.config.appSecret, tenantId, devNode.nodePubkey);
    const slow = await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/slow", pricingModel: "per_request", priceSats: 5 });
    const bucket = await endpointFactory(ctx.db.prisma, tenantId, { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 10, tokenBudget: 100 });
    setup = { tenantId, slug, slowId: slow.id, bucketId: bucket.id };
  });

  const url = (i: number, path: string) => `${urls[i % urls.length]}/gw/${setup.slug}${path}`;

  /** One value of the database, as a number (epoch milliseconds and the like). */
  async function sqlNumber(text: string, params: unknown[] = []): Promise<number> {
    const rows = await context().db.sql.query(text, params);
    return Number(Object.values(rows[0])[0]);
  }

  it("runs in the zone it names (else every test below proves nothing)", async () => {
    // A fresh connection of the zone's database, bypassing lib/db: PGlite's one session was SET.
    if (usingPostgres) {
      const raw = new pg.Client({ connectionString: context().config.databaseUrl! });
      await raw.connect();
      const shown = (await raw.query("SHOW TimeZone")).rows[0].TimeZone;
      await raw.end();
      expect(shown).toBe(zone);
    } else {
      expect((await context().db.sql.query("SHOW TimeZone"))[0].TimeZone).toBe(zone);
    }
  });

  it("serves exactly one of 24 concurrent redemptions of one per_request proof, on two gateways", async () => {
    const { authorization, paymentHash } = await payChallenge(devNode, await call(url(0, "/v1/slow")));
    const attempts = await Promise.all(Array.from({ length: 24 }, (_, i) => call(url(i, "/v1/slow"), { authorization })));
    expect(attempts.filter((a) => a.status === 200)).toHaveLength(1);
    expect(attempts.filter((a) => a.status !== 200).every((a) => [402, 409].includes(a.status) && header(a, "x-hub-payment") === "not_charged")).toBe(true);
    expect(origin.received.filter((r) => r.url === "/v1/slow")).toHaveLength(1);
    const state = await context().db.sql.query(`SELECT "state"::text AS "state" FROM "Proof" WHERE "paymentHash" = $1`, [paymentHash]);
    expect(state[0].state).toBe("consumed");
  });

  it("keeps a crashed gateway's claim for its lease length, then lets the proof redeem", async () => {
    const ctx = context();
    const { authorization, paymentHash } = await payChallenge(devNode, await call(url(0, "/v1/slow")));
    // What a gateway that died mid-call leaves behind: a claim nobody will finish.
    const claimedAt = Date.now();
    const crashed = await claimProof({
      prisma: ctx.db.prisma,
      pg: ctx.db.pg,
      paymentHash,
      tenantId: setup.tenantId,
      endpointId: setup.slowId,
      requestId: "crashed",
      leaseMs: 1500,
    });
    expect(crashed).toBe("claimed");
    const during = await call(url(1, "/v1/slow"), { authorization });
    expect([during.status, header(during, "retry-after")]).toEqual([409, "1"]);
    await sleep(claimedAt + 1700 - Date.now());
    const after = await call(url(0, "/v1/slow"), { authorization });
    expect(after.status, after.text).toBe(200);
    expect(origin.received).toHaveLength(1);
  });

  it("computes the claim lease in SQL, right on a connection of this zone even without lib/db's UTC pin", async () => {
    const ctx = context();
    // PostgreSQL: a pool of plain connections in the zone (no pin); PGlite: its one session was SET.
    const rawPool = usingPostgres ? new pg.Pool({ connectionString: ctx.config.databaseUrl!, max: 4 }) : null;
    try {
      const hot = { prisma: ctx.db.prisma, pg: rawPool };
      const hashes = ["a", "b", "c"].map((c) => c.repeat(64));
      const claim = (paymentHash: string, requestId: string) =>
        claimProof({ ...hot, paymentHash, tenantId: setup.tenantId, endpointId: setup.slowId, requestId, leaseMs: 1000 });
      const start = Date.now();
      // Concurrent claims of distinct proofs go as one batch statement on PostgreSQL.
      expect(await Promise.all(hashes.map((h) => claim(h, "first")))).toEqual(["claimed", "claimed", "claimed"]);
      expect(await Promise.all(hashes.map((h) => claim(h, "second")))).toEqual(["in_use", "in_use", "in_use"]);
      const leaseEnds = await sqlNumber(`SELECT min(extract(epoch FROM "claimedUntil") * 1000) FROM "Proof"`);
      expect(leaseEnds).toBeGreaterThanOrEqual(start + 900);
      expect(leaseEnds).toBeLessThanOrEqual(Date.now() + 1100);
      await sleep(start + 1200 - Date.now());
      expect(await Promise.all(hashes.map((h) => claim(h, "third")))).toEqual(["claimed", "claimed", "claimed"]);
    } finally {
      await rawPool?.end();
    }
  });

  it("stamps invoice.settled with the settlement's UTC instant", async () => {
    const { authorization, paymentHash } = await payChallenge(devNode, await call(url(0, "/v1/slow")));
    const before = Date.now();
    expect((await call(url(0, "/v1/slow"), { authorization })).status).toBe(200);
    const rows = await context().db.sql.query(
      `SELECT e."data"->>'settledAt' AS "eventSettledAt", extract(epoch FROM i."settledAt") * 1000 AS "settledAtMs"
       FROM "OutboxEvent" e JOIN "Invoice" i ON i."paymentHash" = e."data"->>'paymentHash'
       WHERE e."type" = 'invoice.settled' AND i."paymentHash" = $1`,
      [paymentHash],
    );
    expect(rows).toHaveLength(1);
    const settledAt = Number(rows[0].settledAtMs);
    expect(settledAt).toBeGreaterThanOrEqual(before - 1000);
    expect(settledAt).toBeLessThanOrEqual(Date.now() + 1000);
    expect(Date.parse(String(rows[0].eventSettledAt))).toBe(settledAt);
  });

  it("ends a session at the instant the database holds, for calls and for session.expired", async () => {
    const ctx = context();
    const first = await call(url(0, "/v1/bucket"), { authorization: (await payChallenge(devNode, await call(url(0, "/v1/bucket")))).authorization });
    expect(first.status, first.text).toBe(200);
    const token = header(first, "x-session-token")!;
    const storedMs = await sqlNumber(`SELECT extract(epoch FROM "expiresAt") * 1000 FROM "PaymentSession"`);
    expect(storedMs - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    // An hour left: still live for calls and for the expiry job.
    await ctx.db.sql.exec(`UPDATE "PaymentSession" SET "expiresAt" = now() + interval '1 hour'`);
    expect((await call(url(1, "/v1/bucket"), { "x-session-token": token })).status).toBe(200);
    expect(await expireSessions({ prisma: ctx.db.prisma })).toBe(0);

    // Ended a second ago: refused and announced once.
    await ctx.db.sql.exec(`UPDATE "PaymentSession" SET "expiresAt" = now() - interval '1 second'`);
    const ended = await call(url(0, "/v1/bucket"), { "x-session-token": token });
    expect([ended.status, header(ended, "x-hub-payment")]).toEqual([402, "not_charged"]);
    expect(await expireSessions({ prisma: ctx.db.prisma })).toBe(1);
    expect(await expireSessions({ prisma: ctx.db.prisma })).toBe(0);
  });

  it("gives a singleton job's lease to one worker for its interval, then to the next", async () => {
    const { prisma } = context().db;
    const start = Date.now();
    expect(await acquireLease(prisma, "zone-job", "worker-a", 1000)).toBe(true);
    expect(await acquireLease(prisma, "zone-job", "worker-b", 1000)).toBe(false);
    await sleep(start + 1200 - Date.now());
    expect(await acquireLease(prisma, "zone-job", "worker-b", 1000)).toBe(true);
    expect(await acquireLease(prisma, "zone-job", "worker-a", 1000)).toBe(false);
  });

  it("keeps a webhook delivery's lease for its length, then lets another worker claim it", async () => {
    const { prisma } = context().db;
    await enqueueEvent(prisma, { tenantId: setup.tenantId, type: "session.created", data: eventExamples["session.created"] });
    expect((await dispatchOutbox({ prisma })).deliveries).toBe(1);
    const start = Date.now();
    const first = await claimDueDeliveries({ prisma, limit: 10, perSubscription: 4, leaseMs: 1000 });
    expect(first.map((d) => d.attempts)).toEqual([1]);
    expect(await claimDueDeliveries({ prisma, limit: 10, perSubscription: 4, leaseMs: 1000 })).toHaveLength(0);
    await sleep(start + 1200 - Date.now());
    const again = await claimDueDeliveries({ prisma, limit: 10, perSubscription: 4, leaseMs: 1000 });
    expect(again.map((d) => d.attempts)).toEqual([2]);
  });

  // Through Prisma: its adapters send and read timestamps as UTC wall time, right only on a UTC
  // session, which lib/db pins on every PostgreSQL connection (PGlite's session here was SET after).
  it.runIf(usingPostgres)("keeps a Date written through Prisma the same instant, in step with now()", async () => {
    const { prisma } = context().db;
    const lockedUntil = new Date(Date.now() + 30 * 60_000);
    await prisma.jobLease.create({ data: { name: "prisma-instant", lockedUntil } });
    expect((await prisma.jobLease.findUniqueOrThrow({ where: { name: "prisma-instant" } })).lockedUntil.getTime()).toBe(lockedUntil.getTime());
    const rows = await prisma.$queryRaw<{ ms: number; ahead: boolean }[]>`
      SELECT extract(epoch FROM "lockedUntil") * 1000 AS "ms",
        "lockedUntil" BETWEEN now() + interval '29 minutes' AND now() + interval '31 minutes' AS "ahead"
      FROM "JobLease" WHERE "name" = 'prisma-instant'`;
    expect(Number(rows[0].ms)).toBe(lockedUntil.getTime());
    expect(rows[0].ahead).toBe(true);
  });

  it.runIf(usingPostgres)("tells a new session's client the expiry the database stored", async () => {
    const first = await call(url(0, "/v1/bucket"), { authorization: (await payChallenge(devNode, await call(url(0, "/v1/bucket")))).authorization });
    expect(first.status, first.text).toBe(200);
    const storedMs = await sqlNumber(`SELECT extract(epoch FROM "expiresAt") * 1000 FROM "PaymentSession"`);
    expect(Date.parse(header(first, "x-session-expires")!)).toBe(storedMs);
  });

  it.runIf(usingPostgres)("stamps a webhook envelope with its event's instant", async () => {
    const { prisma } = context().db;
    const before = Date.now();
    await enqueueEvent(prisma, { tenantId: setup.tenantId, type: "session.created", data: eventExamples["session.created"] });
    await dispatchOutbox({ prisma });
    const [claimed] = await claimDueDeliveries({ prisma, limit: 10, perSubscription: 4, leaseMs: 60_000 });
    expect(claimed.eventCreatedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(claimed.eventCreatedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });
});

// CI runs the PostgreSQL suite with DATABASE_URL asking for Asia/Tokyo: every test file's scratch
// database must ask the same, or that run would prove nothing.
it.runIf(usingPostgres)("gives each test file's scratch database DATABASE_URL's connection options", async () => {
  const ctx = await createTestContext();
  try {
    expect(new URL(ctx.config.databaseUrl!).search).toBe(new URL(process.env.DATABASE_URL!).search);
  } finally {
    await ctx.close();
  }
});
