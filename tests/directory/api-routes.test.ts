// The public directory API (spec 4.3) as clients call it: every route, every parameter bound,
// the JSON Feed (validated by a third-party parser), the badge SVG, llms.txt structure and the
// directory rate limits.
import { existsSync, readFileSync } from "node:fs";
import { XMLValidator } from "fast-xml-parser";
import { parseJsonFeed } from "feedsmith";
import { describe, expect, it } from "vitest";
import { GET as getMcpConfig } from "@/app/api/directory/[slug]/mcp-config/route.ts";
import { GET as getDetail } from "@/app/api/directory/[slug]/route.ts";
import { GET as getCategories } from "@/app/api/directory/categories/route.ts";
import { GET as getFeed } from "@/app/api/directory/feed.json/route.ts";
import { GET as getList } from "@/app/api/directory/route.ts";
import { GET as getBadge } from "@/app/api/badge/[slug]/route.ts";
import { GET as getLlms } from "@/app/llms.txt/route.ts";
import { GET as getLlmsFull } from "@/app/llms-full.txt/route.ts";
import type { RouteHandler } from "@/lib/api/handler.ts";
import { gatewayUrlFor } from "@/lib/config/index.ts";
import { directoryCategoriesSchema, directoryDetailSchema, directoryListSchema } from "@/lib/directory/schemas.ts";
import { useApiContext } from "@/tests/api/helpers.ts";
import { addSample, createApi } from "./fixtures.ts";

const api = useApiContext();
let ipCounter = 0;
/** Each test calls from its own address so the rate limits of one test never touch another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

async function get(handler: RouteHandler, path: string, params: Record<string, string> = {}, ip = freshIp()) {
  const req = new Request(`http://127.0.0.1:3000${path}`, { headers: { "x-hub-client-ip": ip } });
  const res = await handler(req, { params: Promise.resolve(params) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
const getJson = async (handler: RouteHandler, path: string, params: Record<string, string> = {}, ip?: string) => {
  const res = await get(handler, path, params, ip);
  return { ...res, body: JSON.parse(res.text) };
};

const make = (fixture: Parameters<typeof createApi>[2]) => createApi(api.test().db.prisma, api.test().config.appSecret, fixture);

async function seedTwo() {
  const weather = await make({
    slug: "weather",
    name: "Weather Now",
    description: "Current weather by city.",
    tags: ["Weather", "geo"],
    endpoints: [
      {
        path: "/v1/current",
        title: "Current weather",
        pricingModel: "per_request",
        priceSats: 3,
        exampleRequest: { query: { city: "Oslo" } },
        exampleResponse: { tempC: 4 },
        parameters: [{ name: "city", in: "query", required: true, type: "string", description: "City name" }],
      },
      { path: "/v1/ping", title: "Ping" },
    ],
  });
  await make({ slug: "market", name: "Market Intel", description: "Bitcoin candles.", tags: ["bitcoin"], createdAt: new Date("2026-01-01T00:00:00Z") });
  return weather;
}

describe("GET /api/directory", () => {
  it("lists with the spec 2.4 envelope, public cache and open CORS", async () => {
    await seedTwo();
    const res = await getJson(getList, "/api/directory");
    expect(res.status).toBe(200);
    expect(directoryListSchema.parse(res.body)).toEqual(res.body);
    expect(res.body).toMatchObject({ total: 2, hasMore: false, tags: ["bitcoin", "geo", "weather"] });
    expect(res.body.entries.map((e: { slug: string }) => e.slug)).toEqual(["market", "weather"]);
    expect(res.headers.get("cache-control")).toBe("public, max-age=30");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-ratelimit-limit")).toBe("100");
  });

  it("searches, filters by tag case-insensitively, sorts and paginates", async () => {
    await seedTwo();
    expect((await getJson(getList, "/api/directory?search=candles")).body.entries.map((e: { slug: string }) => e.slug)).toEqual(["market"]);
    expect((await getJson(getList, "/api/directory?tag=WEATHER")).body.total).toBe(1);
    expect((await getJson(getList, "/api/directory?sort=recent")).body.entries[0].slug).toBe("weather");
    const page2 = await getJson(getList, "/api/directory?limit=1&page=2");
    expect(page2.body).toMatchObject({ total: 2, hasMore: false });
    expect(page2.body.entries.map((e: { slug: string }) => e.slug)).toEqual(["weather"]);
    expect((await getJson(getList, "/api/directory?limit=1&page=1")).body.hasMore).toBe(true);
  });

  it("accepts the bounds: page 1 and 1000, limit 1 and 50, both sorts, unknown parameters", async () => {
    for (const qs of ["page=1", "page=1000", "limit=1", "limit=50", "sort=relevance", "sort=recent", "utm_source=x", "search=", "tag="]) {
      expect((await get(getList, `/api/directory?${qs}`)).status, qs).toBe(200);
    }
  });

  it.each([
    ["page=0", ["page"]],
    ["page=1001", ["page"]],
    ["page=abc", ["page"]],
    ["page=1.5", ["page"]],
    ["limit=0", ["limit"]],
    ["limit=51", ["limit"]],
    ["sort=popular", ["sort"]],
    [`search=${"x".repeat(201)}`, ["search"]],
    [`tag=${"x".repeat(65)}`, ["tag"]],
    ["page=2&page=3", ["page"]],
    ["page=0&limit=99&sort=x", ["page", "limit", "sort"]],
  ])("answers %s with 400 naming %j", async (qs, fields) => {
    const res = await getJson(getList, `/api/directory?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("bad_request");
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([...fields].sort());
    for (const field of fields) expect(res.body.error.message).toContain(`${field}:`);
  });
});

describe("GET /api/directory/:slug", () => {
  it("returns the detail view with walletPubkey, isExternal and parameters", async () => {
    await seedTwo();
    const res = await getJson(getDetail, "/api/directory/weather", { slug: "weather" });
    expect(res.status).toBe(200);
    expect(directoryDetailSchema.parse(res.body)).toEqual(res.body);
    expect(res.body).toMatchObject({
      slug: "weather",
      isExternal: false,
      walletPubkey: "02" + "ab".repeat(32),
      gatewayDomain: gatewayUrlFor(api.test().config, "weather"),
    });
    expect(res.body.endpoints[0].parameters).toEqual([{ name: "city", in: "query", required: true, type: "string", description: "City name" }]);
  });

  it("is 404 for an unknown or unlisted slug", async () => {
    await make({ slug: "hidden", listed: false });
    for (const slug of ["nope", "hidden"]) {
      const res = await getJson(getDetail, `/api/directory/${slug}`, { slug });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
  });
});

describe("GET /api/directory/:slug/mcp-config", () => {
  it("returns a config that runs the MCP server by package name, plus the local checkout's in development", async () => {
    await seedTwo();
    const res = await getJson(getMcpConfig, "/api/directory/weather/mcp-config", { slug: "weather" });
    expect(res.status).toBe(200);
    const gateway = gatewayUrlFor(api.test().config, "weather");
    const env = { HUB_WALLET: "dev", HUB_DEV_WALLET_URL: `${api.test().config.apiUrl}/dev/lightning/pay`, HUB_BUDGET_SATS: "1000" };
    const sdkVersion = JSON.parse(readFileSync(new URL("../../packages/sdk/package.json", import.meta.url), "utf8")).version;
    expect(Object.keys(res.body.mcpServers)).toEqual(["l402-weather", "l402-weather-local-checkout"]);
    expect(res.body.mcpServers["l402-weather"]).toEqual({ command: "npx", args: ["-y", `@l402-hub/sdk@${sdkVersion}`, "--gateway", gateway], env });
    const local = res.body.mcpServers["l402-weather-local-checkout"];
    expect(api.test().config.devFeatures).toBe(true);
    expect(local.command).toBe(process.execPath);
    expect(existsSync(local.command)).toBe(true);
    expect(existsSync(local.args[0])).toBe(true); // the checkout's tsx
    expect(local.args[1]).toMatch(/packages\/sdk\/src\/mcp\/server\.ts$/);
    expect(existsSync(local.args[1])).toBe(true);
    expect(local.args.slice(2)).toEqual(["--gateway", gateway]);
    expect(local.env).toEqual(env);
    expect(res.body.tools).toEqual([
      {
        name: "get_v1_current",
        description: "Current weather",
        url: `${gateway}/v1/current`,
        method: "GET",
        costSats: 3,
        pricingModel: "per_request",
        exampleInput: { city: "Oslo" },
        inputSchema: { type: "object", properties: { city: { type: "string", description: "City name (query)" } }, required: ["city"] },
      },
      { name: "get_v1_ping", description: "Ping", url: `${gateway}/v1/ping`, method: "GET", inputSchema: { type: "object", properties: {} } },
    ]);
    expect(res.body.metadata).toEqual({
      name: "Weather Now",
      description: "Current weather by city.",
      tags: ["Weather", "geo"],
      gateway,
      discoveryUrl: `${gateway}/.well-known/l402-gateway.json`,
      openApiUrl: `${gateway}/.well-known/openapi.json`,
      mcpPackage: `@l402-hub/sdk@${sdkVersion}`,
      localCheckout: expect.stringContaining("works on this machine only"),
    });
  });

  it("is 404 for an unlisted API", async () => {
    expect((await get(getMcpConfig, "/api/directory/nope/mcp-config", { slug: "nope" })).status).toBe(404);
  });
});

describe("GET /api/directory/categories", () => {
  it("counts tags case-insensitively, most used first, with the number of categories", async () => {
    await seedTwo();
    await make({ slug: "geo2", tags: ["GEO"] });
    const res = await getJson(getCategories, "/api/directory/categories");
    expect(res.status).toBe(200);
    expect(directoryCategoriesSchema.parse(res.body)).toEqual({
      categories: [
        { tag: "geo", count: 2 },
        { tag: "bitcoin", count: 1 },
        { tag: "weather", count: 1 },
      ],
      total: 3,
    });
  });
});

describe("GET /api/directory/feed.json", () => {
  it("is a valid JSON Feed 1.1 with the _hub extension, newest first", async () => {
    await seedTwo();
    const res = await get(getFeed, "/api/directory/feed.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/feed+json; charset=utf-8");
    const feed = JSON.parse(res.text);
    // A third-party parser accepts it as JSON Feed...
    const parsed = parseJsonFeed(res.text) as { title?: string; items?: { id?: string }[] };
    expect(parsed.title).toBe(feed.title);
    expect(parsed.items?.map((i) => i.id)).toEqual(feed.items.map((i: { id: string }) => i.id));
    // ...and the spec's required fields are there (jsonfeed.org/version/1.1).
    expect(feed.version).toBe("https://jsonfeed.org/version/1.1");
    expect(typeof feed.title).toBe("string");
    for (const item of feed.items) {
      expect(typeof item.id).toBe("string");
      expect(typeof item.content_text === "string" || typeof item.content_html === "string").toBe(true);
      expect(new Date(item.date_published).toISOString()).toBe(item.date_published);
      for (const key of Object.keys(item))
        expect(["id", "url", "title", "content_text", "summary", "date_published", "date_modified", "tags", "_hub"]).toContain(key);
    }
    expect(feed.items.map((i: { _hub: { slug: string } }) => i._hub.slug)).toEqual(["weather", "market"]);
    expect(feed.items[0]._hub).toEqual({
      slug: "weather",
      gateway: gatewayUrlFor(api.test().config, "weather"),
      endpointCount: 2,
      endpoints: [
        { method: "GET", path: "/v1/current", pricingModel: "per_request", priceSats: 3 },
        { method: "GET", path: "/v1/ping", pricingModel: null, priceSats: 0 },
      ],
      isExternal: false,
    });
    expect(feed.items[0].content_text).toContain("Current weather by city.");
  });
});

describe("GET /api/badge/:slug.svg", () => {
  const svgOf = (res: { text: string }) => {
    expect(XMLValidator.validate(res.text)).toBe(true);
    return res.text;
  };

  it("is a well-formed, accessible shields-style SVG with price and health", async () => {
    const id = await seedTwo();
    await addSample(api.test().db.prisma, { tenantId: id, path: "/v1/current", ok: true, latencyMs: 20, checkedAt: new Date() });
    const res = await get(getBadge, "/api/badge/weather.svg", { slug: "weather.svg" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    const svg = svgOf(res);
    expect(svg).toMatch(/^<svg [^>]*height="20"/);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-label="L402: 3 sats · 100% up"');
    expect(svg).toContain("<title>L402: 3 sats · 100% up</title>");
  });

  it("says when an API is down or not yet checked, and counts free endpoints", async () => {
    const id = await make({ slug: "free", endpoints: [{ path: "/a" }, { path: "/b" }] });
    expect(svgOf(await get(getBadge, "/api/badge/free.svg", { slug: "free.svg" }))).toContain("<title>L402: free · 2 endpoints · not checked yet</title>");
    await addSample(api.test().db.prisma, { tenantId: id, path: "/a", ok: false, checkedAt: new Date() });
    expect(svgOf(await get(getBadge, "/api/badge/free.svg", { slug: "free.svg" }))).toContain("down · 0% up");
  });

  it("draws a grey 'not listed' badge with 404, needs .svg and validates style", async () => {
    await seedTwo();
    const missing = await get(getBadge, "/api/badge/nope.svg", { slug: "nope.svg" });
    expect(missing.status).toBe(404);
    expect(svgOf(missing)).toContain("<title>L402: not listed</title>");
    expect((await get(getBadge, "/api/badge/weather", { slug: "weather" })).status).toBe(404);
    expect(svgOf(await get(getBadge, "/api/badge/weather.svg?style=for-the-badge", { slug: "weather.svg" }))).toContain('role="img"');
    const bad = await getJson(getBadge, "/api/badge/weather.svg?style=round", { slug: "weather.svg" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("style");
  });
});

describe("directory rate limits", () => {
  it("allows 100 requests per minute per path and IP, then 429 with Retry-After; other paths and IPs go on", async () => {
    const ip = freshIp();
    for (let i = 0; i < 100; i++) expect((await get(getCategories, "/api/directory/categories", {}, ip)).status).toBe(200);
    const limited = await getJson(getCategories, "/api/directory/categories", {}, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    expect((await get(getFeed, "/api/directory/feed.json", {}, ip)).status).toBe(200);
    expect((await get(getCategories, "/api/directory/categories", {}, freshIp())).status).toBe(200);
  });

  it("counts every slug under one path template", async () => {
    const ip = freshIp();
    for (let i = 0; i < 100; i++) expect((await get(getDetail, `/api/directory/a${i}`, { slug: `a${i}` }, ip)).status).toBe(404);
    expect((await get(getDetail, "/api/directory/other", { slug: "other" }, ip)).status).toBe(429);
  });

  it("allows 300 requests per minute per IP across all paths", async () => {
    const ip = freshIp();
    const handlers: [RouteHandler, string][] = [
      [getCategories, "/api/directory/categories"],
      [getFeed, "/api/directory/feed.json"],
      [getList, "/api/directory"],
    ];
    for (const [handler, path] of handlers) for (let i = 0; i < 100; i++) expect((await get(handler, path, {}, ip)).status).toBe(200);
    const res = await getJson(getBadge, "/api/badge/x.svg", { slug: "x.svg" }, ip);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toContain("300 per minute on the directory API");
  });
});

describe("llms.txt and llms-full.txt", () => {
  it("follows the llmstxt.org structure with how to pay, the five models and the APIs", async () => {
    await seedTwo();
    const res = await get(getLlms, "/llms.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const lines = res.text.split("\n");
    expect(lines[0]).toBe("# L402 Hub");
    const firstContent = lines.slice(1).find((l) => l.trim() !== "");
    expect(firstContent).toMatch(/^> \S/);
    // Only one H1, no other heading before the first "## " section.
    const sectionStart = lines.findIndex((l) => l.startsWith("## "));
    expect(lines.slice(1, sectionStart).some((l) => /^#{1,6} /.test(l))).toBe(false);
    // Every section is a list of links with optional notes.
    const sections = res.text.split(/\n(?=## )/).slice(1);
    expect(sections.map((s) => s.split("\n")[0])).toEqual(["## APIs", "## Directory API", "## Docs", "## Optional"]);
    for (const section of sections) {
      const items = section
        .split("\n")
        .slice(1)
        .filter((l) => l.trim() !== "");
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) expect(item).toMatch(/^- \[[^\]]+\]\((https?:\/\/[^)\s]+)\)(: .+)?$/);
    }
    for (const model of ["per_request", "per_kb", "token_bucket", "time_pass", "metered"]) expect(res.text).toContain(`\`${model}\``);
    expect(res.text).toContain("Authorization: L402 <macaroon>:<preimage>");
    expect(res.text).toContain(`- [Weather Now](http://127.0.0.1:3000/directory/weather): Current weather by city.`);
    expect(res.text).toContain("2 APIs are listed");
  });

  it("llms-full.txt has every API with every endpoint, price, parameters and example", async () => {
    await seedTwo();
    const res = await get(getLlmsFull, "/llms-full.txt");
    expect(res.status).toBe(200);
    expect(res.text.startsWith("# L402 Hub: every listed API\n")).toBe(true);
    expect(res.text).toContain("## Market Intel");
    expect(res.text).toContain("## Weather Now");
    expect(res.text).toContain("### GET /v1/current: Current weather");
    expect(res.text).toContain("Price: 3 sats per request (pricingModel per_request, priceSats 3)");
    expect(res.text).toContain("- `city` (query, string, required): City name");
    expect(res.text).toContain(`curl -i '${gatewayUrlFor(api.test().config, "weather")}/v1/current?city=Oslo'`);
    expect(res.text).toContain('"tempC": 4');
    expect(res.text).toContain("### GET /v1/ping: Ping");
    expect(res.text).toContain("Price: Free (free)");
  });
});
