// The platform fee's lifecycle end to end, with the operator's clock (POST /api/admin/billing/run):
// trial → cycle → invoice from the platform wallet → suspension (gateway 403, directory hidden) →
// payment → reactivated; a cycle without traffic; two workers racing one due cycle.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as runRoute } from "@/app/api/admin/billing/run/route.ts";
import { getBilling } from "@/lib/billing/get-billing.ts";
import { runBilling } from "@/lib/billing/run-billing.ts";
import { billingStartsAt, cycleFrom } from "@/lib/billing/cycle-schedule.ts";
import { createEndpoint } from "@/lib/endpoints/create-endpoint.ts";
import { endpointCreateSchema } from "@/lib/endpoints/schemas.ts";
import { buildServerContext, registerServerContext, type ServerContext } from "@/lib/server-context.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { ADMIN_TOKEN, call as callRoute } from "@/tests/api/helpers.ts";
import { call, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const t = useGatewayTest({
  routes: (origin) => {
    origin.route("/v1/paid", json(200, { ok: true }));
    origin.route("/v1/free", json(200, { free: true }));
  },
});

let server: ServerContext;
beforeAll(() => {
  server = buildServerContext(t.ctx);
  registerServerContext(server);
});

let tenantId: string;
let slug: string;
beforeEach(async () => {
  ({ tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await webhookSubscriptionFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, { events: ["*"] });
});

const prisma = () => t.ctx.db.prisma;
const gw = (path: string) => `${t.urls[0]}/gw/${slug}${path}`;

/** Publishes the tenant's first priced endpoint at `at` (which starts the trial) and a free one. */
async function publish(at: Date) {
  const endpoint = endpointCreateSchema.parse({ method: "GET", path: "/v1/paid", pricingModel: "per_request", priceSats: 10 });
  await createEndpoint({ prisma: prisma(), store: t.ctx.store, tenantId, endpoint, now: at });
  await endpointFactory(prisma(), tenantId, { path: "/v1/free", pricingModel: null, priceSats: 0 });
}

async function runAt(now: Date) {
  const res = await callRoute(runRoute, { method: "POST", path: "/admin/billing/run", token: ADMIN_TOKEN, body: { now: now.toISOString() } });
  expect(res.status).toBe(200);
  return res.body as { closed: number; invoiced: number; paid: number; suspended: number; reactivated: number };
}

async function events(type: string) {
  const rows = await prisma().outboxEvent.findMany({ where: { tenantId, type }, orderBy: { createdAt: "asc" } });
  return rows.map((r) => r.data as Record<string, unknown>);
}

const tenantState = () => prisma().tenant.findUniqueOrThrow({ where: { id: tenantId }, select: { status: true, directoryListed: true } });

describe("billing lifecycle", () => {
  it("walks trial → cycle → invoice → suspension → payment, each transition once", async () => {
    // Published 30 days and 2 hours ago: the trial is over and the first cycle is under way now,
    // so the calls below are its traffic.
    const publishedAt = new Date(Date.now() - 30 * DAY - 2 * HOUR);
    await publish(publishedAt);
    const cycle = cycleFrom(billingStartsAt({ trialStartedAt: publishedAt, trialDays: 30 })!);
    expect(cycle.periodStart.getTime()).toBeLessThanOrEqual(Date.now());

    // During the trial nothing is due.
    expect(await runAt(new Date(publishedAt.getTime() + 29 * DAY))).toEqual(expect.objectContaining({ closed: 0, invoiced: 0 }));

    // Traffic: 3 paid calls (10 sats each), 600 free ones, and what never counts (a challenge left unpaid).
    for (let i = 0; i < 3; i++) {
      const { authorization } = await payChallenge(t.devNode, await call(gw("/v1/paid")));
      expect((await call(gw("/v1/paid"), { authorization })).status).toBe(200);
    }
    expect((await call(gw("/v1/paid"))).status).toBe(402);
    for (let i = 0; i < 60; i++) await Promise.all(Array.from({ length: 10 }, () => call(gw("/v1/free"))));
    await t.gateways[0].flushUsage();
    expect((await tenantState()).directoryListed).toBe(true);

    // Not yet due one minute after the cycle's end (the counts' grace), then closed and invoiced.
    expect(await runAt(new Date(cycle.periodEnd.getTime() + 60_000))).toMatchObject({ closed: 0 });
    const closedAt = new Date(cycle.periodEnd.getTime() + HOUR);
    expect(await runAt(closedAt)).toEqual({ now: closedAt.toISOString(), closed: 1, invoiced: 1, paid: 0, suspended: 0, reactivated: 0 });
    const row = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
    // 603 served: 103 beyond the free 500 at 2 sats = 206 sats, capped at 5% of 30 sats earned = 1 sat.
    expect(row).toMatchObject({ requests: 603, earningsSats: 30, baseFeeSats: 5000, usageFeeSats: 1, capSats: 1, totalSats: 5001, status: "invoiced" });
    expect(row.dueAt!.getTime()).toBe(closedAt.getTime() + 7 * DAY);
    const [closed] = await events("billing.cycle_closed");
    expect(closed).toMatchObject({ cycleId: row.id, requests: 603, totalSats: 5001, capApplied: true, paymentRequest: row.paymentRequest });
    expect(closed.tiers).toEqual([
      { tier: "free", requests: 500, satsEach: 0, sats: 0 },
      { tier: "tier_2_sats", requests: 103, satsEach: 2, sats: 206 },
      { tier: "tier_1_sat", requests: 0, satsEach: 1, sats: 0 },
      { tier: "tier_half_sat", requests: 0, satsEach: 0.5, sats: 0 },
    ]);
    // The invoice is the platform's (dev node), for the fee.
    const invoice = await prisma().devNodeInvoice.findUniqueOrThrow({ where: { paymentHash: row.paymentHash! } });
    expect(Number(invoice.amountMsat)).toBe(5001 * 1000);

    // Six days later: still active. Seven: suspended, once.
    expect(await runAt(new Date(closedAt.getTime() + 6 * DAY))).toMatchObject({ suspended: 0 });
    expect((await tenantState()).status).toBe("active");
    const overdue = new Date(closedAt.getTime() + 7 * DAY + 60_000);
    expect(await runAt(overdue)).toMatchObject({ suspended: 1 });
    expect(await runAt(overdue)).toMatchObject({ closed: 0, invoiced: 0, suspended: 0 });
    expect(await tenantState()).toEqual({ status: "suspended", directoryListed: false });
    expect(await events("billing.suspended")).toEqual([
      { cycleId: row.id, amountDueSats: 5001, dueAt: row.dueAt!.toISOString(), suspendedAt: overdue.toISOString() },
    ]);

    // The gateway refuses with a reason (the config change reached it through the store).
    const refused = await call(gw("/v1/free"));
    expect(refused.status).toBe(403);
    expect(refused.json.error).toEqual({ code: "forbidden", message: expect.stringContaining("has not paid the platform fee") });

    // Paying reactivates at the next pass, once.
    await t.devNode.pay(row.paymentRequest!);
    const paidAt = new Date(overdue.getTime() + HOUR);
    expect(await runAt(paidAt)).toMatchObject({ paid: 1, reactivated: 1 });
    expect(await runAt(paidAt)).toMatchObject({ paid: 0, reactivated: 0 });
    expect(await tenantState()).toEqual({ status: "active", directoryListed: true });
    expect(await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } })).toMatchObject({ status: "paid", paidAt });
    expect(await events("billing.payment_received")).toEqual([
      { cycleId: row.id, amountSats: 5001, paymentHash: row.paymentHash, paidAt: paidAt.toISOString() },
    ]);
    expect((await call(gw("/v1/free"))).status).toBe(200);
    expect(await events("billing.cycle_closed")).toHaveLength(1);
  });

  it("closes a cycle without traffic with no invoice; a workspace that never published is never billed", async () => {
    const { tenantId: emptyId } = await tenantFactory(prisma(), t.ctx.config.appSecret, { slug: "empty-one" });
    const publishedAt = new Date(Date.now() - 2 * HOUR);
    await prisma().tenant.update({ where: { id: tenantId }, data: { trialDays: 0 } });
    await publish(publishedAt);
    const end = cycleFrom(billingStartsAt({ trialStartedAt: publishedAt, trialDays: 0 })!).periodEnd;
    // Real time is in the first cycle, but the clock goes past its end before any call was made: nothing served.
    expect(await runAt(new Date(end.getTime() + HOUR))).toMatchObject({ closed: 1, invoiced: 0 });
    const row = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
    expect(row).toMatchObject({ requests: 0, totalSats: 0, status: "no_charge", paymentRequest: null, dueAt: null });
    expect(await events("billing.cycle_closed")).toEqual([expect.objectContaining({ cycleId: row.id, totalSats: 0, paymentRequest: null, dueAt: null })]);
    // Long after: only the later cycles of the publishing tenant; never the empty workspace.
    expect(await runAt(new Date(end.getTime() + 61 * DAY))).toMatchObject({ closed: 2 });
    expect(await prisma().billingCycle.count({ where: { tenantId: emptyId } })).toBe(0);
    expect(await prisma().billingCycle.count({ where: { tenantId } })).toBe(3);
  });

  it("the install's own APIs (billingExempt: the demo, the hosted examples) are never billed, however much they serve", async () => {
    const publishedAt = new Date(Date.now() - 2 * HOUR);
    await prisma().tenant.update({ where: { id: tenantId }, data: { trialDays: 0, billingExempt: true } });
    await publish(publishedAt);
    const served = await call(gw("/v1/free"));
    expect(served.status).toBe(200);
    await t.gateways[0].flushUsage();
    const end = cycleFrom(billingStartsAt({ trialStartedAt: publishedAt, trialDays: 0 })!).periodEnd;
    expect(await runAt(new Date(end.getTime() + 61 * DAY))).toMatchObject({ closed: 0, invoiced: 0, suspended: 0 });
    expect(await prisma().billingCycle.count({ where: { tenantId } })).toBe(0);
    expect(await getBilling({ prisma: prisma(), tenantId })).toMatchObject({ status: "free", trialEndsAt: null, currentCycle: null, outstandingInvoice: null });
  });

  it("two workers racing one due cycle: one cycle, one invoice, one event of each kind", async () => {
    const publishedAt = new Date(Date.now() - 30 * DAY - 2 * HOUR);
    await publish(publishedAt);
    await Promise.all(Array.from({ length: 5 }, () => call(gw("/v1/free"))));
    await t.gateways[0].flushUsage();
    const end = cycleFrom(billingStartsAt({ trialStartedAt: publishedAt, trialDays: 30 })!).periodEnd;
    const invoicesBefore = await prisma().devNodeInvoice.count();
    const worker = (now: Date) => runBilling({ prisma: prisma(), store: t.ctx.store, wallet: t.devNode.wallet(), now });

    const closedAt = new Date(end.getTime() + HOUR);
    const closing = await Promise.all([worker(closedAt), worker(closedAt), runAt(closedAt)]);
    expect(closing.reduce((n, p) => n + p.closed, 0)).toBe(1);
    expect(closing.reduce((n, p) => n + p.invoiced, 0)).toBe(1);
    expect(await prisma().devNodeInvoice.count()).toBe(invoicesBefore + 1);
    expect(await events("billing.cycle_closed")).toHaveLength(1);
    const row = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
    expect(row).toMatchObject({ requests: 5, totalSats: 5000, status: "invoiced" });

    const overdue = new Date(closedAt.getTime() + 8 * DAY);
    const suspending = await Promise.all([worker(overdue), worker(overdue)]);
    expect(suspending.reduce((n, p) => n + p.suspended, 0)).toBe(1);
    expect(await events("billing.suspended")).toHaveLength(1);

    await t.devNode.pay(row.paymentRequest!);
    const paying = await Promise.all([worker(overdue), worker(overdue)]);
    expect(paying.reduce((n, p) => n + p.paid, 0)).toBe(1);
    expect(paying.reduce((n, p) => n + p.reactivated, 0)).toBe(1);
    expect(await events("billing.payment_received")).toHaveLength(1);
    expect((await tenantState()).status).toBe("active");
  });

  it("refuses a clock without a zone and hides the route without the admin token", async () => {
    const bad = await callRoute(runRoute, { method: "POST", path: "/admin/billing/run", token: ADMIN_TOKEN, body: { now: "2026-11-26T10:00:00" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("now");
    expect((await callRoute(runRoute, { method: "POST", path: "/admin/billing/run", body: { now: new Date().toISOString() } })).status).toBe(401);
  });

  it("refuses to move the clock in production", async () => {
    registerServerContext({ ...server, config: { ...server.config, isProduction: true } });
    try {
      const res = await callRoute(runRoute, { method: "POST", path: "/admin/billing/run", token: ADMIN_TOKEN, body: { now: new Date().toISOString() } });
      expect(res.status).toBe(403);
    } finally {
      registerServerContext(server);
    }
  });
});
