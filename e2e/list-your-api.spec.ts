// The "List your L402 API" page and an external listing in the directory, against the real server:
// problems shown beside their fields (the browser's own checks, and the API's 422 as documented),
// a real submission followed until the review decides, an approved listing's API page marked as
// independently operated, a suspended one gone. Listings
// are seeded through the development-only POST /api/dev/external-listings (the server's embedded
// database belongs to its process).
import { readFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";

/** A slug per browser project: both projects run every test against one server. */
const slugFor = (base: string, project: string) => `${base}-${project}`.toLowerCase().replace(/[^a-z0-9-]/g, "-");

async function fillValidForm(page: Page, slug: string) {
  await page.getByLabel("Name").fill("Sky Oracle");
  await page.getByLabel("Slug").fill(slug);
  await page.getByLabel("Description").fill("Forecasts from an independently run gateway.");
  await page.getByLabel("Tags").fill("weather, forecast");
  await page.getByLabel("Gateway address").fill("https://gw.sky-oracle.example");
  await page.getByLabel("Contact e-mail").fill("ops@sky-oracle.example");
}

test("a bad submission shows each problem beside its field, and nothing is sent", async ({ page }) => {
  let posted = false;
  await page.route("**/api/external-listings", (route) => {
    posted = true;
    return route.continue();
  });
  await page.goto("/directory");
  await page.getByRole("link", { name: "List your L402 API" }).first().click();
  await expect(page).toHaveURL("/list-your-api");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("List your L402 API");

  await page.getByLabel("Name").fill("Sky Oracle");
  await page.getByLabel("Slug").fill("ab");
  await page.getByLabel("Gateway address").fill("http://gw.sky-oracle.example");
  await page.getByLabel("Contact e-mail").fill("not-an-address");
  await page.getByRole("button", { name: "Add an endpoint" }).click();
  const endpoint = page.getByRole("group", { name: "Endpoint 1" });
  await endpoint.getByLabel("Path").fill("v1/forecast");
  await endpoint.getByLabel("Price (sats)").fill("five");
  await page.getByRole("button", { name: "Submit for review" }).click();

  await expect(page.getByLabel("Slug")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Slug")).toHaveAccessibleDescription(/must be 3 to 63 characters/);
  await expect(page.getByLabel("Slug")).toBeFocused();
  await expect(page.getByLabel("Gateway address")).toHaveAccessibleDescription(/must use https/);
  await expect(page.getByLabel("Contact e-mail")).toHaveAccessibleDescription(/must be an e-mail address/);
  await expect(endpoint.getByLabel("Path")).toHaveAccessibleDescription(/must start with \//);
  await expect(endpoint.getByLabel("Price (sats)")).toHaveAccessibleDescription(/must be a whole number of sats/);
  await expect(page.getByLabel("Name")).toHaveAttribute("aria-invalid", "false");
  expect(posted).toBe(false);
});

test("the API's 422 field errors land beside the fields they name", async ({ page }, testInfo) => {
  // The response the route documents (the platform's one error model, lib/errors): answered here so
  // the page's handling is pinned whatever the review would say of an unreachable example gateway.
  await page.route("**/api/external-listings", (route) =>
    route.fulfill({
      status: 422,
      contentType: "application/json",
      body: JSON.stringify({
        error: {
          code: "validation_failed",
          message: "Invalid request: gatewayUrl: must not point to a private or reserved address; tags.1: must be at most 64 characters",
          details: {
            fields: [
              { field: "gatewayUrl", message: "must not point to a private or reserved address", rule: "blocked_address" },
              { field: "tags.1", message: "must be at most 64 characters" },
            ],
          },
        },
      }),
    }),
  );
  await page.goto("/list-your-api");
  await fillValidForm(page, slugFor("sky-422", testInfo.project.name));
  await page.getByRole("button", { name: "Submit for review" }).click();
  await expect(page.getByLabel("Gateway address")).toHaveAccessibleDescription(/must not point to a private or reserved address/);
  // An item of the tag list (`tags.1`) belongs to the tags input, the first field with a problem.
  await expect(page.getByLabel("Tags")).toHaveAccessibleDescription(/must be at most 64 characters/);
  await expect(page.getByLabel("Tags")).toBeFocused();
  await expect(page.locator("#listing-form-error")).toHaveCount(0);
  await expect(page.getByLabel("Slug")).toHaveAttribute("aria-invalid", "false");
});

test("an approved listing has an API page marked as independently operated; a suspended one is gone", async ({ page, request }, testInfo) => {
  const slug = slugFor("e2e-sky-oracle", testInfo.project.name);
  const hidden = slugFor("e2e-sky-down", testInfo.project.name);
  const seeded = await request.post("/api/dev/external-listings", {
    data: {
      slug,
      name: `Sky Oracle ${testInfo.project.name}`,
      description: "Forecasts from an independently run gateway.",
      tags: ["weather", "external-e2e"],
      gatewayUrl: "https://gw.sky-oracle.example/base",
      endpoints: [
        { path: "/v1/forecast", method: "GET", title: "Forecast", description: "Tomorrow's weather.", pricingModel: "per_request", priceSats: 5 },
        { path: "/v1/status", method: "GET", title: "Status" },
      ],
    },
  });
  expect(seeded.status()).toBe(201);
  const suspended = await request.post("/api/dev/external-listings", {
    data: { slug: hidden, name: "Sky Down", gatewayUrl: "https://down.example", status: "suspended" },
  });
  expect(suspended.status()).toBe(201);

  await page.goto(`/directory?search=${encodeURIComponent(`Sky Oracle ${testInfo.project.name}`)}`);
  const card = page.getByRole("article").filter({ hasText: `Sky Oracle ${testInfo.project.name}` });
  await expect(card).toContainText("External");
  await card.getByRole("link", { name: `Sky Oracle ${testInfo.project.name}` }).click();

  await expect(page).toHaveURL(`/directory/${slug}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Sky Oracle ${testInfo.project.name}`);
  await expect(page.getByRole("note")).toContainText("Independently operated.");
  await expect(page.getByText("https://gw.sky-oracle.example/base", { exact: true })).toBeVisible();
  const forecast = page.getByRole("article", { name: "Forecast" });
  await expect(forecast).toContainText("/v1/forecast");
  await expect(forecast).toContainText("5 sats per request");
  await expect(page.getByRole("article", { name: "Status" })).toContainText("Free");
  // No try-it, MCP config or OpenAPI link: those belong to hosted gateways.
  await expect(page.getByRole("region", { name: /^Try / })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Use it from an agent" })).toHaveCount(0);
  await expect(page.getByRole("region", { name: "How to call it" })).toContainText("curl -i 'https://gw.sky-oracle.example/base/v1/forecast'");

  const detail = await (await request.get(`/api/directory/${slug}`)).json();
  expect(detail).toMatchObject({ slug, isExternal: true, walletPubkey: null });
  const tagged = await (await request.get("/api/directory?tag=external-e2e")).json();
  expect(tagged.entries.map((e: { slug: string }) => e.slug)).toContain(slug);

  expect((await request.get(`/api/directory/${hidden}`)).status()).toBe(404);
  const gone = await page.goto(`/directory/${hidden}`);
  expect(gone?.status()).toBe(404);
});

// The submission route and the review (lib/listings) against a real gateway: the gateway is a loopback
// HTTPS server with the e2e certificate the server trusts (as dashboard-ops.spec.ts's receiver),
// answering 200 without any L402 challenge, so the review decides against it and says why.
test("a submission is accepted and its live status is shown until the review decides", async ({ page }, testInfo) => {
  // The review job runs every 5 s and calls the gateway; the decision takes a few seconds more.
  test.setTimeout(150_000);
  const dir = process.env.E2E_WEBHOOK_CERT_DIR;
  if (!dir) throw new Error("E2E_WEBHOOK_CERT_DIR is set by playwright.config.ts");
  const gateway = https.createServer({ cert: readFileSync(path.join(dir, "cert.pem")), key: readFileSync(path.join(dir, "key.pem")) }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
  try {
    const slug = slugFor("sky-submitted", testInfo.project.name);
    await page.goto("/list-your-api");
    await fillValidForm(page, slug);
    await page.getByLabel("Gateway address").fill(`https://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
    await page.getByRole("button", { name: "Add an endpoint" }).click();
    const endpoint = page.getByRole("group", { name: "Endpoint 1" });
    await endpoint.getByLabel("Path").fill("/v1/forecast");
    await endpoint.getByLabel("Price (sats)").fill("5");
    await page.getByRole("button", { name: "Submit for review" }).click();
    await expect(page).toHaveURL(`/list-your-api?slug=${slug}`);
    await expect(page.getByRole("heading", { name: `Listing status: ${slug}` })).toBeVisible();
    await expect(page.getByRole("status")).toContainText(/Under review|Rejected/);
    await expect(page.getByRole("status")).toContainText("Rejected", { timeout: 90_000 });
    await expect(page.getByRole("heading", { name: "Review findings" })).toBeVisible();
    await expect(page.getByRole("term").filter({ hasText: "Review" })).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: "Failed" }).first()).toBeVisible();
    // The status survives a reload.
    await page.reload();
    await expect(page.getByRole("status")).toContainText("Rejected");
  } finally {
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
  }
});
