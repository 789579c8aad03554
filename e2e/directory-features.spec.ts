// Directory features against the real server: search, tag filter, pagination through the JSON API
// and the pages, the API page's health, badge, MCP config and OpenAPI link, the docs page, and the
// crawler and discovery surfaces.
import { expect, test } from "@playwright/test";
import { demo } from "./demo.ts";

test("search finds the demo API by a word of its endpoint and by a misspelt name", async ({ page }) => {
  await page.goto("/directory");
  await page.getByRole("searchbox", { name: "Search APIs" }).fill("fortun");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL("/directory?search=fortun");
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
  await page.goto("/directory?search=hbu%20demo%20api");
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
});

test("a tag chip filters and shows its count; the JSON API agrees", async ({ page, request }) => {
  await page.goto("/directory");
  const chip = page.getByRole("navigation", { name: "Filter by tag" }).getByRole("link", { name: /^demo/ });
  await expect(chip).toContainText("1");
  await chip.click();
  await expect(page).toHaveURL("/directory?tag=demo");
  await expect(page.getByRole("article")).toHaveCount(1);
  const api = await (await request.get("/api/directory?tag=DEMO")).json();
  expect(api.entries.map((e: { slug: string }) => e.slug)).toEqual([demo.slug]);
});

test("pagination past the end offers the way back; the API refuses out-of-range pages", async ({ page, request }) => {
  await page.goto("/directory?page=5");
  await expect(page.getByRole("heading", { name: "Nothing on this page" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the first page" }).click();
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
  const res = await request.get("/api/directory?page=1001&limit=51");
  expect(res.status()).toBe(400);
  const body = await res.json();
  expect(body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["limit", "page"]);
  // Dashboard tests running alongside list APIs of their own: count, do not assume one.
  const list = await (await request.get("/api/directory?limit=1&page=1")).json();
  expect(list.total).toBeGreaterThanOrEqual(1);
  expect(list.hasMore).toBe(list.total > 1);
});

test("the API page shows health history, the badge with its snippet, the MCP config and the OpenAPI link", async ({ page }) => {
  await page.goto(`/directory/${demo.slug}`);
  await expect(page.getByRole("heading", { name: "Health, last 7 days" })).toBeVisible();
  await expect(page.getByRole("img", { name: /uptime over 7 days|No health checks/ }).first()).toBeVisible();
  await expect(page.getByRole("img", { name: `L402 badge of ${demo.name}` })).toBeVisible();
  await expect(page.getByText(`[![L402: ${demo.name}](http://localhost:3100/api/badge/${demo.slug}.svg)]`)).toBeVisible();
  const agents = page.getByRole("region", { name: "Use it from an agent" });
  await expect(agents).toContainText('"l402-demo"');
  await expect(agents).toContainText(`"command": "npx",\n        "args": [\n          "-y",\n          "@l402-hub/sdk@`);
  await expect(agents).toContainText('"l402-demo-local-checkout"'); // npm start on loopback: development features on
  await expect(agents).toContainText(`"--gateway",\n          "${demo.gateway}"`);
  await expect(agents.getByRole("button", { name: "Copy MCP config" })).toBeVisible();
  await expect(page.getByRole("link", { name: "OpenAPI document" }).first()).toHaveAttribute("href", `${demo.gateway}/.well-known/openapi.json`);
});

test("the badge, discovery documents and crawler files are served", async ({ request }) => {
  const badge = await request.get(`/api/badge/${demo.slug}.svg`);
  expect(badge.headers()["content-type"]).toContain("image/svg+xml");
  expect(await badge.text()).toContain('role="img"');
  const openapi = await request.get(`${demo.gateway}/.well-known/openapi.json`);
  expect(openapi.status()).toBe(200);
  expect((await openapi.json()).paths["/v1/fortune"].get["x-l402-pricing"]).toMatchObject({ model: "per_request", priceSats: 1 });
  const llms = await (await request.get("/llms.txt")).text();
  expect(llms.startsWith("# L402 Hub\n")).toBe(true);
  expect(llms).toContain(`[${demo.name}](http://localhost:3100/directory/${demo.slug})`);
  const feed = await request.get("/api/directory/feed.json");
  expect(feed.headers()["content-type"]).toContain("application/feed+json");
});

test("the docs page explains paying and is in the navigation and the sitemap", async ({ page, request }) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Docs" }).click();
  await expect(page).toHaveURL("/docs");
  await expect(page).toHaveTitle("Docs · L402 Hub");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Docs");
  await expect(page.getByRole("region", { name: "Pay for a call" })).toContainText("Authorization: L402 <macaroon>:<preimage>");
  const pricing = page.getByRole("region", { name: "Pricing models" });
  for (const model of ["per_request", "per_kb", "token_bucket", "time_pass", "metered"]) await expect(pricing).toContainText(model);
  await expect(page.getByRole("region", { name: "Verify webhooks" })).toContainText("X-Webhook-Signature");
  await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", "Docs · L402 Hub");
  expect(await (await request.get("/sitemap.xml")).text()).toContain("<loc>http://localhost:3100/docs</loc>");
});
