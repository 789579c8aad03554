// The route-planning API page draws answers on a map (issue 20 item 9): try-it finds the geometry in
// the JSON answer and draws it with Leaflet over the API's free basemap (OpenStreetMap ways fetched
// through the gateway: no tile server is reachable). The `routes` tenant appears once its origin has
// built the road graph, which a fresh data directory makes it do at this start.
import { expect, test, type Locator, type TestInfo } from "@playwright/test";
import { openTryItByPath, waitForEndpoint } from "./try-it-helpers.ts";

const slug = "routes";
const basemapPath = "/origin/v1/routes/basemap";
const directionsPath = "/origin/v1/routes/directions";
const attribution = "© OpenStreetMap contributors";

/** The map of the answer, checked to be labelled with what it draws. */
function answerMap(card: Locator): Locator {
  return card.getByRole("region", { name: "Response" }).getByRole("group", { name: /^Map of the answer: / });
}

async function attachScreenshot(map: Locator, testInfo: TestInfo, name: string) {
  const file = testInfo.outputPath(`${name}.png`);
  await map.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/** How many separate lines (SVG subpaths) a Leaflet path draws. */
async function subpathCount(path: Locator): Promise<number> {
  const d = (await path.getAttribute("d")) ?? "";
  return (d.match(/M/g) ?? []).length;
}

test("the free basemap draws its OpenStreetMap ways with their attribution", async ({ page, request }, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "one layout is enough for the free endpoint");
  test.setTimeout(300_000);
  await waitForEndpoint(request, slug, basemapPath);
  const card = await openTryItByPath(page, slug, basemapPath);
  await card.getByRole("button", { name: "Send" }).click();
  await expect(card.getByRole("region", { name: "Response" })).toContainText("200");

  const map = answerMap(card);
  await expect(map).toBeVisible();
  await expect(map).toHaveAccessibleName(/\d[\d,]* lines \([\d.]+ km in all\)/);
  // The basemap's own answer is not drawn over a second copy of itself.
  await expect(map).toHaveAttribute("data-basemap", "none");
  const ways = map.locator(".leaflet-overlay-pane path");
  await expect(ways.first()).toBeAttached();
  expect(await subpathCount(ways.first())).toBeGreaterThan(100);
  await expect(map.locator(".leaflet-control-attribution")).toContainText(attribution);
  // One tab stop for the map: markers and ways are not focusable one by one.
  await expect(map).toHaveAttribute("tabindex", "0");
  await attachScreenshot(map, testInfo, "basemap-map");
});

test("a paid directions answer is drawn: the route, numbered waypoints, the streets beneath", async ({ page, request }, testInfo) => {
  test.setTimeout(300_000);
  await waitForEndpoint(request, slug, directionsPath);
  const card = await openTryItByPath(page, slug, directionsPath);
  await card.getByRole("button", { name: /^Send \(pay \d+ sats?\)$/ }).click();
  await card.getByRole("button", { name: "Pay with dev wallet" }).click();
  const response = card.getByRole("region", { name: "Response" });
  await expect(response).toContainText("200", { timeout: 20_000 });
  await expect(response.getByLabel("Response body")).toContainText('"waypoints"');

  const map = answerMap(card);
  await expect(map).toBeVisible();
  // "Map of the answer: 1 line (3.2 km, 7 min); 2 numbered points; …": the stated distance and duration.
  await expect(map).toHaveAccessibleName(/^Map of the answer: \d+ lines? \([\d.]+ k?m, [^)]+\); \d+ numbered points/);
  // The route in the overlay pane, the basemap's ways (one path of many lines) beneath it.
  await expect(map.locator(".leaflet-overlay-pane path").first()).toBeAttached();
  await expect(map).toHaveAttribute("data-basemap", "drawn", { timeout: 20_000 });
  expect(await subpathCount(map.locator(".leaflet-basemap-pane path"))).toBeGreaterThan(50);
  await expect(map.locator(".leaflet-basemap-pane path")).toHaveCSS("stroke-width", /^1(\.\d+)?px$/);
  // The waypoints, numbered in order.
  const numbered = map.locator(".leaflet-marker-icon");
  expect(await numbered.count()).toBeGreaterThanOrEqual(2);
  await expect(numbered.first()).toHaveText("1");
  await expect(numbered.nth(1)).toHaveText("2");
  await expect(map.locator(".leaflet-control-attribution")).toContainText(attribution);
  await expect(card.locator("figcaption", { hasText: "Streets from the API's basemap." })).toBeVisible();
  await attachScreenshot(map, testInfo, "directions-map");
});

test("names in an answer are shown as text on the map, never run as markup", async ({ page, request }, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "one layout is enough");
  test.setTimeout(300_000);
  await waitForEndpoint(request, slug, basemapPath);
  // A hostile API's answer, as any tenant's origin could send it: labels carrying markup.
  const hostile = '<img src="x" onerror="window.__mapXss = 1">';
  await page.route("**/gw/routes/origin/v1/routes/basemap*", (route) =>
    route.fulfill({
      contentType: "application/json",
      body: JSON.stringify({
        type: "FeatureCollection",
        features: [
          {
            type: "Feature",
            properties: { name: hostile },
            geometry: {
              type: "LineString",
              coordinates: [
                [11.96, 57.7],
                [11.97, 57.705],
              ],
            },
          },
          { type: "Feature", properties: { name: hostile }, geometry: { type: "Point", coordinates: [11.965, 57.702] } },
        ],
        attribution: hostile,
      }),
    }),
  );
  const card = await openTryItByPath(page, slug, basemapPath);
  await card.getByRole("button", { name: "Send" }).click();
  const map = answerMap(card);
  await expect(map).toBeVisible();
  await map.locator(".leaflet-marker-icon").first().hover();
  await expect(map.locator(".leaflet-tooltip")).toContainText(hostile);
  await map.locator(".leaflet-overlay-pane path").first().hover({ force: true });
  await expect(map.locator('img[src="x"]')).toHaveCount(0);
  await expect(map.locator(".leaflet-control-attribution")).toContainText(hostile);
  expect(await page.evaluate(() => (window as unknown as { __mapXss?: number }).__mapXss)).toBeUndefined();
});
