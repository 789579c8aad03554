// The worker learns of settlement from the wallet: exactly one invoice.settled per invoice, even
// when a proof at the gateway and the wallet poll both see it, and lapsed invoices expire.
import { beforeAll, describe, expect, it } from "vitest";
import { walletBackendFor } from "@/lib/lightning/index.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { acquireLease, leaseOwnerPid, startWorker } from "@/lib/jobs/worker.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { pollInvoiceSettlements } from "@/lib/payments/record-settlement.ts";
import { claimProof } from "@/lib/payments/redeem-proof.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const ctx = useTestContext();
let devNode: DevLightningNode;
beforeAll(() => {
  devNode = new DevLightningNode({ prisma: ctx().db.prisma, appSecret: ctx().config.appSecret });
});

async function pendingInvoice(amountSats = 5) {
  const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
  await webhookSubscriptionFactory(ctx().db.prisma, ctx().config.appSecret, tenantId);
  await devWalletFactory(ctx().db.prisma, ctx().config.appSecret, tenantId, devNode.nodePubkey);
  const endpoint = await endpointFactory(ctx().db.prisma, tenantId, { pricingModel: "per_request", priceSats: amountSats });
  const created = await devNode.createInvoice({ amountSats, description: "test", expirySeconds: 600 });
  await ctx().db.prisma.invoice.create({
    data: {
      tenantId,
      endpointId: endpoint.id,
      paymentHash: created.paymentHash,
      paymentRequest: created.paymentRequest,
      amountSats,
      purpose: "per_request",
      expiresAt: created.expiresAt,
    },
  });
  return { tenantId, endpointId: endpoint.id, ...created };
}

const poll = async () =>
  (await pollInvoiceSettlements({ prisma: ctx().db.prisma, walletFor: async () => walletBackendFor({ type: "dev", devNode }) })).recorded;

describe("invoice settlement polling", () => {
  it("records a paid invoice once with an invoice.settled event carrying its details", async () => {
    const invoice = await pendingInvoice(5);
    expect(await poll()).toBe(0);
    await devNode.pay(invoice.paymentRequest);
    expect(await poll()).toBe(1);
    expect(await poll()).toBe(0);
    const events = await ctx().db.prisma.outboxEvent.findMany({ where: { type: "invoice.settled" } });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ paymentHash: invoice.paymentHash, amountSats: 5, purpose: "per_request", source: "wallet" });
    expect((await ctx().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash: invoice.paymentHash } })).status).toBe("settled");
  });

  it("does not emit a second event when the gateway saw the proof first", async () => {
    const invoice = await pendingInvoice(3);
    await devNode.pay(invoice.paymentRequest);
    const claim = await claimProof({
      prisma: ctx().db.prisma,
      paymentHash: invoice.paymentHash,
      tenantId: invoice.tenantId,
      endpointId: invoice.endpointId,
      requestId: "r1",
      leaseMs: 1000,
    });
    expect(claim).toBe("claimed");
    expect(await poll()).toBe(0);
    expect(await ctx().db.prisma.outboxEvent.count()).toBe(1);
  });

  it("marks invoices expired a minute after their expiry, by the database's clock", async () => {
    const invoice = await pendingInvoice();
    const status = async () => (await ctx().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash: invoice.paymentHash } })).status;
    const expireIn = (offset: string) =>
      ctx().db.sql.query(`UPDATE "Invoice" SET "expiresAt" = now() + $2::interval WHERE "paymentHash" = $1`, [invoice.paymentHash, offset]);
    await expireIn("-59 seconds");
    expect(await pollInvoiceSettlements({ prisma: ctx().db.prisma, walletFor: async () => null })).toMatchObject({ recorded: 0, expired: 0 });
    expect(await status()).toBe("pending");
    await expireIn("-61 seconds");
    expect(await pollInvoiceSettlements({ prisma: ctx().db.prisma, walletFor: async () => null })).toMatchObject({ recorded: 0, expired: 1 });
    expect(await status()).toBe("expired");
  });
});

describe("job leases", () => {
  it("lets exactly one of several workers run a singleton job per interval", async () => {
    const results = await Promise.all(["w1", "w2", "w3", "w4"].map((owner) => acquireLease(ctx().db.prisma, "job", owner, 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("names the holding process in the lease (host:pid:random), so an operator can tell which worker runs a job", async () => {
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    const worker = startWorker({
      prisma: ctx().db.prisma,
      jobs: [{ name: "owned-job", intervalMs: 60_000, singleton: true, run: async () => ran() }],
      log: createLogger("silent"),
    });
    try {
      await done;
      const lease = await ctx().db.prisma.jobLease.findUniqueOrThrow({ where: { name: "owned-job" } });
      expect(lease.owner).toMatch(/^.+:\d+:[0-9a-f]{8}$/);
      expect(leaseOwnerPid(lease.owner)).toBe(process.pid);
      expect(leaseOwnerPid("a-uuid-owner-of-an-older-worker")).toBeNull();
    } finally {
      await worker.stop();
    }
  });
});
