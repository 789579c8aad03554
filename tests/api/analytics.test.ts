// GET /api/tenants/:tenantId/analytics: query validation, workspace scoping, and a month of
// counts and earnings seeded straight into the tables the gateway and the ledger write.
import { beforeEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/tenants/[tenantId]/analytics/route.ts";
import { endpointFactory } from "@/prisma/factories.ts";
import { call, seedTenant, useApiContext } from "./helpers.ts";

const api = useApiContext();
let tenantId: string;
let key: string;
let endpointId: string;

beforeEach(async () => {
  ({ tenantId, apiKey: key } = await seedTenant(api.test()));
  endpointId = (await endpointFactory(api.test().db.prisma, tenantId, { path: "/v1/quote", pricingModel: "per_request", priceSats: 7 })).id;
});

const get = (query: string, as: { tenantId: string; key: string } = { tenantId, key }) =>
  call(GET, { method: "GET", path: `/tenants/${as.tenantId}/analytics${query}`, params: { tenantId: as.tenantId }, token: as.key });

describe("GET /api/tenants/:tenantId/analytics", () => {
  it("names each bad parameter in a 400", async () => {
    for (const [query, field] of [
      ["?granularity=hour", "granularity"],
      ["?from=yesterday", "from"],
      ["?to=2026-13-01", "to"],
      ["?from=2026-11-20&to=2026-11-01", "from"],
      ["?granularity=day&from=2020-01-01&to=2026-01-01", "from"],
    ]) {
      const res = await get(query);
      expect(res.status, query).toBe(400);
      expect(
        res.body.error.details.fields.map((f: { field: string }) => f.field),
        query,
      ).toContain(field);
    }
  });

  it("404s an endpoint of another workspace and 403s another workspace's analytics", async () => {
    const other = await seedTenant(api.test(), "other", "other@example.com");
    const foreignEndpoint = await endpointFactory(api.test().db.prisma, other.tenantId, { path: "/v1/x", pricingModel: "per_request", priceSats: 1 });
    expect((await get(`?endpointId=${foreignEndpoint.id}`)).status).toBe(404);
    const res = await get("", { tenantId: other.tenantId, key });
    expect([401, 403, 404]).toContain(res.status);
    expect(res.body.error).toBeDefined();
  });

  it("buckets a range by day and by month, with earnings from settled invoices only", async () => {
    const prisma = api.test().db.prisma;
    const at = (iso: string) => new Date(iso);
    await prisma.usageCounter.createMany({
      data: [
        { tenantId, endpointId, hour: at("2026-10-31T23:00:00Z"), requests: 5, paidRequests: 2, servedRequests: 2 },
        { tenantId, endpointId, hour: at("2026-11-01T00:00:00Z"), requests: 3, paidRequests: 1, servedRequests: 1, refunds: 1, upstreamErrors: 1 },
        { tenantId, endpointId, hour: at("2026-11-01T13:00:00Z"), requests: 1 },
      ],
    });
    const invoice = (paymentHash: string, status: "settled" | "pending", settledAt: Date | null, amountSats: number) => ({
      tenantId,
      endpointId,
      paymentHash,
      paymentRequest: "lnbc",
      amountSats,
      purpose: "per_request" as const,
      status,
      settledAt,
      expiresAt: at("2026-12-01T00:00:00Z"),
    });
    await prisma.invoice.createMany({
      data: [
        invoice("a".repeat(64), "settled", at("2026-10-31T23:59:59Z"), 7),
        invoice("b".repeat(64), "settled", at("2026-11-01T00:00:00Z"), 7),
        invoice("c".repeat(64), "pending", null, 7),
      ],
    });

    const days = await get("?granularity=day&from=2026-10-30&to=2026-11-02");
    expect(days.status).toBe(200);
    expect(days.body.from).toBe("2026-10-30T00:00:00.000Z");
    expect(days.body.to).toBe("2026-11-03T00:00:00.000Z");
    expect(days.body.series.map((b: { requests: number; earningsSats: number }) => [b.requests, b.earningsSats])).toEqual([
      [0, 0],
      [5, 7],
      [4, 7],
      [0, 0],
    ]);
    expect(days.body.totals).toEqual({ requests: 9, paidRequests: 3, servedRequests: 3, refunds: 1, upstreamErrors: 1, earningsSats: 14 });
    expect(days.headers.get("cache-control")).toContain("no-store");

    const months = await get("?granularity=month&from=2026-10-15&to=2026-11-15");
    expect(months.body.series.map((b: { start: string; requests: number }) => [b.start.slice(0, 7), b.requests])).toEqual([
      ["2026-10", 5],
      ["2026-11", 4],
    ]);
  });
});
