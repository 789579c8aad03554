// Approved external listings (spec 2.5) in every directory surface beside hosted APIs, through the
// real route handlers: the list (search, tag, sort, exact pagination across both kinds), the
// detail view, categories, the JSON Feed, llms.txt and llms-full.txt, the badge and the sitemap's
// slugs. Pending, rejected and suspended listings appear nowhere.
import { describe, expect, it } from "vitest";
import { GET as getDetail } from "@/app/api/directory/[slug]/route.ts";
import { GET as getCategories } from "@/app/api/directory/categories/route.ts";
import { GET as getFeed } from "@/app/api/directory/feed.json/route.ts";
import { GET as getList } from "@/app/api/directory/route.ts";
import { GET as getBadge } from "@/app/api/badge/[slug]/route.ts";
import { GET as getLlms } from "@/app/llms.txt/route.ts";
import { GET as getLlmsFull } from "@/app/llms-full.txt/route.ts";
import type { RouteHandler } from "@/lib/api/handler.ts";
import { listDirectorySlugs } from "@/lib/directory/list-directory-slugs.ts";
import { directoryDetailSchema, directoryListSchema } from "@/lib/directory/schemas.ts";
import { listTopApis } from "@/lib/directory/top-apis.ts";
import { useApiContext } from "@/tests/api/helpers.ts";
import { createApi, createListing, type ListingFixture } from "./fixtures.ts";

const api = useApiContext();
let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter}`;

async function get(handler: RouteHandler, path: string, params: Record<string, string> = {}) {
  const req = new Request(`http://127.0.0.1:3000${path}`, { headers: { "x-hub-client-ip": freshIp() } });
  const res = await handler(req, { params: Promise.resolve(params) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const getJson = async (handler: RouteHandler, path: string, params: Record<string, string> = {}) => {
  const res = await get(handler, path, params);
  return { ...res, body: JSON.parse(res.text) };
};

const prisma = () => api.test().db.prisma;
const hosted = (fixture: Parameters<typeof createApi>[2]) => createApi(prisma(), api.test().config.appSecret, fixture);
const listing = (fixture: ListingFixture) => createListing(prisma(), fixture);

/** A hosted API, an approved listing and one listing in each hidden state, all tagged "weather". */
async function seed() {
  await hosted({ slug: "hosted-weather", name: "Hosted Weather", tags: ["weather"], createdAt: new Date("2026-01-01T00:00:00Z") });
  await listing({
    slug: "sky-oracle",
    name: "Sky Oracle",
    description: "Forecasts from an independently run gateway.",
    tags: ["Weather", "forecast"],
    gatewayUrl: "https://gw.sky-oracle.example/base/",
    endpoints: [
      { path: "/v1/forecast", method: "get", title: "Forecast", description: "Tomorrow's weather.", pricingModel: "per_request", priceSats: 5 },
      { path: "/v1/status", method: "GET", title: "Status" },
      { nonsense: true },
    ],
    createdAt: new Date("2026-02-01T00:00:00Z"),
  });
  for (const status of ["pending", "rejected", "suspended"] as const) {
    await listing({ slug: `hidden-${status}`, name: `Hidden ${status} weather`, tags: ["weather", `only-${status}`], status });
  }
}

describe("approved external listings in the directory API", () => {
  it("lists an approved listing beside hosted APIs with isExternal, its own gateway and declared endpoints", async () => {
    await seed();
    const res = await getJson(getList, "/api/directory");
    expect(res.status).toBe(200);
    expect(directoryListSchema.parse(res.body)).toEqual(res.body);
    expect(res.body.total).toBe(2);
    expect(res.body.entries.map((e: { slug: string; isExternal: boolean }) => [e.slug, e.isExternal])).toEqual([
      ["hosted-weather", false],
      ["sky-oracle", true],
    ]);
    const external = res.body.entries[1];
    expect(external).toMatchObject({
      name: "Sky Oracle",
      gatewayDomain: "https://gw.sky-oracle.example/base",
      endpointCount: 2,
      quality: { isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null },
    });
    expect(external.endpoints).toEqual([
      {
        path: "/v1/forecast",
        method: "GET",
        title: "Forecast",
        description: "Tomorrow's weather.",
        docsUrl: null,
        pricingModel: "per_request",
        priceSats: 5,
        tokenBudget: null,
        durationMinutes: null,
        unitCostSats: null,
        freeTryEnabled: false,
        exampleRequest: {},
        exampleResponse: {},
      },
      expect.objectContaining({ path: "/v1/status", pricingModel: null, priceSats: 0 }),
    ]);
  });

  it("finds listings by search over name, description, tags and endpoint paths, and by tag; hidden ones never", async () => {
    await seed();
    const slugs = async (query: string) => (await getJson(getList, `/api/directory?${query}`)).body.entries.map((e: { slug: string }) => e.slug);
    expect(await slugs("search=oracle")).toEqual(["sky-oracle"]);
    expect(await slugs("search=independently")).toEqual(["sky-oracle"]);
    expect(await slugs("search=forecast")).toEqual(["sky-oracle"]);
    expect(await slugs("search=sky%20orcale")).toEqual(["sky-oracle"]); // trigram match of a misspelt name
    expect(await slugs("search=hidden")).toEqual([]);
    expect(await slugs("tag=WEATHER")).toEqual(["hosted-weather", "sky-oracle"]);
    expect(await slugs("tag=only-suspended")).toEqual([]);
    expect(await slugs("sort=recent")).toEqual(["sky-oracle", "hosted-weather"]);
  });

  it("paginates hosted APIs and listings as one ordered list", async () => {
    for (const [i, name] of ["alpha", "charlie", "echo"].entries()) await hosted({ slug: name, name, createdAt: new Date(Date.UTC(2026, 0, 1 + i)) });
    for (const [i, name] of ["bravo", "delta"].entries()) await listing({ slug: name, name, createdAt: new Date(Date.UTC(2026, 1, 1 + i)) });
    const page = async (n: number) => (await getJson(getList, `/api/directory?limit=2&page=${n}`)).body;
    const pages = [await page(1), await page(2), await page(3)];
    expect(pages.map((p) => p.entries.map((e: { slug: string }) => e.slug))).toEqual([["alpha", "bravo"], ["charlie", "delta"], ["echo"]]);
    expect(pages.map((p) => [p.total, p.hasMore])).toEqual([
      [5, true],
      [5, true],
      [5, false],
    ]);
  });

  it("counts approved listings' tags in categories and in the list's tags", async () => {
    await seed();
    const categories = (await getJson(getCategories, "/api/directory/categories")).body;
    expect(categories.categories).toEqual([
      { tag: "weather", count: 2 },
      { tag: "forecast", count: 1 },
    ]);
    // Suspension drops its tags; approval brings them back.
    await prisma().externalListing.update({ where: { slug: "sky-oracle" }, data: { status: "suspended" } });
    expect((await getJson(getCategories, "/api/directory/categories")).body.categories).toEqual([{ tag: "weather", count: 1 }]);
    await prisma().externalListing.update({ where: { slug: "sky-oracle" }, data: { status: "approved" } });
    expect((await getJson(getList, "/api/directory")).body.tags).toEqual(["weather", "forecast"]);
  });

  it("serves the detail view with isExternal true and walletPubkey null; hidden listings are 404", async () => {
    await seed();
    const res = await getJson(getDetail, "/api/directory/sky-oracle", { slug: "sky-oracle" });
    expect(res.status).toBe(200);
    expect(directoryDetailSchema.parse(res.body)).toEqual(res.body);
    expect(res.body).toMatchObject({ slug: "sky-oracle", isExternal: true, walletPubkey: null, gatewayDomain: "https://gw.sky-oracle.example/base" });
    expect(res.body.endpoints[0]).toMatchObject({ path: "/v1/forecast", parameters: [], streaming: false });
    // A hand-typed slug in another case finds it too.
    expect((await getJson(getDetail, "/api/directory/Sky-Oracle", { slug: "Sky-Oracle" })).body.slug).toBe("sky-oracle");
    for (const status of ["pending", "rejected", "suspended"]) {
      expect((await get(getDetail, `/api/directory/hidden-${status}`, { slug: `hidden-${status}` })).status).toBe(404);
    }
  });
});

describe("approved external listings in the feed, llms.txt, badge and sitemap", () => {
  it("puts the listing in the JSON Feed with _hub.isExternal and its own gateway", async () => {
    await seed();
    const feed = (await getJson(getFeed, "/api/directory/feed.json")).body;
    expect(feed.items.map((i: { _hub: { slug: string } }) => i._hub.slug)).toEqual(["sky-oracle", "hosted-weather"]);
    expect(feed.items[0]._hub).toEqual({
      slug: "sky-oracle",
      gateway: "https://gw.sky-oracle.example/base",
      endpointCount: 2,
      endpoints: [
        { method: "GET", path: "/v1/forecast", pricingModel: "per_request", priceSats: 5 },
        { method: "GET", path: "/v1/status", pricingModel: null, priceSats: 0 },
      ],
      isExternal: true,
    });
    expect(feed.items[0].content_text).toContain("Independently operated");
    expect(feed.items[1]._hub.isExternal).toBe(false);
  });

  it("links the listing in llms.txt and details it in llms-full.txt, marked as external", async () => {
    await seed();
    const { siteUrl } = api.test().config;
    const llms = (await get(getLlms, "/llms.txt")).text;
    expect(llms).toContain("2 APIs are listed.");
    const line = llms.split("\n").find((l) => l.startsWith("- [Sky Oracle]"));
    expect(line).toContain(`(${siteUrl}/directory/sky-oracle)`);
    expect(line).toContain("gateway https://gw.sky-oracle.example/base; external listing, an independently operated L402 gateway");
    expect(line).not.toContain("openapi.json");
    expect(llms).not.toContain("Hidden");

    const full = (await get(getLlmsFull, "/llms-full.txt")).text;
    const section = full.split(/\n(?=## )/).find((s) => s.startsWith("## Sky Oracle"));
    expect(section).toContain("- Gateway: https://gw.sky-oracle.example/base");
    expect(section).toContain("- Operator: external listing");
    expect(section).toContain("### GET /v1/forecast: Forecast");
    expect(section).toContain("curl -i 'https://gw.sky-oracle.example/base/v1/forecast'");
    expect(full).toContain("## Hosted Weather");
    expect(full).not.toContain("Hidden");
  });

  it("draws the listing's badge from its declared prices; a hidden listing's badge says not listed", async () => {
    await seed();
    const badge = await get(getBadge, "/api/badge/sky-oracle.svg", { slug: "sky-oracle.svg" });
    expect(badge.status).toBe(200);
    expect(badge.text).toContain("5 sats");
    expect(badge.text).toContain("not checked yet");
    const hidden = await get(getBadge, "/api/badge/hidden-suspended.svg", { slug: "hidden-suspended.svg" });
    expect(hidden.status).toBe(404);
    expect(hidden.text).toContain("not listed");
  });

  it("gives the sitemap and the top APIs the listing, never the hidden ones", async () => {
    await seed();
    expect((await listDirectorySlugs({ prisma: prisma() })).map((s) => s.slug)).toEqual(["hosted-weather", "sky-oracle"]);
    const top = await listTopApis({ prisma: prisma(), config: api.test().config, limit: 20 });
    expect(top.map((e) => [e.slug, e.isExternal])).toEqual([
      ["sky-oracle", true],
      ["hosted-weather", false],
    ]);
    // The home page's "most used" needs served requests, which only hosted APIs report.
    expect(await listTopApis({ prisma: prisma(), config: api.test().config, limit: 20, usedOnly: true })).toEqual([]);
  });
});
