// The provider's path to a priced, listed API in the browser: sign in through the dev mailbox,
// create a workspace, connect the dev wallet (after a refused LNbits key shown on its field), add
// one endpoint of each pricing model while reading the price and 402 previews, find the API in the
// public directory, edit and deactivate an endpoint (form and list switch), import from OpenAPI,
// delete an endpoint.
import { expect, test, type Page } from "@playwright/test";
import { createWorkspace, signInByEmail, unique } from "./dashboard-helpers.ts";

type ModelCase = {
  radio: RegExp;
  path: string;
  title: string;
  fields: Record<string, string>;
  price: string;
  challenge: string[];
};

const models: ModelCase[] = [
  {
    radio: /^Per request/,
    path: "/v1/quote",
    title: "Quote",
    fields: { "Price per request (sats)": "10" },
    price: "10 sats per request",
    challenge: ['"amountSats": 10'],
  },
  {
    radio: /^Per KB/,
    path: "/v1/history",
    title: "History",
    fields: { "Deposit (sats)": "500", "Sats per KB": "1" },
    price: "500 sats deposit, 1 sat per KB",
    challenge: ['"model": "per_kb"', '"unitCostSats": 1'],
  },
  {
    radio: /^Token bucket/,
    path: "/v1/search/{term}",
    title: "Search",
    fields: { "Price of the bundle (sats)": "500", "Requests per purchase": "1000" },
    price: "1,000 requests for 500 sats",
    challenge: ['"model": "token_bucket"', '"tokenBudget": 1000'],
  },
  {
    radio: /^Time pass/,
    path: "/v1/stream",
    title: "Live feed",
    fields: { "Price of the pass (sats)": "100", "Pass duration (minutes)": "60" },
    price: "100 sats for 60 minutes",
    challenge: ['"model": "time_pass"', '"durationMinutes": 60'],
  },
  {
    radio: /^Metered/,
    path: "/v1/convert",
    title: "Convert",
    fields: { "Deposit (sats)": "200", "Sats per call": "2" },
    price: "200 sats deposit, 2 sats per call",
    challenge: ['"model": "metered"', '"unitCostSats": 2'],
  },
];

async function goToSection(page: Page, name: string) {
  await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name }).click();
}

test("wallet, one endpoint per pricing model with previews, directory, edit, deactivate, import", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const id = unique(testInfo);
  const slug = `px-${id}`.slice(0, 63).replace(/-+$/, "");
  await signInByEmail(page, `pricing-${id}@example.com`);
  await createWorkspace(page, "Prices", slug);

  // Wallet: nothing yet; a bad LNbits key is refused on its field; the dev node connects.
  await goToSection(page, "Wallet");
  await expect(page).toHaveURL(`/dashboard/${slug}/wallet`);
  const state = page.getByRole("region", { name: "Connected wallet" });
  await expect(state).toContainText("No wallet connected yet");
  await page.getByRole("radio", { name: /^LNbits/ }).check();
  await expect(page.getByText("Invoice/read key", { exact: true })).toBeVisible();
  await page.getByLabel("Instance URL").fill("https://lnbits.example.com");
  await page.getByLabel("Invoice/read key").fill("not-a-key");
  await page.getByRole("button", { name: "Test and connect" }).click();
  await expect(page.getByText("must be the wallet's invoice/read key (32 hex characters)")).toBeVisible();
  await expect(page.getByLabel("Invoice/read key")).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("radio", { name: /^Dev node/ }).check();
  await page.getByRole("button", { name: "Test and connect" }).click();
  await expect(page.getByText("Wallet connected: Dev Lightning node (regtest, built in)")).toBeVisible();
  await expect(state).toContainText("Dev Lightning node (regtest, built in)");
  await expect(state).toContainText(/0[23][0-9a-f]{64}/);
  await expect(state.getByRole("button", { name: "Disconnect wallet" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("wallet-connected.png"), fullPage: true });
  // Replacing asks first.
  await page.getByRole("button", { name: "Test and replace" }).click();
  await expect(page.getByRole("group", { name: "Confirm replacement" })).toBeVisible();
  await page.getByRole("button", { name: "Cancel" }).click();

  // Endpoints: the empty state, then one of each model.
  await goToSection(page, "Endpoints");
  await expect(page.getByRole("heading", { name: "No endpoints yet" })).toBeVisible();
  for (const model of models) {
    await page.getByRole("link", { name: "Add endpoint", exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: "New endpoint" })).toBeVisible();
    await page.getByLabel("Path").fill(model.path);
    await page.getByLabel("Title").fill(model.title);
    await page.getByRole("radio", { name: model.radio }).check();
    for (const [label, value] of Object.entries(model.fields)) await page.getByLabel(label, { exact: true }).fill(value);
    const preview = page.getByRole("complementary", { name: "Preview" });
    await expect(preview.getByRole("status", { name: "Price preview" })).toContainText(model.price);
    await expect(preview).toContainText('"error": "Payment Required"');
    for (const line of model.challenge) await expect(preview).toContainText(line);
    await page.screenshot({ path: testInfo.outputPath(`form-${model.title.toLowerCase().replaceAll(" ", "-")}.png`), fullPage: true });
    if (model.path === "/v1/history") {
      // per_kb cannot stream: the form says why before anything is sent.
      await page.getByRole("checkbox", { name: /^Streaming/ }).check();
      await expect(page.getByText(/per_kb endpoints cannot stream: a stream is priced as a connection/)).toBeVisible();
      await page.getByRole("checkbox", { name: /^Streaming/ }).uncheck();
    }
    if (model.path === "/v1/search/{term}") {
      await page.getByRole("button", { name: "Add parameter" }).click();
      await page.getByLabel("Name of parameter 1").fill("limit");
      await page.getByLabel("Type of parameter 1").selectOption("integer");
      await page.getByLabel("Example response (JSON, optional)").fill('{"results": [');
      await expect(page.getByText(/^is not valid JSON/)).toBeVisible();
      await page.getByLabel("Example response (JSON, optional)").fill('{"results": ["bitcoin"]}');
      await expect(page.getByText(/^is not valid JSON/)).toHaveCount(0);
    }
    if (model.path === "/v1/stream") await page.getByRole("checkbox", { name: /^Streaming/ }).check();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/endpoints`);
    await expect(page.getByRole("link", { name: `Edit GET ${model.path}` })).toBeVisible();
  }
  const list = page.getByRole("region", { name: "All endpoints" });
  for (const model of models) await expect(list).toContainText(model.price);
  await expect(list.getByRole("row", { name: /\/v1\/stream/ })).toContainText("Streaming");

  // The public directory lists the API now (a wallet and an active endpoint).
  await page.goto(`/directory/${slug}`);
  await expect(page.getByRole("heading", { level: 1, name: "Prices" })).toBeVisible();
  await expect(page.getByText("10 sats per request").first()).toBeVisible();
  await expect(page.getByText("1,000 requests for 500 sats").first()).toBeVisible();

  // Edit one: a new price, then deactivate it.
  await page.goto(`/dashboard/${slug}/endpoints`);
  await page.getByRole("link", { name: "Edit GET /v1/quote" }).click();
  await expect(page.getByLabel("Price per request (sats)")).toHaveValue("10");
  await page.getByLabel("Price per request (sats)").fill("20");
  await expect(page.getByRole("status", { name: "Price preview" })).toContainText("20 sats per request");
  await page.getByRole("checkbox", { name: /^Active/ }).uncheck();
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Saved GET /v1/quote")).toBeVisible();
  await page.getByRole("link", { name: "← Endpoints" }).click();
  const quoteRow = page.getByRole("region", { name: "All endpoints" }).getByRole("row", { name: /\/v1\/quote/ });
  await expect(quoteRow).toContainText("20 sats per request");
  await expect(quoteRow).toContainText("Inactive");
  // The list's switch turns it back on at once (optimistic), confirmed by the API.
  const activeSwitch = quoteRow.getByRole("switch", { name: "GET /v1/quote active" });
  await expect(activeSwitch).toHaveAttribute("aria-checked", "false");
  await activeSwitch.click();
  await expect(activeSwitch).toHaveAttribute("aria-checked", "true");
  await expect(page.getByText("GET /v1/quote activated")).toBeVisible();
  await activeSwitch.click();
  await expect(page.getByText("GET /v1/quote deactivated")).toBeVisible();
  await expect(activeSwitch).toHaveAttribute("aria-checked", "false");

  // Import from OpenAPI: one new operation, one that exists (skipped).
  const doc = {
    openapi: "3.1.0",
    info: { title: "Prices", version: "1" },
    paths: {
      "/v1/quote": { get: { summary: "Quote again", responses: { "200": { description: "ok" } } } },
      "/v1/rates": { get: { summary: "Rates", "x-l402-pricing": { model: "per_request", priceSats: 3 }, responses: { "200": { description: "ok" } } } },
    },
  };
  const importer = page.getByRole("region", { name: "Import from OpenAPI" });
  await importer.getByLabel("OpenAPI document (JSON)").fill(JSON.stringify(doc, null, 2));
  await importer.getByRole("checkbox", { name: "Skip endpoints that already exist" }).uncheck();
  await importer.getByRole("button", { name: "Import" }).click();
  await expect(importer.getByRole("alert", { name: "Import refused" })).toContainText("Already in this workspace: GET /v1/quote");
  await importer.getByRole("checkbox", { name: "Skip endpoints that already exist" }).check();
  await importer.getByRole("button", { name: "Import" }).click();
  const result = importer.getByRole("status", { name: "Import result" });
  await expect(result).toContainText("Created 1, skipped 1");
  await expect(result).toContainText("Created GET /v1/rates");
  await expect(result).toContainText("Skipped GET /v1/quote");
  await expect(page.getByRole("link", { name: "Edit GET /v1/rates" })).toBeVisible();
  await expect(page.getByRole("region", { name: "All endpoints" }).getByRole("row", { name: /\/v1\/rates/ })).toContainText("3 sats per request");

  // Delete the imported one, after confirming.
  await page.getByRole("link", { name: "Edit GET /v1/rates" }).click();
  await page.getByRole("button", { name: "Delete endpoint" }).click();
  await page.getByRole("group", { name: "Confirm deletion" }).getByRole("button", { name: "Yes, delete" }).click();
  await expect(page).toHaveURL(`/dashboard/${slug}/endpoints`);
  await expect(page.getByRole("link", { name: "Edit GET /v1/rates" })).toHaveCount(0);
});
