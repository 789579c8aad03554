// Retention: old finished deliveries, their events and old raw health samples go; pending work,
// recent history, health rollups and the money ledger stay.
import { describe, expect, it } from "vitest";
import { retention, trimRetainedData } from "@/lib/jobs/retention.ts";
import { platformJobs } from "@/lib/jobs/schedule.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const ctx = useTestContext();

const now = new Date("2026-11-21T12:00:00Z");
const daysAgo = (d: number) => new Date(now.getTime() - d * 86_400_000);

async function seed() {
  const { prisma } = ctx().db;
  const { tenantId } = await tenantFactory(prisma, ctx().config.appSecret);
  const endpoint = await endpointFactory(prisma, tenantId, { pricingModel: "per_request", priceSats: 1 });
  const subscription = await prisma.webhookSubscription.create({
    data: { tenantId, url: "https://example.com/hook", events: ["invoice.settled"], secretEnc: "sealed" },
  });
  const event = async (name: string, createdAt: Date, dispatched = true) =>
    (
      await prisma.outboxEvent.create({
        data: { id: name, tenantId, type: "invoice.settled", data: {}, createdAt, dispatchedAt: dispatched ? createdAt : null },
      })
    ).id;
  const delivery = (eventId: string, status: "pending" | "succeeded" | "failed", finishedAt: Date) =>
    prisma.webhookDelivery.create({
      data: {
        id: `d-${eventId}`,
        subscriptionId: subscription.id,
        eventId,
        tenantId,
        eventType: "invoice.settled",
        status,
        createdAt: finishedAt,
        updatedAt: finishedAt,
        lastAttemptAt: finishedAt,
        nextAttemptAt: status === "pending" ? finishedAt : null,
      },
    });
  await delivery(await event("old-ok", daysAgo(40)), "succeeded", daysAgo(40));
  await delivery(await event("old-failed", daysAgo(45)), "failed", daysAgo(44));
  // Created long ago but its last retry finished recently: still in the log.
  await delivery(await event("old-retried", daysAgo(40)), "failed", daysAgo(3));
  await delivery(await event("old-pending", daysAgo(40)), "pending", daysAgo(40));
  await delivery(await event("recent-ok", daysAgo(2)), "succeeded", daysAgo(2));
  await event("old-no-subscriber", daysAgo(40));
  await event("old-undispatched", daysAgo(40), false);
  for (const d of [1, 7.5, 9, 30]) {
    await prisma.healthSample.create({ data: { tenantId, endpointId: endpoint.id, ok: true, latencyMs: 10, checkedAt: daysAgo(d) } });
  }
  return { tenantId };
}

describe("retention", () => {
  it("trims finished deliveries and their events after 30 days and raw samples after 8, nothing else", async () => {
    await seed();
    const { prisma } = ctx().db;
    const rollupsBefore = await prisma.endpointHealthDay.count();
    const result = await trimRetainedData({ prisma, now });
    expect(result).toEqual({ deliveries: 2, events: 3, healthSamples: 2 });
    expect((await prisma.webhookDelivery.findMany({ orderBy: { id: "asc" } })).map((d) => d.id)).toEqual(["d-old-pending", "d-old-retried", "d-recent-ok"]);
    expect((await prisma.outboxEvent.findMany({ orderBy: { id: "asc" } })).map((e) => e.id)).toEqual([
      "old-pending",
      "old-retried",
      "old-undispatched",
      "recent-ok",
    ]);
    expect(await prisma.healthSample.count()).toBe(2);
    expect(await prisma.endpointHealthDay.count()).toBe(rollupsBefore);
    expect(await trimRetainedData({ prisma, now })).toEqual({ deliveries: 0, events: 0, healthSamples: 0 });
  });

  it("works through a backlog in bounded batches across passes", async () => {
    const { tenantId } = await seed();
    const { prisma } = ctx().db;
    const endpoint = await prisma.endpoint.findFirstOrThrow({ where: { tenantId } });
    await prisma.healthSample.createMany({
      data: Array.from({ length: 25 }, () => ({ tenantId, endpointId: endpoint.id, ok: false, checkedAt: daysAgo(20) })),
    });
    const first = await trimRetainedData({ prisma, now, limits: { batchSize: 5, maxBatches: 2 } });
    expect(first.healthSamples).toBe(10);
    let passes = 1;
    while ((await trimRetainedData({ prisma, now, limits: { batchSize: 5, maxBatches: 2 } })).healthSamples > 0) passes += 1;
    expect(passes).toBe(3);
    expect(await prisma.healthSample.count()).toBe(2);
  });

  it("runs as a singleton worker job", () => {
    const job = platformJobs({ prisma: ctx().db.prisma, store: ctx().store, devNode: null, log: createLogger("silent"), config: ctx().config }).find(
      (j) => j.name === "retention",
    );
    expect(job).toMatchObject({ singleton: true });
    expect(retention.deliveryDays).toBe(30);
  });
});
