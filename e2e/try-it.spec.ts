// "Try it" on the API page against the real server: the browser calls the gateway, pays the 402
// (an injected WebLN provider that pays through the dev node, the dev-wallet button, or a QR code
// paid from outside the page) and shows the response; session tokens and credit are reused; a
// stream is read live in the viewer and stops at its limits.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { injectWebln, payments } from "./try-it-helpers.ts";
import { demo } from "./demo.ts";

/** Opens the API page and the try-it panel of one endpoint; returns the endpoint's card. */
async function openTryIt(page: Page, title: string): Promise<Locator> {
  await page.goto(`/directory/${demo.slug}`);
  const card = page.getByRole("article", { name: title });
  await card.getByRole("button", { name: /^Try it/ }).click();
  return card;
}

const response = (card: Locator) => card.getByRole("region", { name: "Response" });

async function expectHeader(card: Locator, name: string, value: string | RegExp) {
  const headers = response(card).getByLabel("Response headers");
  await expect(headers.locator("dt", { hasText: new RegExp(`^${name}$`) })).toBeVisible();
  await expect(headers.locator("dt", { hasText: new RegExp(`^${name}$`) }).locator("xpath=following-sibling::dd[1]")).toHaveText(value);
}

test("WebLN pays a per_request call: price first, then the response with its payment headers and time", async ({ page }) => {
  await injectWebln(page);
  const card = await openTryIt(page, demo.paid.title);
  await expect(card.locator("p", { hasText: "Price:" })).toContainText(demo.paid.price);
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(response(card)).toContainText("200");
  await expectHeader(card, "X-Hub-Payment", "charged");
  await expectHeader(card, "X-Request-Id", /^[0-9a-f-]{36}$/);
  await expect(response(card).getByLabel("Response body")).toContainText('"fortune":');
  await expect(response(card)).toContainText(/Took \d+ ms|Took \d+\.\d s/);
  await expect(response(card)).toContainText("with paying 1 sat");
  expect(await payments(page)).toBe(1);
});

test("a session model is paid once and its token reused on the next call", async ({ page }) => {
  await injectWebln(page);
  const card = await openTryIt(page, demo.session.title);
  await expect(card.getByLabel(/^name/)).toHaveValue("satoshi");
  await card.getByLabel(/^name/).fill("alice");
  await card.getByLabel(/^count/).fill("4");
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(response(card)).toContainText("200");
  await expectHeader(card, "X-Session-Balance", "4");
  await expectHeader(card, "X-Session-Token", /.+/);
  await expect(response(card).getByLabel("Response body")).toContainText('"name": "alice"');
  await expect(card.getByText("session active, balance 4")).toBeVisible();

  await card.getByRole("button", { name: "Send (session token)" }).click();
  await expectHeader(card, "X-Session-Balance", "3");
  await expect(response(card)).not.toContainText("with paying");
  expect(await payments(page)).toBe(1);
});

test("prepaid credit is bought once and spent on later calls", async ({ page }) => {
  await injectWebln(page);
  const card = await openTryIt(page, demo.paid.title);
  await card.getByText("Buy prepaid credit").click();
  await card.getByLabel("Credit in sats").fill("5");
  await card.getByRole("button", { name: "Buy credit and send" }).click();
  await expect(response(card)).toContainText("200");
  await expect(response(card)).toContainText("with paying 5 sats");
  await expectHeader(card, "X-Session-Balance", "4");
  await expect(card.getByText("credit left: 4 sats")).toBeVisible();

  await card.getByRole("button", { name: "Send (pay from credit)" }).click();
  await expectHeader(card, "X-Session-Balance", "3");
  await expect(card.getByText("credit left: 3 sats")).toBeVisible();
  expect(await payments(page)).toBe(1);
});

test("the live viewer shows a paid stream's events and stops at 100 events, at the end, or when told", async ({ page }) => {
  test.setTimeout(60_000);
  await injectWebln(page);
  const card = await openTryIt(page, demo.stream.title);
  const log = card.getByRole("log", { name: "Stream events" });

  await card.getByLabel(/^count/).fill("3");
  await card.getByLabel(/^intervalMs/).fill("50");
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(card.locator("[data-stop-reason]")).toHaveAttribute("data-stop-reason", "ended", { timeout: 20_000 });
  await expect(card.locator("[data-stop-reason]")).toHaveText("The stream ended.");
  await expect(log.getByRole("listitem")).toHaveCount(4);
  await expect(log.getByRole("listitem").first()).toContainText("block");
  await expect(log.getByRole("listitem").first()).toContainText('"height":');
  await expect(log.getByRole("listitem").last()).toContainText("end");

  await card.getByLabel(/^count/).fill("150");
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(card.locator("[data-stop-reason]")).toHaveAttribute("data-stop-reason", "limit_reached", { timeout: 30_000 });
  await expect(card.locator("[data-stop-reason]")).toContainText("Stopped after 100 events");
  await expect(log.getByRole("listitem")).toHaveCount(100);
  await expect(log.getByRole("listitem").last()).toContainText("#100");

  await card.getByLabel(/^intervalMs/).fill("500");
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(log.getByRole("listitem").filter({ hasText: "#1" }).first()).toBeVisible({ timeout: 20_000 });
  await card.getByRole("button", { name: "Stop stream" }).click();
  await expect(card.locator("[data-stop-reason]")).toHaveAttribute("data-stop-reason", "stopped");
  await expect(card.locator("[data-stop-reason]")).toHaveText("You stopped the stream.");
  expect(await payments(page)).toBe(3);
});

test("without WebLN the invoice is shown as a QR code; paid from elsewhere, the page finishes the call", async ({ page, request }) => {
  const card = await openTryIt(page, demo.paid.title);
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  const invoicePanel = card.getByRole("group", { name: "Lightning invoice" });
  await expect(invoicePanel.getByRole("img", { name: "QR code of the Lightning invoice" })).toBeVisible();
  await expect(card.getByRole("list", { name: "Payment steps" })).toContainText("1. Invoice");
  const invoice = await invoicePanel.getByLabel("Invoice (BOLT11)").inputValue();
  expect(invoice).toMatch(/^lnbcrt/);
  await expect(invoicePanel.getByRole("button", { name: "Copy invoice" })).toBeVisible();

  // A phone wallet pays it: the page learns of it through /api/l402/settlement.
  const paid = await request.post("/api/dev/lightning/pay", { data: { invoice } });
  expect(paid.status()).toBe(200);
  await expect(response(card)).toContainText("200", { timeout: 20_000 });
  await expectHeader(card, "X-Hub-Payment", "charged");
  await expect(response(card).getByLabel("Response body")).toContainText('"fortune":');
});

test("the dev wallet button pays the invoice", async ({ page }) => {
  const card = await openTryIt(page, demo.paid.title);
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await card.getByRole("button", { name: "Pay with dev wallet" }).click();
  await expect(response(card)).toContainText("200");
  await expectHeader(card, "X-Hub-Payment", "charged");
});

test("a rejected WebLN payment is reported and the other ways to pay stay open; Cancel ends it", async ({ page }) => {
  await injectWebln(page, { reject: true });
  const card = await openTryIt(page, demo.paid.title);
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  const invoicePanel = card.getByRole("group", { name: "Lightning invoice" });
  await expect(invoicePanel).toContainText("Your WebLN wallet did not pay (User rejected the payment)");
  await expect(invoicePanel.getByRole("img", { name: "QR code of the Lightning invoice" })).toBeVisible();
  await expect(invoicePanel.getByRole("button", { name: "Pay with WebLN wallet" })).toBeEnabled();
  await invoicePanel.getByRole("button", { name: "Cancel" }).click();
  await expect(invoicePanel).toBeHidden();
  await expect(card.getByRole("button", { name: "Send (pay 1 sat)" })).toBeEnabled();
});

test("a required path parameter left empty is named before anything is sent", async ({ page }) => {
  const card = await openTryIt(page, demo.session.title);
  await card.getByLabel(/^name/).fill("");
  await card.getByRole("button", { name: "Send (pay 1 sat)" }).click();
  await expect(card.getByText("name is required")).toBeVisible();
  await expect(card.getByLabel(/^name/)).toHaveAttribute("aria-invalid", "true");
  await expect(response(card)).toHaveCount(0);
});
