// Directory search relevance (lib/directory/search-query.ts) on a real database: stems, prefixes,
// typos, field weights, and a search document that follows every change through the triggers.
import { beforeEach, describe, expect, it } from "vitest";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { searchWords } from "@/lib/directory/search-query.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

const api = (fixture: Parameters<typeof createApi>[2]) => createApi(ctx().db.prisma, ctx().config.appSecret, fixture);
const slugsFor = async (search: string) =>
  (await listDirectory({ prisma: ctx().db.prisma, config: ctx().config, page: 1, limit: 50, sort: "relevance", search })).entries.map((e) => e.slug);

describe("search relevance", () => {
  beforeEach(async () => {
    await api({
      slug: "routing",
      name: "Route Planner",
      description: "Routing over a real road network.",
      tags: ["maps"],
      endpoints: [{ path: "/v1/isochrone" }],
    });
    await api({
      slug: "market-intel",
      name: "Market Intel",
      description: "Bitcoin candles and order books.",
      tags: ["bitcoin"],
      endpoints: [{ path: "/v1/candles" }],
    });
    await api({ slug: "atlas", name: "Atlas", description: "Place names.", tags: ["routes"], endpoints: [{ path: "/v1/places" }] });
    await api({ slug: "fleet", name: "Fleet Tracker", description: "Vehicles and their routes in real time.", endpoints: [{ path: "/v1/vehicles" }] });
    await api({ slug: "paths", name: "Paths", description: "Geometry helpers.", endpoints: [{ path: "/v1/route/simplify" }] });
  });

  it("reports the same total on every page of a search, past the last one included", async () => {
    const page = (n: number, limit: number) =>
      listDirectory({ prisma: ctx().db.prisma, config: ctx().config, page: n, limit, sort: "relevance", search: "route" });
    const all = await page(1, 50);
    expect(all.total).toBe(all.entries.length);
    expect(all.total).toBeGreaterThan(2);
    const first = await page(1, 2);
    expect(first).toMatchObject({ total: all.total, hasMore: true });
    expect(first.entries.map((e) => e.slug)).toEqual(all.entries.slice(0, 2).map((e) => e.slug));
    const beyond = await page(50, 2);
    expect(beyond).toMatchObject({ entries: [], total: all.total, hasMore: false });
  });

  it("matches english stems in names, tags and descriptions; endpoint paths as written or by prefix", async () => {
    expect((await slugsFor("routes")).sort()).toEqual(["atlas", "fleet", "routing"]);
    expect(await slugsFor("/v1/route")).toContain("paths");
    expect(await slugsFor("simplify")).toEqual(["paths"]);
  });

  it("weights name over tag over description over endpoint path", async () => {
    expect(await slugsFor("route")).toEqual(["routing", "atlas", "fleet", "paths"]);
  });

  it("matches words still being typed by prefix", async () => {
    expect(await slugsFor("cand")).toEqual(["market-intel"]);
    expect(await slugsFor("isochr")).toEqual(["routing"]);
    expect(await slugsFor("market-in")).toEqual(["market-intel"]);
  });

  it("tolerates a misspelt name (trigrams)", async () => {
    expect(await slugsFor("markte intel")).toEqual(["market-intel"]);
    expect(await slugsFor("flete trackr")).toEqual(["fleet"]);
  });

  it("ranks an exact name or slug first", async () => {
    await api({ slug: "atlas-pro", name: "Atlas Pro", description: "Atlas Atlas Atlas, the bigger atlas." });
    expect((await slugsFor("atlas"))[0]).toBe("atlas");
  });

  it("requires every word", async () => {
    expect(await slugsFor("bitcoin candles")).toEqual(["market-intel"]);
    expect(await slugsFor("bitcoin vehicles")).toEqual([]);
  });
});

describe("the search document follows changes", () => {
  it("picks up a renamed API, new and deactivated endpoints, and new tags", async () => {
    const id = await api({ slug: "thing", name: "Thing", endpoints: [{ path: "/v1/alpha" }] });
    expect(await slugsFor("alpha")).toEqual(["thing"]);
    await ctx().db.prisma.tenant.update({ where: { id }, data: { name: "Weather Station", tags: ["climate"] } });
    expect(await slugsFor("weather")).toEqual(["thing"]);
    expect(await slugsFor("climate")).toEqual(["thing"]);
    await ctx().db.prisma.endpoint.create({ data: { tenantId: id, method: "GET", path: "/v1/forecast" } });
    expect(await slugsFor("forecast")).toEqual(["thing"]);
    await ctx().db.prisma.endpoint.updateMany({ where: { tenantId: id, path: "/v1/alpha" }, data: { isActive: false } });
    expect(await slugsFor("alpha")).toEqual([]);
    await ctx().db.prisma.endpoint.deleteMany({ where: { tenantId: id, path: "/v1/forecast" } });
    expect(await slugsFor("forecast")).toEqual([]);
  });

  it("keeps the listing flag in step with wallet, endpoints and status", async () => {
    const id = await api({ slug: "flag", name: "Flag" });
    const listed = async () => (await ctx().db.prisma.tenant.findUniqueOrThrow({ where: { id } })).directoryListed;
    expect(await listed()).toBe(true);
    await ctx().db.prisma.wallet.delete({ where: { tenantId: id } });
    expect(await listed()).toBe(false);
    await ctx().db.prisma.wallet.create({ data: { tenantId: id, type: "dev", credentialsEnc: "sealed" } });
    expect(await listed()).toBe(true);
    await ctx().db.prisma.endpoint.deleteMany({ where: { tenantId: id } });
    expect(await listed()).toBe(false);
    await ctx().db.prisma.endpoint.create({ data: { tenantId: id, method: "GET", path: "/x" } });
    expect(await listed()).toBe(true);
    await ctx().db.prisma.tenant.update({ where: { id }, data: { listed: false } });
    expect(await listed()).toBe(false);
  });
});

describe("searchWords", () => {
  it("splits on anything but letters and digits, lowercases, and caps count and length", () => {
    expect(searchWords("  /v1/Candles?x=1 & Öl ")).toEqual(["v1", "candles", "x", "1", "öl"]);
    expect(searchWords("a b c d e f g h i j")).toHaveLength(8);
    expect(searchWords("x".repeat(100))[0]).toHaveLength(64);
    expect(searchWords("%_!")).toEqual([]);
  });
});
