// The free try on the API page: a signed-in visitor gets one free call per endpoint per UTC day
// (X-Free-Try: used), then the normal L402 flow; signed-out visitors do not see the button.
import { expect, test } from "@playwright/test";
import { demo } from "./demo.ts";

test("a signed-in visitor's free try answers without payment, once a day", async ({ page }, testInfo) => {
  await page.goto(`/directory/${demo.slug}`);
  let card = page.getByRole("article", { name: demo.paid.title });
  await card.getByRole("button", { name: /^Try it/ }).click();
  await expect(card.getByRole("button", { name: "Free try" })).toHaveCount(0);

  // Sign in through the dev mailbox and come back to the API page.
  const email = `free-try-${testInfo.project.name}-${testInfo.workerIndex}-${Date.now().toString(36)}@example.com`;
  await page.goto(`/signin?callbackUrl=${encodeURIComponent(`/directory/${demo.slug}`)}`);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByRole("button", { name: "Send sign-in link" }).click();
  await page.getByRole("link", { name: "dev mailbox" }).click();
  await page
    .getByRole("article", { name: `E-mail to ${email}` })
    .first()
    .getByRole("link", { name: "Open the sign-in link" })
    .click();
  await expect(page).toHaveURL(`/directory/${demo.slug}`);

  card = page.getByRole("article", { name: demo.paid.title });
  await card.getByRole("button", { name: /^Try it/ }).click();
  await card.getByRole("button", { name: "Free try" }).click();
  const response = card.getByRole("region", { name: "Response" });
  await expect(response).toContainText("200");
  const headers = response.getByLabel("Response headers");
  await expect(headers.locator("dt", { hasText: /^X-Free-Try$/ }).locator("xpath=following-sibling::dd[1]")).toHaveText("used");
  await expect(response.getByLabel("Response body")).toContainText('"fortune":');

  // The day's free call is spent: the next free try meets the paywall (an invoice to pay).
  await card.getByRole("button", { name: "Free try" }).click();
  await expect(card.getByRole("button", { name: "Pay with dev wallet" })).toBeVisible();
});
