// listDirectory: the spec 2.4 shape, pagination, tag filter, search and sort on a real database.
import { beforeEach, describe, expect, it } from "vitest";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { listDirectory, type ListDirectoryOptions } from "@/lib/directory/list-directory.ts";
import { listDirectoryTags } from "@/lib/directory/list-tags.ts";
import { directoryListSchema } from "@/lib/directory/schemas.ts";
import { useTestContext } from "@/tests/helpers/context.ts";
import { createApi } from "./fixtures.ts";

const ctx = useTestContext();

function list(query: Partial<Omit<ListDirectoryOptions, "prisma" | "config">> = {}) {
  return listDirectory({ prisma: ctx().db.prisma, config: ctx().config, page: 1, limit: 50, sort: "relevance", ...query });
}

const api = (fixture: Parameters<typeof createApi>[2]) => createApi(ctx().db.prisma, ctx().config.appSecret, fixture);

describe("listDirectory shape", () => {
  it("returns entries with exactly the spec 2.4 fields", async () => {
    await api({
      slug: "weather",
      name: "Weather Now",
      description: "Current weather by city.",
      tags: ["weather", "geo"],
      endpoints: [
        {
          path: "/v1/current",
          title: "Current weather",
          description: "Temperature and wind.",
          docsUrl: "https://example.com/docs",
          pricingModel: "per_request",
          priceSats: 3,
          freeTryEnabled: true,
          exampleRequest: { query: { city: "Gothenburg" } },
          exampleResponse: { tempC: 11.5 },
        },
        { path: "/v1/pass", pricingModel: "time_pass", priceSats: 100, durationMinutes: 60 },
        { path: "/v1/bucket", pricingModel: "token_bucket", priceSats: 500, tokenBudget: 1000 },
        { path: "/v1/meter", method: "post", pricingModel: "metered", priceSats: 500, unitCostSats: 2 },
        { path: "/v1/bulk", pricingModel: "per_kb", priceSats: 500, unitCostSats: 1 },
        { path: "/v1/ping", title: "Ping" },
        { path: "/v1/retired", isActive: false, pricingModel: "per_request", priceSats: 9 },
      ],
    });
    const result = await list();
    expect(directoryListSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({ total: 1, hasMore: false, tags: ["geo", "weather"] });

    const [entry] = result.entries;
    expect(Object.keys(entry).sort()).toEqual(
      ["description", "endpointCount", "endpoints", "gatewayDomain", "isExternal", "name", "quality", "slug", "tags"].sort(),
    );
    expect(entry).toMatchObject({
      slug: "weather",
      name: "Weather Now",
      description: "Current weather by city.",
      tags: ["weather", "geo"],
      gatewayDomain: gatewayUrlFor(ctx().config, "weather"),
      endpointCount: 6,
      quality: { isHealthy: true, uptimePercentage: null, avgResponseTimeMs: null },
    });
    // Inactive endpoints are left out; the rest keep the order the provider added them in.
    expect(entry.endpoints.map((e) => e.path)).toEqual(["/v1/current", "/v1/pass", "/v1/bucket", "/v1/meter", "/v1/bulk", "/v1/ping"]);

    const byPath = Object.fromEntries(entry.endpoints.map((e) => [e.path, e]));
    expect(Object.keys(byPath["/v1/current"]).sort()).toEqual(
      [
        "path",
        "method",
        "title",
        "description",
        "docsUrl",
        "pricingModel",
        "priceSats",
        "tokenBudget",
        "durationMinutes",
        "unitCostSats",
        "freeTryEnabled",
        "exampleRequest",
        "exampleResponse",
      ].sort(),
    );
    expect(byPath["/v1/current"]).toEqual({
      path: "/v1/current",
      method: "GET",
      title: "Current weather",
      description: "Temperature and wind.",
      docsUrl: "https://example.com/docs",
      pricingModel: "per_request",
      priceSats: 3,
      tokenBudget: null,
      durationMinutes: null,
      unitCostSats: null,
      freeTryEnabled: true,
      exampleRequest: { query: { city: "Gothenburg" } },
      exampleResponse: { tempC: 11.5 },
    });
    expect(byPath["/v1/pass"]).toMatchObject({ pricingModel: "time_pass", priceSats: 100, durationMinutes: 60 });
    expect(byPath["/v1/bucket"]).toMatchObject({ pricingModel: "token_bucket", priceSats: 500, tokenBudget: 1000 });
    expect(byPath["/v1/meter"]).toMatchObject({ method: "POST", pricingModel: "metered", priceSats: 500, unitCostSats: 2 });
    expect(byPath["/v1/bulk"]).toMatchObject({ pricingModel: "per_kb", priceSats: 500, unitCostSats: 1 });
  });

  it("represents a free endpoint as pricingModel null and priceSats 0, with empty examples", async () => {
    await api({ slug: "free", endpoints: [{ path: "/v1/ping", title: "Ping" }] });
    const [entry] = (await list()).entries;
    expect(entry.endpoints[0]).toMatchObject({
      pricingModel: null,
      priceSats: 0,
      tokenBudget: null,
      durationMinutes: null,
      unitCostSats: null,
      freeTryEnabled: false,
      exampleRequest: {},
      exampleResponse: {},
    });
  });

  it("shows a model without a price as free, as the gateway serves it", async () => {
    await api({ slug: "unpriced", endpoints: [{ path: "/v1/x", pricingModel: "per_request", priceSats: null }] });
    const [entry] = (await list()).entries;
    expect(entry.endpoints[0]).toMatchObject({ pricingModel: null, priceSats: 0 });
  });

  it("keeps a non-object example response as {body}", async () => {
    await api({ slug: "arr", endpoints: [{ path: "/v1/list", exampleResponse: [1, 2, 3], exampleRequest: "nonsense" }] });
    const [entry] = (await list()).entries;
    expect(entry.endpoints[0].exampleResponse).toEqual({ body: [1, 2, 3] });
    expect(entry.endpoints[0].exampleRequest).toEqual({});
  });

  it("returns an empty page when nothing is listed", async () => {
    expect(await list()).toEqual({ entries: [], tags: [], total: 0, hasMore: false });
  });
});

describe("listDirectory pagination", () => {
  beforeEach(async () => {
    for (let i = 1; i <= 7; i++) await api({ slug: `api-${i}`, name: `Api ${String(i).padStart(2, "0")}` });
  });

  it("splits results into pages with total and hasMore", async () => {
    const first = await list({ limit: 3, page: 1 });
    const second = await list({ limit: 3, page: 2 });
    const third = await list({ limit: 3, page: 3 });
    expect(first.entries.map((e) => e.slug)).toEqual(["api-1", "api-2", "api-3"]);
    expect(second.entries.map((e) => e.slug)).toEqual(["api-4", "api-5", "api-6"]);
    expect(third.entries.map((e) => e.slug)).toEqual(["api-7"]);
    expect([first.hasMore, second.hasMore, third.hasMore]).toEqual([true, true, false]);
    expect([first.total, second.total, third.total]).toEqual([7, 7, 7]);
  });

  it("answers a page past the end with no entries but the real total", async () => {
    expect(await list({ limit: 3, page: 4 })).toMatchObject({ entries: [], total: 7, hasMore: false });
  });

  it("ends exactly on a page boundary without a phantom next page", async () => {
    const page = await list({ limit: 7, page: 1 });
    expect(page.entries).toHaveLength(7);
    expect(page.hasMore).toBe(false);
  });
});

describe("listDirectory tag filter", () => {
  it("filters by tag case-insensitively and counts tags lowercase", async () => {
    await api({ slug: "maps", tags: ["Maps", "routing"] });
    await api({ slug: "geo", tags: ["maps"] });
    await api({ slug: "btc", tags: ["bitcoin"] });

    const maps = await list({ tag: "MAPS" });
    expect(maps.entries.map((e) => e.slug).sort()).toEqual(["geo", "maps"]);
    expect(maps.total).toBe(2);
    expect((await list({ tag: "routing" })).entries.map((e) => e.slug)).toEqual(["maps"]);
    expect((await list({ tag: "nope" })).total).toBe(0);
    expect(await listDirectoryTags({ prisma: ctx().db.prisma })).toEqual([
      { tag: "maps", count: 2 },
      { tag: "bitcoin", count: 1 },
      { tag: "routing", count: 1 },
    ]);
    // The envelope lists every tag of the directory, not only the filtered page's.
    expect(maps.tags).toEqual(["maps", "bitcoin", "routing"]);
  });

  it("does not match a tag by prefix", async () => {
    await api({ slug: "maps", tags: ["mapsplus"] });
    expect((await list({ tag: "maps" })).total).toBe(0);
  });
});

describe("listDirectory search", () => {
  beforeEach(async () => {
    await api({ slug: "routes", name: "Route Planner", description: "Shortest paths over a road network.", tags: ["maps"] });
    await api({
      slug: "market",
      name: "Market Intel",
      description: "Bitcoin candles and order-book depth.",
      tags: ["bitcoin", "finance"],
      endpoints: [
        { path: "/v1/candles", pricingModel: "per_request", priceSats: 2 },
        { path: "/v1/hidden-orderbook", isActive: false },
      ],
    });
    await api({ slug: "weather", name: "Weather", description: "100% sunshine, guaranteed.", tags: ["geo"] });
  });

  const slugsFor = async (search: string) => (await list({ search })).entries.map((e) => e.slug);

  it("matches names, slugs, descriptions, tags and endpoint paths, ignoring case", async () => {
    expect(await slugsFor("route planner")).toEqual(["routes"]);
    expect(await slugsFor("MARKET")).toEqual(["market"]);
    expect(await slugsFor("road NETWORK")).toEqual(["routes"]);
    expect(await slugsFor("finance")).toEqual(["market"]);
    expect(await slugsFor("/v1/candles")).toEqual(["market"]);
  });

  it("requires every word to match somewhere", async () => {
    expect(await slugsFor("bitcoin maps")).toEqual([]);
    expect(await slugsFor("bitcoin candles")).toEqual(["market"]);
  });

  it("ignores inactive endpoints' paths", async () => {
    expect(await slugsFor("hidden-orderbook")).toEqual([]);
  });

  it("searches words, so punctuation neither matches nor breaks the query", async () => {
    expect(await slugsFor("100%")).toEqual(["weather"]);
    expect(await slugsFor("%")).toEqual([]);
    expect(await slugsFor("_ & | ! ( :*")).toEqual([]);
  });

  it("ranks a name match above a description match", async () => {
    await api({ slug: "other", name: "Other", description: "Talks about weather a lot." });
    expect(await slugsFor("weather")).toEqual(["weather", "other"]);
  });

  it("combines search with a tag filter and counts only matches", async () => {
    const result = await list({ search: "bitcoin", tag: "geo" });
    expect(result).toMatchObject({ entries: [], total: 0 });
  });
});

describe("listDirectory sort", () => {
  it("sorts by name for relevance without a search, newest first for recent", async () => {
    await api({ slug: "b", name: "Bravo", createdAt: new Date("2026-01-01T00:00:00Z") });
    await api({ slug: "a", name: "alpha", createdAt: new Date("2026-01-03T00:00:00Z") });
    await api({ slug: "c", name: "Charlie", createdAt: new Date("2026-01-02T00:00:00Z") });
    expect((await list({ sort: "relevance" })).entries.map((e) => e.slug)).toEqual(["a", "b", "c"]);
    expect((await list({ sort: "recent" })).entries.map((e) => e.slug)).toEqual(["a", "c", "b"]);
  });
});
