// GET /api/tenants/:tenantId/billing and …/billing/cycles: the provider's view of its platform fee
// through free → trial → active (cycle under way, projected fee) → invoiced → suspended → paid.
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getBillingRoute } from "@/app/api/tenants/[tenantId]/billing/route.ts";
import { GET as getCyclesRoute } from "@/app/api/tenants/[tenantId]/billing/cycles/route.ts";
import { billingStartsAt, cycleFrom } from "@/lib/billing/cycle-schedule.ts";
import { getBilling, listCycles } from "@/lib/billing/get-billing.ts";
import { runBilling } from "@/lib/billing/run-billing.ts";
import { billingResponseSchema, cycleListResponseSchema } from "@/lib/billing/schemas.ts";
import { DevLightningNode } from "@/lib/lightning/index.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const api = useApiContext();
let tenantId: string;
let key: string;
const prisma = () => api.test().db.prisma;

beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
});

/** The first priced endpoint published at `at`: the trial starts then. */
async function publishAt(at: Date) {
  await prisma().tenant.update({ where: { id: tenantId }, data: { trialStartedAt: at } });
}

/** `served` requests in the hour of `at`, and one settled invoice of `earned` sats then. */
async function traffic(at: Date, served: number, earned: number) {
  const hour = new Date(Math.floor(at.getTime() / HOUR) * HOUR);
  await prisma().billableUsage.create({ data: { tenantId, hour, servedRequests: served } });
  await prisma().invoice.create({
    data: {
      tenantId,
      paymentHash: hour.getTime().toString(16).padStart(64, "0"),
      paymentRequest: "lnbcrt...",
      amountSats: earned,
      purpose: "per_request",
      status: "settled",
      expiresAt: at,
      settledAt: at,
    },
  });
}

const view = async (now: Date) => billingResponseSchema.parse(await getBilling({ prisma: prisma(), tenantId, now }));
const cycles = async (now: Date, limit = 50, before?: string) =>
  cycleListResponseSchema.parse(await listCycles({ prisma: prisma(), tenantId, now, limit, before }));

describe("billing views", () => {
  it("follow a workspace from free through trial, a cycle, its invoice, suspension and payment", async () => {
    const devNode = new DevLightningNode({ prisma: prisma(), appSecret: api.test().config.appSecret });
    const now0 = new Date("2026-03-01T10:20:00Z");
    expect(await view(now0)).toEqual({ status: "free", trialEndsAt: null, currentCycle: null, outstandingInvoice: null });
    expect(await cycles(now0)).toEqual({ cycles: [], nextCursor: null });

    await publishAt(now0);
    const trialEndsAt = "2026-03-31T10:00:00.000Z"; // 30 days from the hour of publication
    expect(await view(new Date("2026-03-10T00:00:00Z"))).toEqual({ status: "trial", trialEndsAt, currentCycle: null, outstandingInvoice: null });

    const cycle = cycleFrom(billingStartsAt({ trialStartedAt: now0, trialDays: 30 })!);
    await traffic(new Date("2026-04-02T12:30:00Z"), 1_500, 100_000);
    const during = new Date("2026-04-05T00:00:00Z");
    // 1,000 billable requests at 2 sats, within the 5,000-sat cap of 100,000 sats earned.
    expect(await view(during)).toEqual({
      status: "active",
      trialEndsAt,
      currentCycle: { startsAt: trialEndsAt, endsAt: "2026-04-30T10:00:00.000Z", requests: 1_500, earningsSats: 100_000, projectedFeeSats: 7_000 },
      outstandingInvoice: null,
    });
    expect((await cycles(during)).cycles).toEqual([
      {
        startsAt: trialEndsAt,
        endsAt: "2026-04-30T10:00:00.000Z",
        requests: 1_500,
        earningsSats: 100_000,
        baseFeeSats: 5_000,
        usageFeeSats: 2_000,
        amountSats: 7_000,
        status: "open",
        paymentRequest: null,
      },
    ]);

    const closedAt = new Date(cycle.periodEnd.getTime() + HOUR);
    await runBilling({ prisma: prisma(), store: api.test().store, wallet: devNode.wallet(), now: closedAt });
    const invoiced = await view(closedAt);
    expect(invoiced.currentCycle).toMatchObject({ startsAt: "2026-04-30T10:00:00.000Z", requests: 0, projectedFeeSats: 0 });
    expect(invoiced.outstandingInvoice).toEqual({
      amountSats: 7_000,
      paymentRequest: expect.stringMatching(/^lnbcrt/),
      dueAt: new Date(closedAt.getTime() + 7 * DAY).toISOString(),
    });
    const list = await cycles(closedAt);
    expect(list.cycles.map((c) => [c.startsAt, c.status, c.amountSats])).toEqual([
      ["2026-04-30T10:00:00.000Z", "open", 0],
      [trialEndsAt, "invoiced", 7_000],
    ]);
    expect(list.cycles[1].paymentRequest).toBe(invoiced.outstandingInvoice!.paymentRequest);

    const overdue = new Date(closedAt.getTime() + 8 * DAY);
    await runBilling({ prisma: prisma(), store: api.test().store, wallet: devNode.wallet(), now: overdue });
    expect((await view(overdue)).status).toBe("suspended");

    await devNode.pay(invoiced.outstandingInvoice!.paymentRequest);
    await runBilling({ prisma: prisma(), store: api.test().store, wallet: devNode.wallet(), now: overdue });
    expect(await view(overdue)).toMatchObject({ status: "active", outstandingInvoice: null });
    expect((await cycles(overdue)).cycles[1]).toMatchObject({ status: "paid" });
  });

  it("stays suspended until every overdue invoice is paid; an inactive workspace is never suspended", async () => {
    const devNode = new DevLightningNode({ prisma: prisma(), appSecret: api.test().config.appSecret });
    const run = (now: Date) => runBilling({ prisma: prisma(), store: api.test().store, wallet: devNode.wallet(), now });
    await prisma().tenant.update({ where: { id: tenantId }, data: { trialDays: 0 } });
    const start = new Date("2026-01-01T00:00:00Z");
    await publishAt(start);
    await traffic(new Date(start.getTime() + DAY), 10, 0);
    await traffic(new Date(start.getTime() + 31 * DAY), 10, 0);
    // Both cycles closed and invoiced late at once, then both overdue.
    const late = new Date(start.getTime() + 61 * DAY);
    expect(await run(late)).toMatchObject({ closed: 2, invoiced: 2 });
    expect(await run(new Date(late.getTime() + 8 * DAY))).toMatchObject({ suspended: 2 });
    const [first, second] = await prisma().billingCycle.findMany({ where: { tenantId }, orderBy: { periodStart: "asc" } });
    await devNode.pay(first.paymentRequest!);
    expect(await run(new Date(late.getTime() + 9 * DAY))).toMatchObject({ paid: 1, reactivated: 0 });
    expect((await view(new Date(late.getTime() + 9 * DAY))).status).toBe("suspended");
    await devNode.pay(second.paymentRequest!);
    expect(await run(new Date(late.getTime() + 9 * DAY))).toMatchObject({ paid: 1, reactivated: 1 });
    expect((await view(new Date(late.getTime() + 9 * DAY))).status).toBe("active");

    // An inactive workspace with an overdue invoice stays inactive and gets no billing.suspended.
    const other = await seedTenant(api.test(), "quiet", "quiet@example.com");
    await prisma().tenant.update({ where: { id: other.tenantId }, data: { status: "inactive", trialDays: 0, trialStartedAt: start } });
    await prisma().billableUsage.create({ data: { tenantId: other.tenantId, hour: start, servedRequests: 1 } });
    await prisma().webhookSubscription.create({ data: { tenantId: other.tenantId, url: "https://receiver.invalid/hooks", events: ["*"], secretEnc: "x" } });
    const after = new Date(late.getTime() + 30 * DAY);
    await run(after);
    expect(await run(new Date(after.getTime() + 8 * DAY))).toMatchObject({ suspended: 0 });
    expect(await prisma().billingCycle.count({ where: { tenantId: other.tenantId, suspendedAt: { not: null } } })).toBe(1);
    expect((await prisma().tenant.findUniqueOrThrow({ where: { id: other.tenantId } })).status).toBe("inactive");
    expect(await prisma().outboxEvent.count({ where: { tenantId: other.tenantId, type: "billing.suspended" } })).toBe(0);
    // Its three cycles closed: one invoiced, two without traffic.
    expect(await prisma().outboxEvent.count({ where: { tenantId: other.tenantId, type: "billing.cycle_closed" } })).toBe(3);
  });

  it("renews an invoice the wallet let expire, once, keeping its amount and due date", async () => {
    const devNode = new DevLightningNode({ prisma: prisma(), appSecret: api.test().config.appSecret });
    const expired = new Set<string>();
    // The dev node's invoices last 60 days of real time: this wallet says the first one expired.
    const wallet = () => {
      const inner = devNode.wallet();
      return {
        ...inner,
        lookupInvoice: async (hash: string) =>
          expired.has(hash) ? { ...(await inner.lookupInvoice(hash))!, state: "expired" as const } : inner.lookupInvoice(hash),
      };
    };
    const run = (now: Date) => runBilling({ prisma: prisma(), store: api.test().store, wallet: wallet(), now });
    await prisma().tenant.update({ where: { id: tenantId }, data: { trialDays: 0 } });
    const start = new Date("2026-01-01T00:00:00Z");
    await publishAt(start);
    await traffic(new Date(start.getTime() + DAY), 10, 0);
    const closedAt = new Date(start.getTime() + 31 * DAY);
    await run(closedAt);
    const first = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
    expired.add(first.paymentHash!);
    const invoicesBefore = await prisma().devNodeInvoice.count();
    await Promise.all([run(closedAt), run(closedAt)]);
    const renewed = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
    expect(await prisma().devNodeInvoice.count()).toBe(invoicesBefore + 1);
    expect(renewed.paymentHash).not.toBe(first.paymentHash);
    expect(renewed).toMatchObject({ status: "invoiced", totalSats: first.totalSats, dueAt: first.dueAt, invoiceClaimedUntil: null });
    expect((await view(closedAt)).outstandingInvoice?.paymentRequest).toBe(renewed.paymentRequest);
    await devNode.pay(renewed.paymentRequest!);
    expect(await run(closedAt)).toMatchObject({ paid: 1 });
  });

  it("pages cycles newest first with the under-way cycle on the first page", async () => {
    await prisma().tenant.update({ where: { id: tenantId }, data: { trialDays: 0 } });
    const start = new Date("2026-01-01T00:00:00Z");
    await publishAt(start);
    // Three closed cycles without traffic, the fourth under way.
    await runBilling({ prisma: prisma(), store: api.test().store, wallet: null, now: new Date(start.getTime() + 91 * DAY) });
    const now = new Date(start.getTime() + 91 * DAY);
    const first = await cycles(now, 2);
    expect(first.cycles.map((c) => c.status)).toEqual(["open", "no_charge"]);
    expect(first.nextCursor).toBe(first.cycles[1].startsAt);
    const second = await cycles(now, 2, first.nextCursor!);
    expect(second.cycles.map((c) => c.startsAt)).toEqual([new Date(start.getTime() + 30 * DAY).toISOString(), start.toISOString()]);
    expect(second.nextCursor).toBeNull();
  });
});

describe("GET /api/tenants/:tenantId/billing(/cycles)", () => {
  const get = (handler: typeof getBillingRoute, path: string, as = { tenantId, key }) =>
    call(handler, { method: "GET", path: `/tenants/${as.tenantId}${path}`, params: { tenantId: as.tenantId }, token: as.key });

  it("answers the workspace's own billing, validates paging and keeps other workspaces out", async () => {
    await publishAt(new Date(Date.now() - HOUR));
    const res = await get(getBillingRoute, "/billing");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "trial", currentCycle: null, outstandingInvoice: null });
    const list = await get(getCyclesRoute, "/billing/cycles?limit=10");
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ cycles: [], nextCursor: null });
    for (const query of ["?limit=0", "?limit=101", "?before=yesterday"]) {
      const bad = await get(getCyclesRoute, `/billing/cycles${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/limit|before/);
    }
    const other = await seedTenant(api.test(), "other", "other@example.com");
    expect((await get(getBillingRoute, "/billing", { tenantId, key: other.apiKey })).status).toBe(404);
  });
});
