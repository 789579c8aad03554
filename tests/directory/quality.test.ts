// Directory quality (spec 2.4) from health samples; the rule is written in lib/directory/quality.ts.
import { describe, expect, it } from "vitest";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { loadQuality } from "@/lib/directory/quality.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { addSample, createApi } from "./fixtures.ts";

const ctx = useTestContext();

const now = new Date("2026-03-10T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const daysAgo = (d: number) => minutesAgo(d * 24 * 60);

async function twoEndpointApi(slug = "q"): Promise<string> {
  return createApi(ctx().db.prisma, ctx().config.appSecret, {
    slug,
    endpoints: [{ path: "/a", pricingModel: "per_request", priceSats: 1 }, { path: "/b" }],
  });
}

async function qualityOf(tenantId: string) {
  return (await loadQuality({ prisma: ctx().db.prisma, tenantIds: [tenantId], now })).get(tenantId);
}

describe("directory quality", () => {
  it("is healthy with null numbers before the first probe", async () => {
    const id = await twoEndpointApi();
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null });
  });

  it("computes 7-day uptime over all samples and latency over successful ones", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 100, checkedAt: daysAgo(3) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: false, latencyMs: 30_000, checkedAt: daysAgo(2) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 201, checkedAt: daysAgo(1) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: null, checkedAt: minutesAgo(5) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 75, avgResponseTimeMs: 151 });
  });

  it("rounds uptime to one decimal", async () => {
    const id = await twoEndpointApi();
    for (const ok of [true, true, false]) {
      await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok, latencyMs: 10, checkedAt: daysAgo(ok ? 2 : 3) });
    }
    expect((await qualityOf(id))?.uptimePercentage).toBe(66.7);
  });

  it("is unhealthy while any endpoint's latest probe failed, and recovers", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 50, checkedAt: minutesAgo(10) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 50, checkedAt: minutesAgo(20) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: false, checkedAt: minutesAgo(10) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: false, uptimePercentage: 66.7 });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 50, checkedAt: minutesAgo(5) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: true, uptimePercentage: 75 });
  });

  it("ignores samples older than 7 days", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: false, checkedAt: daysAgo(8) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 40, checkedAt: daysAgo(6) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 40 });
  });

  it("counts the last 7 UTC days, today included, by calendar day", async () => {
    const id = await twoEndpointApi();
    // now is 2026-03-10 12:00 UTC: the window starts 2026-03-04 00:00 UTC.
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: false, checkedAt: new Date("2026-03-03T23:59:59Z") });
    expect((await qualityOf(id))?.uptimePercentage).toBeNull();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 10, checkedAt: new Date("2026-03-04T00:00:00Z") });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 10 });
  });

  it("keeps the latest probe's outcome when an older probe is recorded after it", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 20, checkedAt: minutesAgo(5) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: false, checkedAt: minutesAgo(10) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: true, uptimePercentage: 50 });
    // The day before ended failing, but today's latest probe is what counts.
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: false, checkedAt: daysAgo(1) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 20, checkedAt: minutesAgo(1) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: true, uptimePercentage: 50 });
  });

  it("keeps the daily rollup equal to a recount of the raw samples", async () => {
    const id = await twoEndpointApi();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 60; i++) {
      const ok = next() > 0.2;
      await addSample(ctx().db.prisma, {
        tenantId: id,
        path: next() > 0.5 ? "/a" : "/b",
        ok,
        latencyMs: next() > 0.1 ? Math.floor(next() * 500) : null,
        checkedAt: minutesAgo(Math.floor(next() * 9 * 24 * 60)),
      });
    }
    const recount = await ctx().db.prisma.$queryRaw<
      { endpointId: string; day: Date; total: number; ok: number; latencySum: number; latencyCount: number; lastOk: boolean }[]
    >`
      SELECT "endpointId", CAST("checkedAt" AS date) AS "day", count(*)::int AS "total", (count(*) FILTER (WHERE "ok"))::int AS "ok",
        COALESCE(sum("latencyMs") FILTER (WHERE "ok" AND "latencyMs" IS NOT NULL), 0)::int AS "latencySum",
        (count(*) FILTER (WHERE "ok" AND "latencyMs" IS NOT NULL))::int AS "latencyCount",
        (array_agg("ok" ORDER BY "checkedAt" DESC))[1] AS "lastOk"
      FROM "HealthSample" GROUP BY 1, 2 ORDER BY 1, 2`;
    const rollup = await ctx().db.prisma.endpointHealthDay.findMany({ orderBy: [{ endpointId: "asc" }, { day: "asc" }] });
    expect(rollup.map((r) => [r.endpointId, r.day.toISOString(), r.total, r.ok, Number(r.okLatencySum), r.okLatencyCount, r.lastOk])).toEqual(
      recount.map((r) => [r.endpointId, new Date(r.day).toISOString(), r.total, r.ok, Number(r.latencySum), r.latencyCount, r.lastOk]),
    );
  });

  it("ignores samples of deactivated endpoints", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx().db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 40, checkedAt: minutesAgo(30) });
    await addSample(ctx().db.prisma, { tenantId: id, path: "/b", ok: false, checkedAt: minutesAgo(5) });
    await ctx().db.prisma.endpoint.updateMany({ where: { tenantId: id, path: "/b" }, data: { isActive: false } });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 40 });
  });

  it("keeps tenants apart and flows into list and detail entries", async () => {
    const up = await twoEndpointApi("up");
    const down = await twoEndpointApi("down");
    await addSample(ctx().db.prisma, { tenantId: up, path: "/a", ok: true, latencyMs: 80, checkedAt: minutesAgo(5) });
    await addSample(ctx().db.prisma, { tenantId: down, path: "/a", ok: false, checkedAt: minutesAgo(5) });

    const list = await listDirectory({ prisma: ctx().db.prisma, config: ctx().config, page: 1, limit: 50, sort: "relevance", now });
    const bySlug = Object.fromEntries(list.entries.map((e) => [e.slug, e.quality]));
    expect(bySlug.up).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 80 });
    expect(bySlug.down).toEqual({ isHealthy: false, uptimePercentage: 0, avgResponseTimeMs: null });

    const detail = await getDirectoryEntry({ prisma: ctx().db.prisma, config: ctx().config, slug: "down", now });
    expect(detail?.quality).toEqual(bySlug.down);
  });
});
