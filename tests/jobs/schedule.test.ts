// The worker's real job list against real wallet backends (faithful local fakes): settlement
// polling and node capacity work for LND too, not only the dev node.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sealSecret } from "@/lib/crypto/secret-box.ts";
import { FakeLnd, LND_RECOMMENDED_PERMISSIONS } from "@/tests/fakes/lightning/lnd.ts";
import { LOOPBACK_WALLET_POLICY, LOOPBACK_WALLET_TARGETS } from "@/tests/fakes/lightning/loopback-policy.ts";
import { LndRestBackend } from "@/lib/lightning/lnd-rest.ts";
import { lndCredentialsSchema } from "@/lib/lightning/credentials.ts";
import { platformJobs } from "@/lib/jobs/schedule.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { useTestContext } from "@/tests/helpers/context.ts";

const ctx = useTestContext({ WALLET_ALLOWED_TARGETS: LOOPBACK_WALLET_TARGETS });
let lnd: FakeLnd;
beforeAll(async () => {
  lnd = await FakeLnd.start();
});
afterAll(async () => {
  await lnd?.close();
});

async function lndTenant() {
  const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
  await webhookSubscriptionFactory(ctx().db.prisma, ctx().config.appSecret, tenantId);
  const credentials = { restUrl: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS) };
  await ctx().db.prisma.wallet.create({
    data: { tenantId, type: "lnd", nodePubkey: lnd.node.nodePubkey, credentialsEnc: sealSecret(ctx().config.appSecret, JSON.stringify(credentials)) },
  });
  return { tenantId, credentials };
}

/** An unpaid per_request invoice of `amountSats`, made on the tenant's LND node and recorded as ours. */
async function pendingInvoice(tenantId: string, credentials: Awaited<ReturnType<typeof lndTenant>>["credentials"], amountSats: number) {
  const endpoint = await endpointFactory(ctx().db.prisma, tenantId, { pricingModel: "per_request", priceSats: amountSats });
  const backend = new LndRestBackend({ credentials: lndCredentialsSchema.parse({ type: "lnd", ...credentials }), targetPolicy: LOOPBACK_WALLET_POLICY });
  const invoice = await backend.createInvoice({ amountSats, description: "job test", expirySeconds: 600 });
  await backend.close?.();
  await ctx().db.prisma.invoice.create({
    data: {
      tenantId,
      endpointId: endpoint.id,
      paymentHash: invoice.paymentHash,
      paymentRequest: invoice.paymentRequest,
      amountSats,
      purpose: "per_request",
      expiresAt: invoice.expiresAt,
    },
  });
  return invoice;
}

const job = (name: string) =>
  platformJobs({ prisma: ctx().db.prisma, store: ctx().store, devNode: null, log: createLogger("silent"), config: ctx().config }).find((j) => j.name === name)!;

describe("worker jobs with an LND wallet", () => {
  it("records a settlement the LND node reports", async () => {
    const { tenantId, credentials } = await lndTenant();
    const invoice = await pendingInvoice(tenantId, credentials, 4);
    lnd.markPaid(invoice.paymentHash);
    const settlements = job("invoice-settlements");
    await settlements.run();
    await settlements.close?.();
    expect((await ctx().db.prisma.invoice.findUniqueOrThrow({ where: { paymentHash: invoice.paymentHash } })).status).toBe("settled");
    expect(await ctx().db.prisma.outboxEvent.count({ where: { tenantId, type: "invoice.settled" } })).toBe(1);
  });

  it("keeps one backend per tenant across settlement passes, closed with the job", async () => {
    const { tenantId, credentials } = await lndTenant();
    await pendingInvoice(tenantId, credentials, 2);
    const lookups = () => lnd.requests.filter((r) => r.path.startsWith("/v1/invoice/")).length;
    const settlements = job("invoice-settlements");
    const connectionsBefore = lnd.connectionsOpened;
    const lookupsBefore = lookups();
    for (let i = 0; i < 6; i++) await settlements.run();
    // Six passes asked the wallet six times through one live backend: its keep-alive pool (at most
    // 4 connections), where a backend per pass opened a connection per pass.
    expect(lookups() - lookupsBefore).toBe(6);
    expect(lnd.connectionsOpened - connectionsBefore).toBeLessThanOrEqual(2);
    expect(lnd.connectionsOpen).toBeGreaterThan(0);
    // Closing the job closes its backends and so their connections (kept alive 30 s otherwise).
    await settlements.close?.();
    await vi.waitFor(() => expect(lnd.connectionsOpen).toBe(0), { timeout: 2_000 });
  });

  it("reports a node without channels as degraded (no_channels) once the state persists", async () => {
    const { tenantId } = await lndTenant();
    lnd.channels = [];
    const capacity = job("node-capacity");
    for (let i = 0; i < 3; i++) await capacity.run();
    const events = await ctx().db.prisma.outboxEvent.findMany({ where: { tenantId, type: "node.capacity_changed" } });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ nodeId: lnd.node.nodePubkey, status: "degraded", reason: "no_channels", activeChannels: 0, totalChannels: 0 });
  });

  it("bills at the real time through the platform's own LND wallet (PLATFORM_WALLET_*), once per pass's transition", async () => {
    const platformCredentials = { restUrl: lnd.url, macaroonHex: lnd.bakeMacaroon(LND_RECOMMENDED_PERMISSIONS) };
    const config = { ...ctx().config, platformWallet: { type: "lnd" as const, credentials: platformCredentials } };
    const billing = platformJobs({ prisma: ctx().db.prisma, store: ctx().store, devNode: null, log: createLogger("silent"), config }).find(
      (j) => j.name === "billing",
    )!;
    expect(billing.singleton).toBe(true);
    // Published 31 days ago without a trial: the first cycle ended a day ago.
    const { tenantId } = await tenantFactory(ctx().db.prisma, ctx().config.appSecret);
    const publishedAt = new Date(Math.floor((Date.now() - 31 * 86_400_000) / 3_600_000) * 3_600_000);
    await ctx().db.prisma.tenant.update({ where: { id: tenantId }, data: { trialDays: 0, trialStartedAt: publishedAt } });
    await ctx().db.prisma.billableUsage.create({ data: { tenantId, hour: publishedAt, servedRequests: 700 } });

    const addInvoices = () => lnd.requests.filter((r) => r.path === "/v1/invoices").length;
    const before = addInvoices();
    await billing.run();
    await billing.run();
    const cycle = await ctx().db.prisma.billingCycle.findFirstOrThrow({ where: { tenantId } });
    // 200 requests beyond the free 500, capped at 5% of nothing earned: the base alone.
    expect(cycle).toMatchObject({ requests: 700, totalSats: 5_000, status: "invoiced" });
    expect(addInvoices() - before).toBe(1);

    lnd.markPaid(cycle.paymentHash!);
    await billing.run();
    await billing.run();
    expect(await ctx().db.prisma.billingCycle.findFirstOrThrow({ where: { tenantId } })).toMatchObject({ status: "paid" });
    await billing.close?.();
  });
});
