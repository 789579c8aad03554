// Directory quality (spec 2.4) from health samples; the rule is written in lib/directory/quality.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDirectoryEntry } from "../../lib/directory/get-directory-entry.ts";
import { listDirectory } from "../../lib/directory/list-directory.ts";
import { loadQuality } from "../../lib/directory/quality.ts";
import { createTestContext, type TestContext } from "../helpers/context.ts";
import { addSample, createApi } from "./fixtures.ts";

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});
beforeEach(async () => {
  await ctx.reset();
});

const now = new Date("2026-03-10T12:00:00Z");
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
const daysAgo = (d: number) => minutesAgo(d * 24 * 60);

async function twoEndpointApi(slug = "q"): Promise<string> {
  return createApi(ctx.db.prisma, ctx.config.appSecret, {
    slug,
    endpoints: [
      { path: "/a", pricingModel: "per_request", priceSats: 1 },
      { path: "/b" },
    ],
  });
}

async function qualityOf(tenantId: string) {
  return (await loadQuality({ prisma: ctx.db.prisma, tenantIds: [tenantId], now })).get(tenantId);
}

describe("directory quality", () => {
  it("is healthy with null numbers before the first probe", async () => {
    const id = await twoEndpointApi();
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null });
  });

  it("computes 7-day uptime over all samples and latency over successful ones", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 100, checkedAt: daysAgo(3) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: false, latencyMs: 30_000, checkedAt: daysAgo(2) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 201, checkedAt: daysAgo(1) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: null, checkedAt: minutesAgo(5) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 75, avgResponseTimeMs: 151 });
  });

  it("rounds uptime to one decimal", async () => {
    const id = await twoEndpointApi();
    for (const ok of [true, true, false]) {
      await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok, latencyMs: 10, checkedAt: daysAgo(ok ? 2 : 3) });
    }
    expect((await qualityOf(id))?.uptimePercentage).toBe(66.7);
  });

  it("is unhealthy while any endpoint's latest probe failed, and recovers", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 50, checkedAt: minutesAgo(10) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 50, checkedAt: minutesAgo(20) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok: false, checkedAt: minutesAgo(10) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: false, uptimePercentage: 66.7 });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok: true, latencyMs: 50, checkedAt: minutesAgo(5) });
    expect(await qualityOf(id)).toMatchObject({ isHealthy: true, uptimePercentage: 75 });
  });

  it("ignores samples older than 7 days", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: false, checkedAt: daysAgo(8) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 40, checkedAt: daysAgo(6) });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 40 });
  });

  it("ignores samples of deactivated endpoints", async () => {
    const id = await twoEndpointApi();
    await addSample(ctx.db.prisma, { tenantId: id, path: "/a", ok: true, latencyMs: 40, checkedAt: minutesAgo(30) });
    await addSample(ctx.db.prisma, { tenantId: id, path: "/b", ok: false, checkedAt: minutesAgo(5) });
    await ctx.db.prisma.endpoint.updateMany({ where: { tenantId: id, path: "/b" }, data: { isActive: false } });
    expect(await qualityOf(id)).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 40 });
  });

  it("keeps tenants apart and flows into list and detail entries", async () => {
    const up = await twoEndpointApi("up");
    const down = await twoEndpointApi("down");
    await addSample(ctx.db.prisma, { tenantId: up, path: "/a", ok: true, latencyMs: 80, checkedAt: minutesAgo(5) });
    await addSample(ctx.db.prisma, { tenantId: down, path: "/a", ok: false, checkedAt: minutesAgo(5) });

    const list = await listDirectory({ prisma: ctx.db.prisma, config: ctx.config, page: 1, limit: 50, sort: "relevance", now });
    const bySlug = Object.fromEntries(list.entries.map((e) => [e.slug, e.quality]));
    expect(bySlug.up).toEqual({ isHealthy: true, uptimePercentage: 100, avgResponseTimeMs: 80 });
    expect(bySlug.down).toEqual({ isHealthy: false, uptimePercentage: 0, avgResponseTimeMs: null });

    const detail = await getDirectoryEntry({ prisma: ctx.db.prisma, config: ctx.config, slug: "down", now });
    expect(detail?.quality).toEqual(bySlug.down);
  });
});
