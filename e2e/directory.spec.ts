// The directory and an API page, with and without JavaScript.
import { expect, test } from "@playwright/test";
import { demo } from "./demo.ts";

test("the directory lists the demo API with its price, pricing and tags", async ({ page }) => {
  await page.goto("/directory");
  await expect(page).toHaveTitle("API directory · L402 Hub");
  const card = page.getByRole("article").filter({ hasText: demo.name });
  await expect(card).toBeVisible();
  await expect(card).toContainText("1 sat");
  await expect(card).toContainText("Per request, Token bucket, Free");
  await expect(card).toContainText("demo");
  await expect(card).toContainText("examples");
});

test("tag chips filter the directory", async ({ page }) => {
  await page.goto("/directory");
  const tags = page.getByRole("navigation", { name: "Filter by tag" });
  await tags.getByRole("link", { name: /^examples/ }).click();
  await expect(page).toHaveURL("/directory?tag=examples");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("APIs tagged #examples");
  await expect(tags.getByRole("link", { name: /^examples/ })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
});

test("a search without results says so and offers a way back", async ({ page }) => {
  await page.goto("/directory?search=no-such-api-anywhere");
  await expect(page.getByRole("heading", { name: "No APIs match" })).toBeVisible();
  await page.getByRole("link", { name: "Clear search and filters" }).click();
  await expect(page).toHaveURL("/directory");
  await expect(page.getByRole("article").filter({ hasText: demo.name })).toBeVisible();
});

test("the API page shows its endpoints with prices in words and how to call it", async ({ page }) => {
  await page.goto(`/directory/${demo.slug}`);
  await expect(page).toHaveTitle(`${demo.name} · L402 Hub`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(demo.name);
  await expect(page.getByText(demo.description).first()).toBeVisible();
  await expect(page.getByText(demo.gateway, { exact: true })).toBeVisible();

  const paid = page.getByRole("article", { name: demo.paid.title });
  await expect(paid).toContainText("GET");
  await expect(paid).toContainText(demo.paid.path);
  await expect(paid).toContainText(demo.paid.price);
  await expect(paid).toContainText("A watched mempool never clears.");

  const free = page.getByRole("article", { name: demo.free.title });
  await expect(free).toContainText(demo.free.path);
  await expect(free.getByText(demo.free.price, { exact: true }).first()).toBeVisible();

  const how = page.getByRole("region", { name: "How to call it" });
  await expect(how).toContainText(`curl -i '${demo.gateway}${demo.paid.path}'`);
  await expect(how).toContainText("Authorization: L402 <macaroon>:<preimage>");
});

test("the API page describes itself to link previews", async ({ page }) => {
  await page.goto(`/directory/${demo.slug}`);
  await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", demo.description);
  await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", `${demo.name} · L402 Hub`);
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", `http://localhost:3100/directory/${demo.slug}`);
});

test("an unknown API slug is a 404 page", async ({ page }) => {
  const response = await page.goto("/directory/no-such-api");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This page does not exist");
  await expect(page.getByRole("link", { name: "Browse the directory" })).toBeVisible();
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("search, filter and the API page still work", async ({ page }) => {
    await page.goto("/directory");
    await page.getByRole("searchbox", { name: "Search APIs" }).fill("demo");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL("/directory?search=demo");
    await page.getByRole("link", { name: demo.name }).click();
    await expect(page.getByRole("article", { name: demo.paid.title })).toContainText(demo.paid.price);
    // No dead copy buttons when nothing can copy.
    await expect(page.getByRole("button", { name: /copy/i })).toHaveCount(0);
  });
});
