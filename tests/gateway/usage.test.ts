// Usage counting: what each kind of call adds to UsageCounter, several gateway instances adding
// into one row, and the analytics API reading counts and earnings (from settled invoices) back.
import { beforeEach, describe, expect, it } from "vitest";
import { getAnalytics } from "@/lib/analytics/get-analytics.ts";
import { measureCycle } from "@/lib/billing/measure-cycle.ts";
import { analyticsQuerySchema } from "@/lib/analytics/schemas.ts";
import { devWalletFactory, endpointFactory, tenantFactory } from "@/prisma/factories.ts";
import { call, header, payChallenge, useGatewayTest } from "@/tests/helpers/gateway.ts";
import { json } from "@/tests/helpers/origin.ts";

let tenantId: string;
let slug: string;
const ids: Record<string, string> = {};
let failNext = 0;

const t = useGatewayTest({
  gateways: 2,
  gatewayOptions: { limits: { usageFlushMs: 3_600_000 } },
  routes: (origin) => {
    origin.route("/v1/paid", json(200, { ok: true }));
    origin.route("/v1/free", json(200, { free: true }));
    origin.route("/v1/missing", json(404, { error: "no such thing" }));
    origin.route("/v1/flaky", (req, res) => {
      if (failNext > 0) {
        failNext -= 1;
        return json(503, { error: "try later" })(req, res);
      }
      return json(200, { ok: true })(req, res);
    });
  },
});

beforeEach(async () => {
  ({ tenantId, slug } = await tenantFactory(t.ctx.db.prisma, t.ctx.config.appSecret, { originUrl: t.origin.url }));
  await devWalletFactory(t.ctx.db.prisma, t.ctx.config.appSecret, tenantId, t.devNode.nodePubkey);
  ids.paid = (await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/paid", pricingModel: "per_request", priceSats: 5 })).id;
  ids.free = (await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/free", pricingModel: null, priceSats: 0 })).id;
  ids.missing = (await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/missing", pricingModel: "per_request", priceSats: 2 })).id;
  ids.flaky = (await endpointFactory(t.ctx.db.prisma, tenantId, { path: "/v1/flaky", pricingModel: "per_request", priceSats: 3 })).id;
  failNext = 0;
});

const gw = (i: number, path: string) => `${t.urls[i]}/gw/${slug}${path}`;

async function counters(endpointId: string) {
  await Promise.all(t.gateways.map((g) => g.flushUsage()));
  const rows = await t.ctx.db.prisma.usageCounter.findMany({ where: { endpointId } });
  const sum = { requests: 0, paidRequests: 0, servedRequests: 0, refunds: 0, upstreamErrors: 0 };
  for (const row of rows) for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += row[key];
  return { rows: rows.length, ...sum };
}

describe("usage counters", () => {
  it("counts the 402, the paid call and the spent proof's second 402; one row per endpoint and hour", async () => {
    const challenge = await call(gw(0, "/v1/paid"));
    const { authorization } = await payChallenge(t.devNode, challenge);
    expect((await call(gw(1, "/v1/paid"), { authorization })).status).toBe(200);
    expect((await call(gw(0, "/v1/paid"), { authorization })).status).toBe(402);
    expect(await counters(ids.paid)).toEqual({ rows: 1, requests: 3, paidRequests: 1, servedRequests: 1, refunds: 0, upstreamErrors: 0 });
  });

  it("counts free calls as served, never as paid", async () => {
    for (let i = 0; i < 4; i++) expect((await call(gw(i % 2, "/v1/free"))).status).toBe(200);
    expect(await counters(ids.free)).toEqual({ rows: 1, requests: 4, paidRequests: 0, servedRequests: 4, refunds: 0, upstreamErrors: 0 });
  });

  it("counts an origin 4xx as paid (it stays charged) but not served", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(gw(0, "/v1/missing")));
    const res = await call(gw(0, "/v1/missing"), { authorization });
    expect(res.status).toBe(404);
    expect(header(res, "x-hub-payment-code")).toBe("upstream_rejected");
    expect(await counters(ids.missing)).toMatchObject({ requests: 2, paidRequests: 1, servedRequests: 0, refunds: 0 });
  });

  it("counts a retryable origin failure as a refund and an upstream error, then the free retry as paid", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(gw(0, "/v1/flaky")));
    failNext = 1;
    const failed = await call(gw(0, "/v1/flaky"), { authorization });
    expect(failed.status).toBe(503);
    expect(header(failed, "x-hub-payment")).toBe("reverted");
    expect((await call(gw(1, "/v1/flaky"), { authorization })).status).toBe(200);
    expect(await counters(ids.flaky)).toEqual({ rows: 1, requests: 3, paidRequests: 1, servedRequests: 1, refunds: 1, upstreamErrors: 1 });
  });

  it("adds concurrent calls on two instances into the same row without losing any", async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => call(gw(i % 2, "/v1/free"))));
    await Promise.all(Array.from({ length: 10 }, (_, i) => call(gw(i % 2, "/v1/free"))));
    expect(await counters(ids.free)).toMatchObject({ rows: 1, requests: 50, servedRequests: 50 });
  });

  it("skips counts of an endpoint deleted before the flush and keeps the rest of the batch", async () => {
    await call(gw(0, "/v1/free"));
    await call(gw(0, "/v1/paid"));
    await t.ctx.db.prisma.endpoint.delete({ where: { id: ids.paid } });
    expect(await counters(ids.free)).toMatchObject({ requests: 1 });
    expect(await t.ctx.db.prisma.usageCounter.count({ where: { endpointId: ids.paid } })).toBe(0);
  });
});

describe("billable usage (the platform fee's count)", () => {
  const HOUR = 3_600_000;
  const thisHour = () => new Date(Math.floor(Date.now() / HOUR) * HOUR);

  // The hour before and after too, so a test that crosses an hour boundary still sees every call.
  async function measured(periodStart = new Date(thisHour().getTime() - HOUR), periodEnd = new Date(thisHour().getTime() + 2 * HOUR)) {
    await Promise.all(t.gateways.map((g) => g.flushUsage()));
    return measureCycle({ prisma: t.ctx.db.prisma, tenantId, periodStart, periodEnd });
  }

  it("counts only served calls, across instances: not challenges, origin errors, refunds or spent proofs", async () => {
    const challenge = await call(gw(0, "/v1/paid")); // 402: not served
    const { authorization } = await payChallenge(t.devNode, challenge);
    expect((await call(gw(1, "/v1/paid"), { authorization })).status).toBe(200); // served, paid
    expect((await call(gw(0, "/v1/paid"), { authorization })).status).toBe(402); // spent proof
    const rejected = await payChallenge(t.devNode, await call(gw(0, "/v1/missing")));
    expect((await call(gw(1, "/v1/missing"), { authorization: rejected.authorization })).status).toBe(404); // charged, not served
    const flaky = await payChallenge(t.devNode, await call(gw(1, "/v1/flaky")));
    failNext = 1;
    expect((await call(gw(0, "/v1/flaky"), { authorization: flaky.authorization })).status).toBe(503); // refunded
    expect((await call(gw(1, "/v1/flaky"), { authorization: flaky.authorization })).status).toBe(200); // free retry, served
    await Promise.all(Array.from({ length: 30 }, (_, i) => call(gw(i % 2, "/v1/free")))); // served, free
    // 1 + 1 + 30 served; earnings: the three settled invoices (5 + 2 + 3 sats).
    expect(await measured()).toEqual({ requests: 32, earningsSats: 10 });
  });

  it("keeps what a deleted endpoint served, and counts a cycle's hours only", async () => {
    const hour = thisHour();
    await call(gw(0, "/v1/free"));
    await Promise.all(t.gateways.map((g) => g.flushUsage()));
    await call(gw(1, "/v1/free"));
    await t.ctx.db.prisma.endpoint.delete({ where: { id: ids.free } });
    expect(await measured()).toEqual({ requests: 2, earningsSats: 0 });
    // The hour belongs to the cycle its start falls in: the one before or after sees none of it.
    if (thisHour().getTime() !== hour.getTime()) return; // the calls straddled an hour: the split below is not known
    expect(await measured(hour, new Date(hour.getTime() + HOUR))).toEqual({ requests: 2, earningsSats: 0 });
    expect(await measured(new Date(hour.getTime() - HOUR), hour)).toEqual({ requests: 0, earningsSats: 0 });
    expect(await measured(new Date(hour.getTime() + HOUR), new Date(hour.getTime() + 2 * HOUR))).toEqual({ requests: 0, earningsSats: 0 });
  });

  it("leaves the platform's billing invoices out of the earnings", async () => {
    await t.ctx.db.prisma.invoice.create({
      data: {
        tenantId,
        paymentHash: "b".repeat(64),
        paymentRequest: "lnbcrt1",
        amountSats: 7_000,
        purpose: "billing",
        status: "settled",
        expiresAt: new Date(Date.now() + HOUR),
        settledAt: new Date(),
      },
    });
    await call(gw(0, "/v1/free"));
    expect(await measured()).toEqual({ requests: 1, earningsSats: 0 });
  });
});

describe("analytics", () => {
  it("reads counts per bucket and earnings from settled invoices, per endpoint and in total", async () => {
    const { authorization } = await payChallenge(t.devNode, await call(gw(0, "/v1/paid")));
    expect((await call(gw(0, "/v1/paid"), { authorization })).status).toBe(200);
    await call(gw(1, "/v1/free"));
    await Promise.all(t.gateways.map((g) => g.flushUsage()));

    const analytics = await getAnalytics({ prisma: t.ctx.db.prisma, tenantId, query: analyticsQuerySchema.parse({}) });
    expect(analytics.series).toHaveLength(30);
    expect(analytics.totals).toEqual({ requests: 3, paidRequests: 1, servedRequests: 2, refunds: 0, upstreamErrors: 0, earningsSats: 5 });
    const today = analytics.series.at(-1)!;
    expect(today).toMatchObject({ requests: 3, earningsSats: 5 });
    expect(analytics.series.slice(0, -1).every((b) => b.requests === 0 && b.earningsSats === 0)).toBe(true);
    expect(analytics.endpoints[0]).toMatchObject({ endpointId: ids.paid, path: "/v1/paid", earningsSats: 5, requests: 2, paidRequests: 1 });
    // Every endpoint is listed, used or not, so the dashboard can show zeros.
    expect(analytics.endpoints.map((e) => e.endpointId).sort()).toEqual(Object.values(ids).sort());

    const week = await getAnalytics({ prisma: t.ctx.db.prisma, tenantId, query: analyticsQuerySchema.parse({ granularity: "week" }) });
    expect(week.series).toHaveLength(12);
    expect(new Date(week.series[0].start).getUTCDay()).toBe(1); // ISO weeks start on Monday
    expect(week.totals.earningsSats).toBe(5);

    const one = await getAnalytics({ prisma: t.ctx.db.prisma, tenantId, query: analyticsQuerySchema.parse({ endpointId: ids.free }) });
    expect(one.totals).toMatchObject({ requests: 1, earningsSats: 0 });
    expect(one.endpoints).toHaveLength(1);
  });
});
