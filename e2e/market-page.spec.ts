// The market-intelligence API page (issue 21 item 7) against the real one-process server: the free
// live candle chart (lightweight-charts) and verdict card that the platform reads from the hosted
// `market` origin, a paid time_pass stream read live in try-it's viewer (hello frame, events,
// keep-alives), and the verdict summary's repeat sending If-None-Match and showing the 304.
// The `market` tenant appears once its origin has started (it backfills its history first).
import { expect, test, type Locator } from "@playwright/test";
import { injectWebln, openTryItByPath, payments, waitForEndpoint } from "./try-it-helpers.ts";

const slug = "market";
const verdictPath = "/v1/verdict";
const liquidationStreamPath = "/v1/derivatives/liquidations/stream";
const VERDICT_STATES = /^(QUIET|SPOT_ACCUMULATION|LEVERAGED_RALLY|LEVERAGED_CHOP|DELEVERAGING|CAPITULATION)$/;

const response = (card: Locator) => card.getByRole("region", { name: "Response" });

function header(card: Locator, name: string): Locator {
  return response(card)
    .getByLabel("Response headers")
    .locator("dt", { hasText: new RegExp(`^${name}$`, "i") })
    .locator("xpath=following-sibling::dd[1]");
}

test.beforeEach(async ({ request }) => {
  test.setTimeout(300_000);
  await waitForEndpoint(request, slug, verdictPath);
});

test("the live candle chart draws the API's candles with a text alternative, inside the screen", async ({ page }, testInfo) => {
  await page.goto(`/directory/${slug}`);
  const section = page.getByRole("region", { name: "Live chart" });
  await expect(section).toBeVisible();
  // The recorder may still be backfilling on a first start: the chart polls every 15 s by itself.
  const chart = section.getByTestId("candle-chart");
  await expect(chart).toBeVisible({ timeout: 120_000 });
  expect(Number(await chart.getAttribute("data-candles"))).toBeGreaterThanOrEqual(14);
  await expect(chart.locator("canvas").first()).toBeVisible();
  await expect(section.getByTestId("chart-summary")).toContainText(/Last (price|close) on \w+ \$[\d,]+\.\d{2}, (up|down|unchanged) .* over \d+ bars/);

  const box = await chart.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box!.width).toBeGreaterThan(200);
  expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
  await testInfo.attach(`chart-${testInfo.project.name}`, { body: await section.screenshot(), contentType: "image/png" });

  // The free preview the chart reads: real candles from the origin, oldest first, and nobody paid.
  const preview = await page.request.get(`/api/directory/${slug}/preview/chart`);
  expect(preview.status()).toBe(200);
  const body = (await preview.json()) as { candles: { time: number; close: number }[]; exchange: string };
  expect(body.candles.length).toBeGreaterThanOrEqual(14);
  expect(body.candles[1].time - body.candles[0].time).toBe(3600);
  expect(body.exchange).toBeTruthy();
  expect((await page.request.get(`/api/directory/routes/preview/chart`)).status()).toBe(404);
});

test("the verdict card shows state, bias, risk, confidence, conviction, evidence and the last change", async ({ page }) => {
  await page.goto(`/directory/${slug}`);
  const card = page.getByTestId("verdict-card");
  await expect(card.getByRole("heading", { name: "Market verdict" })).toBeVisible();
  await expect(card.getByTestId("verdict-state")).toHaveText(VERDICT_STATES, { timeout: 60_000 });
  await expect(card).toContainText(/Bias\s*(bullish|neutral|bearish)/);
  await expect(card).toContainText(/Risk\s*(LOW|MODERATE|ELEVATED|HIGH|UNKNOWN)/);
  await expect(card).toContainText(/Confidence\s*\d+ %/);
  await expect(card).toContainText(/Conviction\s*\d+ %/);
  await expect(card.getByRole("heading", { name: "Top evidence" })).toBeVisible();
  await expect(card.getByRole("listitem").first()).toContainText(/\/v1\//);
  await expect(card.getByTestId("verdict-changed")).toContainText(/Last change: (state|bias|risk|none since)/);
});

test("a paid liquidation stream shows its hello frame, liquidation events and keep-alives in the live viewer", async ({ page }) => {
  await injectWebln(page);
  const card = await openTryItByPath(page, slug, liquidationStreamPath);
  await card.getByLabel(/^min_size_usd/).fill("0");
  await card.getByRole("button", { name: "Send (pay 100 sats)" }).click();
  await expect(response(card)).toContainText("200");
  await expect(header(card, "X-Hub-Payment")).toHaveText("charged");
  const log = card.getByRole("log", { name: "Stream events" });
  await expect(log.getByRole("listitem").first()).toContainText("hello", { timeout: 20_000 });
  await expect(log.getByRole("listitem").first()).toContainText('"stream": "simulated"');
  // Liquidations fire as minutes close; a keep-alive comment comes every 15 s. An event is told by
  // its name badge (the hello frame's data names "liquidation" too).
  const liquidation = log.getByRole("listitem").filter({ has: page.locator("span", { hasText: /^liquidation$/ }) });
  await expect(liquidation.first()).toBeVisible({ timeout: 65_000 });
  await expect(liquidation.first()).toContainText(/"side": "(BUY|SELL)"/);
  await expect(liquidation.first()).toContainText(/"value_usd": \d/);
  await expect(card.getByTestId("keep-alives")).toContainText(/[1-9]\d* keep-alives?, last at \+/, { timeout: 65_000 });
  expect(await payments(page)).toBe(1);
});

test("repeating the verdict summary sends If-None-Match and shows 304 Not Modified", async ({ page }) => {
  await injectWebln(page);
  const card = await openTryItByPath(page, slug, verdictPath);
  await expect(card.getByLabel(/^view/)).toHaveValue("summary");
  await card.getByRole("button", { name: "Send (pay 15 sats)" }).click();
  await expect(response(card)).toContainText("200", { timeout: 30_000 });
  const etag = header(card, "ETag");
  await expect(etag).toHaveText(/^W\/".+"$/);
  const sent = (await etag.textContent())!;
  await expect(response(card).getByLabel("Response body")).toContainText('"view": "summary"');

  await card.getByRole("button", { name: "Send (pay 15 sats)" }).click();
  await expect(response(card)).toContainText("304", { timeout: 30_000 });
  await expect(response(card)).toContainText(`If-None-Match: ${sent}`);
  await expect(response(card)).toContainText("Not Modified: nothing changed");
  await expect(header(card, "ETag")).toHaveText(sent);
  await expect(header(card, "X-Hub-Payment")).toHaveText("charged");
  expect(await payments(page)).toBe(2);
});
