// At-least-once under failure: a delivery claimed by a worker that then crashed is re-sent after its
// lease lapses, a restarted worker picks up what was scheduled before, and workers racing over the
// same queue (separate connection pools on PostgreSQL, like separate processes) send each attempt
// exactly once. Run on PGlite and on PostgreSQL (DATABASE_URL): PGlite serializes every query.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/client.ts";
import { claimDueDeliveries, DEFAULT_LEASE_MS, recordOutcomes, WebhookSender } from "@/lib/webhooks/deliver.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import { createWebhook } from "@/lib/webhooks/create-webhook.ts";
import { eventExamples } from "@/lib/events/catalogue.ts";
import type { TargetPolicy } from "@/lib/origin/ssrf.ts";
import { tenantFactory } from "@/prisma/factories.ts";
import { useTestContext, usingPostgres } from "@/tests/helpers/context.ts";
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver } from "./https-receiver.ts";

let second: Database | null = null;
let receiver: HttpsReceiver;
const ctx = useTestContext();
beforeAll(async () => {
  // A second process's view of the same database: its own pool on PostgreSQL; PGlite has one connection.
  if (usingPostgres) second = await openDatabase({ databaseUrl: ctx().config.databaseUrl, pgliteDir: null, poolSize: 10 });
});
afterAll(async () => {
  await second?.close();
});
beforeEach(async () => {
  receiver = await startHttpsReceiver();
});
afterEach(() => receiver.close());

const policy: TargetPolicy = { resolver: async () => [{ address: "127.0.0.1", family: 4 }], allowedTargets: ["127.0.0.0/8"] };
const prisma = () => ctx().db.prisma;

function newSender(db = ctx().db, options: { leaseMs?: number; maxInFlight?: number; perSubscription?: number } = {}) {
  return new WebhookSender({ prisma: db.prisma, appSecret: ctx().config.appSecret, policy, ca: selfSignedCertificate().cert, ...options });
}

async function queueEvents(count: number, subscriptions = 1) {
  const { tenantId } = await tenantFactory(prisma(), ctx().config.appSecret);
  for (let i = 0; i < subscriptions; i += 1) {
    await createWebhook({ prisma: prisma(), appSecret: ctx().config.appSecret, policy, tenantId, input: { url: receiver.url(`/hook/${i}`), events: ["*"] } });
  }
  for (let i = 0; i < count; i += 1) {
    await enqueueEvent(prisma(), { tenantId, type: "invoice.settled", data: { ...eventExamples["invoice.settled"], amountSats: i + 1 } });
  }
  await dispatchOutbox({ prisma: prisma() });
  return tenantId;
}

describe("crash and restart", () => {
  it("re-sends a delivery whose worker crashed mid-attempt, only after the lease lapses", async () => {
    await queueEvents(1);
    const t0 = Date.now();
    // Worker A claims (attempt 1, a short lease: the database's clock must really pass it) and dies
    // before sending or recording anything.
    const claimed = await claimDueDeliveries({ prisma: prisma(), limit: 10, perSubscription: 4, leaseMs: 1000 });
    expect(claimed).toHaveLength(1);
    expect(claimed[0].attempts).toBe(1);

    // A restarted worker (fresh process state) does not touch it while the lease holds...
    const restarted = newSender(second ?? ctx().db, { leaseMs: DEFAULT_LEASE_MS });
    try {
      expect(await restarted.pump()).toBe(0);
      // ...and sends it once the lease has lapsed, as attempt 2 with the same id.
      await new Promise((r) => setTimeout(r, t0 + 1200 - Date.now()));
      expect(await restarted.pump()).toBe(1);
      await restarted.drain();
    } finally {
      await restarted.close();
    }
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers["x-webhook-id"]).toBe(claimed[0].id);
    expect(await prisma().webhookDelivery.findUniqueOrThrow({ where: { id: claimed[0].id } })).toMatchObject({ status: "succeeded", attempts: 2 });

    // The crashed worker's late outcome (attempt 1) is not recorded over attempt 2's.
    const late = await recordOutcomes(prisma(), [
      { delivery: claimed[0], outcome: { ok: false, status: 500, error: "late", retryAfterMs: null, responseSnippet: null }, requestSnippet: "" },
    ]);
    expect(late.size).toBe(0);
    expect((await prisma().webhookDelivery.findUniqueOrThrow({ where: { id: claimed[0].id } })).status).toBe("succeeded");
  });

  it("delivers, after a restart, what was scheduled before it (state lives in the database only)", async () => {
    await queueEvents(3);
    // The first process stops before its worker ran at all.
    const before = newSender();
    await before.close();
    const after = newSender(second ?? ctx().db);
    try {
      expect(await after.pump()).toBe(3);
      await after.drain();
    } finally {
      await after.close();
    }
    expect(receiver.received).toHaveLength(3);
    expect(await prisma().webhookDelivery.count({ where: { status: "succeeded" } })).toBe(3);
  });
});

describe("workers racing", () => {
  it("claims each due delivery exactly once across concurrent claimers", async () => {
    await queueEvents(60, 3);
    const dbs = [ctx().db, second ?? ctx().db, ctx().db, second ?? ctx().db];
    const claims = await Promise.all(dbs.map((db) => claimDueDeliveries({ prisma: db.prisma, limit: 200, perSubscription: 200, leaseMs: 60_000 })));
    const ids = claims.flat().map((c) => c.id);
    expect(ids).toHaveLength(180);
    expect(new Set(ids).size).toBe(180);
    if (usingPostgres) expect(claims.filter((c) => c.length > 0).length).toBeGreaterThanOrEqual(1);
  });

  it("two workers pumping the same queue send every delivery exactly once", async () => {
    const total = 150;
    await queueEvents(total / 3, 3);
    const a = newSender(ctx().db, { maxInFlight: 16, perSubscription: 8 });
    const b = newSender(second ?? ctx().db, { maxInFlight: 16, perSubscription: 8 });
    try {
      const deadline = Date.now() + 30_000;
      while ((await prisma().webhookDelivery.count({ where: { status: "succeeded" } })) < total) {
        await Promise.all([a.pump(), b.pump()]);
        await new Promise((r) => setTimeout(r, 5));
        expect(Date.now()).toBeLessThan(deadline);
      }
      await Promise.all([a.drain(), b.drain()]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    const sent = receiver.received.map((r) => String(r.headers["x-webhook-id"]));
    expect(sent).toHaveLength(total);
    expect(new Set(sent).size).toBe(total);
    const rows = await prisma().webhookDelivery.findMany({ select: { attempts: true, status: true } });
    expect(rows.every((r) => r.attempts === 1 && r.status === "succeeded")).toBe(true);
  });

  it("bounds the deliveries in flight per subscription across workers", async () => {
    await queueEvents(30, 1);
    const first = await claimDueDeliveries({ prisma: prisma(), limit: 100, perSubscription: 4, leaseMs: 60_000 });
    expect(first).toHaveLength(4);
    // Another worker sees the 4 leases and claims nothing more for that subscription.
    expect(await claimDueDeliveries({ prisma: (second ?? ctx().db).prisma, limit: 100, perSubscription: 4, leaseMs: 60_000 })).toHaveLength(0);
  });
});
