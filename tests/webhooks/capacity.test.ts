// node.capacity_changed from its real source: the worker's capacity job reads the dev node's
// (simulated) channels, debounces, and writes one event per workspace paid through that node,
// with exactly the spec 6.1 payload; the events are delivered and verify with the SDK.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { platformJobs } from "@/lib/jobs/schedule.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { verifyWebhook } from "@l402-hub/sdk/webhooks";
import { checkNodeCapacity, type CapacityReading } from "@/lib/webhooks/capacity-monitor.ts";
import { createWebhook } from "@/lib/webhooks/create-webhook.ts";
import { WebhookSender } from "@/lib/webhooks/deliver.ts";
import { dispatchOutbox } from "@/lib/webhooks/dispatch-outbox.ts";
import type { TargetPolicy } from "@/lib/origin/ssrf.ts";
import { devWalletFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver } from "./https-receiver.ts";

let devNode: DevLightningNode;
let receiver: HttpsReceiver;
const ctx = useTestContext();
beforeEach(async () => {
  devNode = new DevLightningNode({ prisma: ctx().db.prisma, appSecret: ctx().config.appSecret });
  receiver = await startHttpsReceiver();
});
afterEach(() => receiver.close());

const prisma = () => ctx().db.prisma;
const policy: TargetPolicy = { resolver: async () => [{ address: "127.0.0.1", family: 4 }], allowedTargets: ["127.0.0.0/8"] };

/** The worker's own job, wired as server.ts wires it. */
function capacityJob() {
  const job = platformJobs({ prisma: prisma(), store: ctx().store, devNode, log: createLogger("silent"), config: ctx().config }).find(
    (j) => j.name === "node-capacity",
  );
  if (!job) throw new Error("node-capacity job missing");
  return job;
}

/** A tenant subscribed to every event: capacity events are written for tenants that receive them. */
async function subscribedTenant() {
  const tenant = await tenantFactory(prisma(), ctx().config.appSecret);
  await webhookSubscriptionFactory(prisma(), ctx().config.appSecret, tenant.tenantId);
  return tenant;
}

async function capacityEvents() {
  return prisma().outboxEvent.findMany({ where: { type: "node.capacity_changed" }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

describe("node capacity monitor", () => {
  it("is scheduled as a singleton at NODE_CAPACITY_CHECK_SECONDS", () => {
    const job = capacityJob();
    expect(job.singleton).toBe(true);
    expect(job.intervalMs).toBe(ctx().config.nodeCapacityCheckSeconds * 1000);
    expect(ctx().config.nodeCapacityCheckSeconds).toBe(300);
  });

  it("tells every workspace paid through the node, after 3 checks, and pairs the recovery with ok", async () => {
    const a = await subscribedTenant();
    const b = await subscribedTenant();
    const elsewhere = await subscribedTenant();
    await devWalletFactory(prisma(), ctx().config.appSecret, a.tenantId, devNode.nodePubkey);
    await devWalletFactory(prisma(), ctx().config.appSecret, b.tenantId, devNode.nodePubkey);
    // A wallet on another node that this worker cannot read: skipped, never degraded.
    await devWalletFactory(prisma(), ctx().config.appSecret, elsewhere.tenantId, `03${"ab".repeat(32)}`);
    const job = capacityJob();

    await job.run();
    expect(await capacityEvents()).toHaveLength(0);
    expect(await prisma().wallet.findUniqueOrThrow({ where: { tenantId: a.tenantId } })).toMatchObject({
      capacityStatus: "ok",
      capacityReason: null,
      capacityCheckedAt: expect.any(Date),
    });

    // The peer closes the only channel.
    devNode.setSimulatedChannels([]);
    await job.run();
    await job.run();
    expect(await capacityEvents()).toHaveLength(0);
    await job.run();
    const degraded = await capacityEvents();
    expect(degraded.map((e) => e.tenantId).sort()).toEqual([a.tenantId, b.tenantId].sort());
    for (const e of degraded) {
      expect(e.data).toEqual({
        nodeId: devNode.nodePubkey,
        status: "degraded",
        reason: "no_channels",
        activeChannels: 0,
        totalChannels: 0,
        receivingCapacitySat: 0,
        totalCapacitySat: 0,
      });
    }
    expect(await prisma().wallet.findUniqueOrThrow({ where: { tenantId: b.tenantId } })).toMatchObject({
      capacityStatus: "degraded",
      capacityReason: "no_channels",
    });
    expect(await prisma().wallet.findUniqueOrThrow({ where: { tenantId: elsewhere.tenantId } })).toMatchObject({
      capacityStatus: null,
      capacityCheckedAt: null,
    });

    // Still degraded: nothing more.
    await job.run();
    expect(await capacityEvents()).toHaveLength(2);

    // Channels come back, one of them with little inbound liquidity: ok after 3 checks.
    devNode.setSimulatedChannels([
      { capacitySat: 1_000_000, remoteBalanceSat: 400_000, active: true },
      { capacitySat: 500_000, remoteBalanceSat: 0, active: false },
    ]);
    for (let i = 0; i < 3; i += 1) await job.run();
    const all = await capacityEvents();
    expect(all).toHaveLength(4);
    for (const e of all.slice(2)) {
      expect(e.data).toEqual({
        nodeId: devNode.nodePubkey,
        status: "ok",
        reason: null,
        activeChannels: 1,
        totalChannels: 2,
        receivingCapacitySat: 400_000,
        totalCapacitySat: 1_500_000,
      });
    }
  });

  it("reports peers_offline, receiving_full and receiving_low from the channel state", async () => {
    const { tenantId } = await subscribedTenant();
    await devWalletFactory(prisma(), ctx().config.appSecret, tenantId, devNode.nodePubkey);
    const cases: [Parameters<DevLightningNode["setSimulatedChannels"]>[0], string][] = [
      [[{ capacitySat: 1_000_000, remoteBalanceSat: 500_000, active: false }], "peers_offline"],
      [[{ capacitySat: 1_000_000, remoteBalanceSat: 500, active: true }], "receiving_full"],
      [[{ capacitySat: 1_000_000, remoteBalanceSat: 50_000, active: true }], "receiving_low"],
    ];
    let t = Date.parse("2026-11-21T00:00:00Z");
    for (const [channels, reason] of cases) {
      devNode.setSimulatedChannels(channels);
      for (let i = 0; i < 3; i += 1) {
        await checkNodeCapacity({ prisma: prisma(), walletFor: async () => devNode.wallet(), now: () => new Date(t) });
        t += 5 * 60_000;
      }
      // Let the 6 h limit pass so each case announces its own event.
      t += 6 * 3600_000;
      devNode.setSimulatedChannels([{ capacitySat: 2_000_000, remoteBalanceSat: 1_000_000, active: true }]);
      for (let i = 0; i < 3; i += 1) await checkNodeCapacity({ prisma: prisma(), walletFor: async () => devNode.wallet(), now: () => new Date((t += 60_000)) });
      const events = await capacityEvents();
      expect(events.at(-2)!.data).toMatchObject({ status: "degraded", reason });
      expect(events.at(-1)!.data).toMatchObject({ status: "ok", reason: null });
    }
    expect(() => devNode.setSimulatedChannels([{ capacitySat: 10, remoteBalanceSat: 20, active: true }])).toThrow(RangeError);
  });

  it("skips a node whose reading fails or times out, without changing its state", async () => {
    const { tenantId } = await subscribedTenant();
    await devWalletFactory(prisma(), ctx().config.appSecret, tenantId, devNode.nodePubkey);
    const failing = { getCapacity: async (): Promise<CapacityReading> => Promise.reject(new Error("lnd unreachable")) };
    expect(await checkNodeCapacity({ prisma: prisma(), walletFor: async () => failing })).toEqual({ nodes: 0, events: 0 });
    const slow = { getCapacity: () => new Promise<CapacityReading>(() => {}) };
    const rules = {
      receivingFullBelowSat: 1_000,
      receivingLowBelowShare: 0.1,
      receivingLowBelowSat: 100_000,
      confirmChecks: 3,
      degradedEventIntervalMs: 6 * 3600_000,
      readingTimeoutMs: 50,
    } as const;
    expect(await checkNodeCapacity({ prisma: prisma(), walletFor: async () => slow, rules })).toEqual({ nodes: 0, events: 0 });
    // A backend without getCapacity (e.g. NWC) is not read at all.
    expect(await checkNodeCapacity({ prisma: prisma(), walletFor: async () => ({ type: "nwc" }) })).toEqual({ nodes: 0, events: 0 });
    expect((await prisma().wallet.findUniqueOrThrow({ where: { tenantId } })).capacityCheckedAt).toBeNull();
  });

  it("delivers the event to a subscribed receiver, verifiable with the SDK", async () => {
    const { tenantId } = await subscribedTenant();
    await devWalletFactory(prisma(), ctx().config.appSecret, tenantId, devNode.nodePubkey);
    const sub = await createWebhook({
      prisma: prisma(),
      appSecret: ctx().config.appSecret,
      policy,
      tenantId,
      input: { url: receiver.url(), events: ["node.capacity_changed"] },
    });
    devNode.setSimulatedChannels([{ capacitySat: 1_000_000, remoteBalanceSat: 1_000_000, active: false }]);
    for (let i = 0; i < 3; i += 1) await capacityJob().run();
    await dispatchOutbox({ prisma: prisma() });
    const sender = new WebhookSender({ prisma: prisma(), appSecret: ctx().config.appSecret, policy, ca: selfSignedCertificate().cert });
    await sender.pump();
    await sender.close();
    expect(receiver.received).toHaveLength(1);
    const verified = verifyWebhook({ secret: sub.secret, headers: receiver.received[0].headers, rawBody: receiver.received[0].rawBody });
    expect(verified.ok && verified.event.event).toBe("node.capacity_changed");
    expect(verified.ok && verified.event.data).toEqual({
      nodeId: devNode.nodePubkey,
      status: "degraded",
      reason: "peers_offline",
      activeChannels: 0,
      totalChannels: 1,
      receivingCapacitySat: 0,
      totalCapacitySat: 1_000_000,
    });
  });
});
