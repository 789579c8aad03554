// The README's pictures, taken from the running product so they never show a state a fresh start
// no longer has. Every run checks the pages render; `E2E_UPDATE_DOCS_IMAGES=1 npm run e2e --
// e2e/docs-screenshots.spec.ts --project=desktop` also writes them to docs/images/.
import path from "node:path";
import { expect, test } from "@playwright/test";
import { demo } from "./demo.ts";

const imagesDir = path.resolve(import.meta.dirname, "../docs/images");

/** Where this run keeps a picture: the docs when asked to update them, else the test's own output. */
function imagePath(name: string, outputPath: (name: string) => string): string {
  return process.env.E2E_UPDATE_DOCS_IMAGES === "1" ? path.join(imagesDir, name) : outputPath(name);
}

test.describe("README screenshots", () => {
  // Playwright reads the fixtures a hook wants from an object pattern, so an empty one it must be.
  // eslint-disable-next-line no-empty-pattern
  test.beforeEach(({}, testInfo) => test.skip(testInfo.project.name !== "desktop", "desktop pictures only"));

  test("home page", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto("/");
    await expect(page.getByRole("region", { name: "Recently listed" }).getByRole("article").filter({ hasText: demo.name })).toBeVisible();
    await page.screenshot({ path: imagePath("home.png", (n) => testInfo.outputPath(n)) });
  });

  test("API page", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 1280, height: 1100 });
    await page.goto(`/directory/${demo.slug}`);
    await expect(page.getByRole("heading", { level: 1, name: demo.name })).toBeVisible();
    // A fresh start has not probed the demo yet, or has found it up: never "Failing now".
    await expect(page.getByText("Failing now")).toHaveCount(0);
    await page.screenshot({ path: imagePath("api-page.png", (n) => testInfo.outputPath(n)) });
  });
});
