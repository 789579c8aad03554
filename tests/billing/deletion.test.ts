// Deleting a workspace (DELETE /api/tenants/:tenantId) and the billing page's payment check
// (POST /api/tenants/:tenantId/billing/check), through the route handlers with two real gateway
// instances: owners only, the unpaid fee invoice canceled once, the gateway URL 404 on every
// instance at once, the directory no longer listing it; a payment seen by the check reactivates
// at once and only once, whoever else (the worker) sees it too.
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as runRoute } from "@/app/api/admin/billing/run/route.ts";
import { GET as directoryRoute } from "@/app/api/directory/route.ts";
import { DELETE as deleteRoute, GET as getTenantRoute } from "@/app/api/tenants/[tenantId]/route.ts";
import { POST as checkRoute } from "@/app/api/tenants/[tenantId]/billing/check/route.ts";
import { getSignedInUserId } from "@/lib/auth/next-auth.ts";
import { BILLING_CHECKS_PER_MINUTE } from "@/lib/billing/check-payment.ts";
import { billingStartsAt, cycleFrom } from "@/lib/billing/cycle-schedule.ts";
import { runBilling } from "@/lib/billing/run-billing.ts";
import { createEndpoint } from "@/lib/endpoints/create-endpoint.ts";
import { endpointCreateSchema } from "@/lib/endpoints/schemas.ts";
import { buildServerContext, registerServerContext } from "@/lib/server-context.ts";
import { deleteTenant } from "@/lib/tenants/delete-tenant.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import { ADMIN_TOKEN, call as callRoute } from "@/tests/api/helpers.ts";
import { call, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

// The session lookup is next-auth's; replaced so that a signed-in member's role is what is tested.
vi.mock("@/lib/auth/next-auth.ts", () => ({ getSignedInUserId: vi.fn(async () => null) }));
const SESSION_COOKIE = { cookie: "authjs.session-token=opaque-session-token" };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const t = useGatewayTest({
  gateways: 2,
  routes: (origin) => {
    origin.route("/v1/free", json(200, { free: true }));
  },
});

beforeAll(() => registerServerContext(buildServerContext(t.ctx)));

let tenantId: string;
let slug: string;
let apiKey: string;
beforeEach(async () => {
  vi.mocked(getSignedInUserId).mockReset();
  ({ tenantId, slug, apiKey } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url, tags: ["deletion"] }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  await webhookSubscriptionFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, { events: ["*"] });
});

const prisma = () => t.ctx.db.prisma;
const gw = (i: number, path: string) => `${t.urls[i]}/gw/${slug}${path}`;
const params = () => ({ tenantId });
const del = (opts: { token?: string; headers?: Record<string, string>; id?: string } = {}) =>
  callRoute(deleteRoute, { method: "DELETE", path: `/tenants/${opts.id ?? tenantId}`, params: { tenantId: opts.id ?? tenantId }, ...opts });
const check = (opts: { token?: string; headers?: Record<string, string> } = { token: apiKey }) =>
  callRoute(checkRoute, { method: "POST", path: `/tenants/${tenantId}/billing/check`, params: params(), ...opts });
const listedSlugs = async () => {
  const res = await callRoute(directoryRoute, { method: "GET", path: "/directory?tag=deletion", headers: { "x-hub-client-ip": "203.0.113.9" } });
  expect(res.status).toBe(200);
  return (res.body.entries as { slug: string }[]).map((e) => e.slug);
};
const runAt = async (now: Date) => {
  const res = await callRoute(runRoute, { method: "POST", path: "/admin/billing/run", token: ADMIN_TOKEN, body: { now: now.toISOString() } });
  expect(res.status).toBe(200);
  return res.body as { closed: number; invoiced: number; paid: number; suspended: number; reactivated: number };
};

/**
 * Publishes a priced endpoint `daysAgo` days ago (trial started then) and a free one, serves
 * `calls` free calls through the first gateway and closes the first cycle: one invoice to pay.
 */
async function invoicedWorkspace({ suspend }: { suspend: boolean }) {
  const publishedAt = new Date(Date.now() - 30 * DAY - 2 * HOUR);
  const endpoint = endpointCreateSchema.parse({ method: "GET", path: "/v1/paid", pricingModel: "per_request", priceSats: 10 });
  await createEndpoint({ prisma: prisma(), store: t.ctx.store, tenantId, endpoint, now: publishedAt });
  await endpointFactory(prisma(), tenantId, { path: "/v1/free", pricingModel: null, priceSats: 0 });
  for (let i = 0; i < 3; i++) expect((await call(gw(0, "/v1/free"))).status).toBe(200);
  await t.gateways[0].flushUsage();
  const end = cycleFrom(billingStartsAt({ trialStartedAt: publishedAt, trialDays: 30 })!).periodEnd;
  const closedAt = new Date(end.getTime() + HOUR);
  expect(await runAt(closedAt)).toMatchObject({ closed: 1, invoiced: 1 });
  if (suspend) expect(await runAt(new Date(closedAt.getTime() + 8 * DAY))).toMatchObject({ suspended: 1 });
  const cycle = await prisma().billingCycle.findFirstOrThrow({ where: { tenantId } });
  return { cycle, closedAt };
}

describe("DELETE /api/tenants/:tenantId", () => {
  it("is for owners: a member gets 403, an unknown workspace 404, and nothing changes", async () => {
    const member = await prisma().user.create({ data: { email: "member@example.com" } });
    await prisma().membership.create({ data: { tenantId, userId: member.id, role: "member" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(member.id);
    const asMember = await del({ headers: SESSION_COOKIE });
    expect(asMember.status).toBe(403);
    expect(asMember.body.error).toMatchObject({ code: "forbidden" });
    expect(await prisma().tenant.findUniqueOrThrow({ where: { id: tenantId } })).toMatchObject({ deletedAt: null, status: "active" });

    // A stranger's session and an id that does not exist look the same: 404.
    const stranger = await prisma().user.create({ data: { email: "stranger@example.com" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(stranger.id);
    expect((await del({ headers: SESSION_COOKIE })).status).toBe(404);
    expect((await del({ id: "no-such-workspace", token: apiKey })).status).toBe(404);
    expect((await del()).status).toBe(401);
  });

  it("the owner deletes: the unpaid invoice is canceled once, every gateway answers 404, the directory drops it", async () => {
    const { cycle, closedAt } = await invoicedWorkspace({ suspend: false });
    expect(cycle.status).toBe("invoiced");
    // Both gateway instances hold the tenant in their caches before the deletion.
    for (const i of [0, 1]) expect((await call(gw(i, "/v1/free"))).status).toBe(200);
    expect(await listedSlugs()).toEqual([slug]);

    const owner = await prisma().membership.findFirstOrThrow({ where: { tenantId, role: "owner" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(owner.userId);
    const done = await del({ headers: SESSION_COOKIE });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ slug, deletedAt: expect.any(String), canceledCycles: 1 });

    const row = await prisma().billingCycle.findUniqueOrThrow({ where: { id: cycle.id } });
    expect(row.status).toBe("canceled");
    // The config change reached both gateways through the store: the URL is gone, not suspended.
    for (const i of [0, 1]) {
      const gone = await call(gw(i, "/v1/free"));
      expect(gone.status).toBe(404);
    }
    expect(await listedSlugs()).toEqual([]);
    const tenant = await prisma().tenant.findUniqueOrThrow({ where: { id: tenantId }, include: { wallet: true, memberships: true } });
    expect(tenant).toMatchObject({ status: "inactive", listed: false, directoryListed: false, wallet: null, memberships: [] });
    expect(await prisma().endpoint.count({ where: { tenantId, isActive: true } })).toBe(0);
    expect(await prisma().webhookSubscription.count({ where: { tenantId, isActive: true } })).toBe(0);
    expect(await prisma().apiKey.count({ where: { tenantId, revokedAt: null } })).toBe(0);
    // The revoked key and the former owner's session reach nothing any more.
    expect((await callRoute(getTenantRoute, { method: "GET", path: `/tenants/${tenantId}`, params: params(), token: apiKey })).status).toBe(401);
    expect((await del({ headers: SESSION_COOKIE })).status).toBe(404);

    // The fee stops: later passes neither suspend, nor close more cycles, nor invoice again; paying
    // the canceled invoice's string afterwards changes nothing.
    const later = await runAt(new Date(closedAt.getTime() + 90 * DAY));
    expect(later).toMatchObject({ closed: 0, invoiced: 0, suspended: 0 });
    expect(await prisma().billingCycle.count({ where: { tenantId } })).toBe(1);
    await t.devNode.pay(row.paymentRequest!);
    expect(await runAt(new Date(closedAt.getTime() + 91 * DAY))).toMatchObject({ paid: 0, reactivated: 0 });
    expect((await prisma().billingCycle.findUniqueOrThrow({ where: { id: cycle.id } })).status).toBe("canceled");
    const billingEvents = await prisma().outboxEvent.findMany({ where: { tenantId, type: { startsWith: "billing." } } });
    expect(billingEvents.map((e) => e.type)).toEqual(["billing.cycle_closed"]);
  });

  it("deletes a suspended workspace too, once however many race: the gateway's 403 becomes 404", async () => {
    const { cycle } = await invoicedWorkspace({ suspend: true });
    expect((await call(gw(1, "/v1/free"))).status).toBe(403);
    // Two deletions racing (a double click, two owners' tabs): one does it, the others find nothing left.
    const outcomes = await Promise.allSettled([0, 1, 2].map(() => deleteTenant({ prisma: prisma(), store: t.ctx.store, tenantId })));
    const done = outcomes.filter((o) => o.status === "fulfilled");
    expect(done).toHaveLength(1);
    expect(done[0]!.value).toMatchObject({ slug, canceledCycles: 1 });
    for (const o of outcomes.filter((o) => o.status === "rejected")) expect(o.reason).toMatchObject({ code: "not_found" });
    expect((await prisma().billingCycle.findUniqueOrThrow({ where: { id: cycle.id } })).status).toBe("canceled");
    expect((await call(gw(1, "/v1/free"))).status).toBe(404);
    // The API key went with it.
    expect((await del({ token: apiKey })).status).toBe(401);
  });
});

describe("POST /api/tenants/:tenantId/billing/check", () => {
  it("records the payment of the outstanding invoice at once and reactivates, once, whoever else sees it", async () => {
    const { cycle } = await invoicedWorkspace({ suspend: true });
    // Not paid yet: nothing changes, the view still offers the invoice.
    const unpaid = await check();
    expect(unpaid.status).toBe(200);
    expect(unpaid.body).toMatchObject({
      paid: 0,
      reactivated: false,
      billing: { status: "suspended", outstandingInvoice: { paymentRequest: cycle.paymentRequest } },
    });

    await t.devNode.pay(cycle.paymentRequest!);
    const worker = () => runBilling({ prisma: prisma(), store: t.ctx.store, wallet: t.devNode.wallet(), now: new Date() });
    const [a, b, pass] = await Promise.all([check(), check(), worker()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.paid + b.body.paid + pass.paid).toBe(1);
    expect(Number(a.body.reactivated) + Number(b.body.reactivated) + pass.reactivated).toBe(1);
    for (const r of [a, b]) expect(r.body.billing).toMatchObject({ status: "active", outstandingInvoice: null });
    expect(await prisma().outboxEvent.count({ where: { tenantId, type: "billing.payment_received" } })).toBe(1);
    expect((await prisma().billingCycle.findUniqueOrThrow({ where: { id: cycle.id } })).status).toBe("paid");
    // The gateway serves again at once (the reactivation was published to every instance).
    for (const i of [0, 1]) expect((await call(gw(i, "/v1/free"))).status).toBe(200);
  });

  it("is for owners, and rate limited per workspace", async () => {
    const member = await prisma().user.create({ data: { email: "member@example.com" } });
    await prisma().membership.create({ data: { tenantId, userId: member.id, role: "member" } });
    vi.mocked(getSignedInUserId).mockResolvedValue(member.id);
    expect((await check({ headers: SESSION_COOKIE })).status).toBe(403);

    for (let i = 0; i < BILLING_CHECKS_PER_MINUTE; i++) expect((await check()).status).toBe(200);
    const limited = await check();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
