// The home page and the health route, as a first-time visitor and a load balancer see them.
import { expect, test } from "@playwright/test";
import { demo } from "./demo.ts";

test("home explains the product and shows the demo API", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveTitle(/L402 Hub/);
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Pay-per-call APIs");
  await expect(page.getByText("Lightning invoice", { exact: false }).first()).toBeVisible();

  // Scoped: once the demo API is called (other tests do), it also shows under "Most used".
  // Recently listed, or (once other specs have listed newer APIs and called the demo) Most used.
  const card = page.getByRole("article").filter({ hasText: demo.name }).first();
  await expect(card).toBeVisible();
  await expect(card).toContainText(demo.description);
  await expect(card).toContainText("1 sat");

  await card.getByRole("link", { name: demo.name }).click();
  await expect(page).toHaveURL(`/directory/${demo.slug}`);
  await expect(page.getByRole("heading", { level: 1, name: demo.name })).toBeVisible();
});

test("home lists an API under Most used once it has answered calls", async ({ page, request }) => {
  // The free demo endpoint, straight through the gateway; the gateway writes usage every 2 s.
  expect((await request.get(`${demo.gateway}${demo.free.path}`)).status()).toBe(200);
  await expect(async () => {
    await page.goto("/");
    await expect(page.getByRole("region", { name: "Most used" }).getByRole("article").filter({ hasText: demo.name })).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
});

test("home shows how paying works with the L402 retry header", async ({ page }) => {
  await page.goto("/");
  const how = page.getByRole("region", { name: "How paying works" });
  await expect(how).toContainText("402 Payment Required");
  await expect(how).toContainText("Authorization: L402 <macaroon>:<preimage>");
  // The cheapest per_request endpoint among the newest APIs: the demo's, unless a dashboard test
  // running alongside has just listed a cheaper one; either way a real gateway address.
  await expect(how).toContainText(/http:\/\/localhost:8502\/gw\/[a-z0-9-]+\/\S+/);
});

test("the home search form lands on directory results", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("searchbox", { name: "Search APIs" }).fill("fortune");
  await page.getByRole("searchbox", { name: "Search APIs" }).press("Enter");
  await expect(page).toHaveURL(/\/directory\?search=fortune$/);
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
});

test("a skip link leads to the main content", async ({ page }) => {
  await page.goto("/");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await skip.press("Enter");
  await expect(page).toHaveURL(/#main$/);
});

test("nothing overflows the viewport sideways", async ({ page }) => {
  for (const path of ["/", "/directory", `/directory/${demo.slug}`, "/docs"]) {
    await page.goto(path);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${path} is wider than the viewport`).toBeLessThanOrEqual(0);
  }
});

test("GET /api/health answers ok with the version", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(response.headers()["cache-control"]).toContain("no-store");
  // Every web answer names its request (lib/logging/request-id.ts); a client cannot choose it.
  expect(response.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  const again = await request.get("/api/health", { headers: { "x-request-id": "mine", "x-hub-request-id": "mine" } });
  expect(again.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(again.headers()["x-request-id"]).not.toBe(response.headers()["x-request-id"]);
  expect(await response.json()).toEqual({ status: "ok", database: "ok", store: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
});

test("a path that is not valid percent-encoding is a 400 that says so, not a 500", async ({ request }) => {
  for (const path of ["/directory/%ZZ", "/directory/%E0%A4%A"]) {
    const response = await request.get(path);
    expect(response.status(), path).toBe(400);
    expect((await response.json()).error).toEqual({ code: "bad_request", message: expect.stringContaining("percent-encoding") });
  }
});

test("robots.txt and the sitemap point at the listed API", async ({ request }) => {
  const robots = await (await request.get("/robots.txt")).text();
  expect(robots).toMatch(/Sitemap: http:\/\/localhost:3100\/sitemap\.xml/);
  const sitemap = await (await request.get("/sitemap.xml")).text();
  expect(sitemap).toContain(`<loc>http://localhost:3100/directory/${demo.slug}</loc>`);
});
