// "Top" APIs (llms.txt's top 20, the home page's "Most used"): most requests served in the last
// 30 days, then the newest; usedOnly leaves out APIs nobody called.
import { describe, expect, it } from "vitest";
import { listTopApis } from "@/lib/directory/top-apis.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

const now = new Date("2026-11-21T12:00:00Z");

async function served(tenantId: string, count: number, daysAgo: number) {
  const endpoint = await ctx().db.prisma.endpoint.findFirstOrThrow({ where: { tenantId } });
  const hour = new Date(Math.floor((now.getTime() - daysAgo * 86_400_000) / 3_600_000) * 3_600_000);
  await ctx().db.prisma.usageCounter.create({ data: { tenantId, endpointId: endpoint.id, hour, requests: count, servedRequests: count } });
}

describe("top APIs", () => {
  it("ranks by requests served in the last 30 days, then newest; usedOnly drops the uncalled", async () => {
    const { prisma } = ctx().db;
    const old = await createApi(prisma, ctx().config.appSecret, { slug: "old", createdAt: new Date("2026-01-01T00:00:00Z") });
    const busy = await createApi(prisma, ctx().config.appSecret, { slug: "busy", createdAt: new Date("2026-02-01T00:00:00Z") });
    const stale = await createApi(prisma, ctx().config.appSecret, { slug: "stale", createdAt: new Date("2026-03-01T00:00:00Z") });
    await createApi(prisma, ctx().config.appSecret, { slug: "fresh", createdAt: new Date("2026-11-20T00:00:00Z") });
    await createApi(prisma, ctx().config.appSecret, { slug: "hidden", listed: false });
    await served(busy, 50, 1);
    await served(old, 10, 2);
    await served(old, 5, 29);
    await served(stale, 1_000, 31); // outside the window

    const top = await listTopApis({ prisma, config: ctx().config, limit: 10, now });
    expect(top.map((e) => e.slug)).toEqual(["busy", "old", "fresh", "stale"]);
    const used = await listTopApis({ prisma, config: ctx().config, limit: 10, usedOnly: true, now });
    expect(used.map((e) => e.slug)).toEqual(["busy", "old"]);
    expect((await listTopApis({ prisma, config: ctx().config, limit: 1, now })).map((e) => e.slug)).toEqual(["busy"]);
  });
});
