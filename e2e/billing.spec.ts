// The billing page and the danger zone against the real one-process server. A workspace without a
// trial (the operator's trialDays: 0) serves real calls through the gateway; the operator's clock
// (POST /api/admin/billing/run, with the admin token the server persisted under DATA_DIR) closes its
// cycle, invoices it from the platform wallet (the dev node) and suspends it a week later; the page
// shows the invoice and every page the suspension banner; paying with the dev wallet lifts both.
// Then the owner deletes the workspace by typing its slug: back on /dashboard, gateway URL 404.
//
// The billing clock is install-wide (every due transition of every workspace), so only the desktop
// project walks it: two walks at once would close each other's cycles.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { signInByEmail, slugFor, unique } from "./dashboard-helpers.ts";

const GATEWAY = "http://localhost:8502";
const MINUTE = 60_000;

/** The admin token the embedded server made on its first start (lib/config: persisted under DATA_DIR). */
function adminToken(): string {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is set by playwright.config.ts");
  return readFileSync(path.join(dir, "admin-token"), "utf8").trim();
}

/** A plain origin the gateway forwards to: 200 JSON for anything. */
async function startOrigin() {
  const server = http.createServer((req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A full-page screenshot kept with the test's artifacts. */
async function snapshot(page: Page, testInfo: TestInfo, name: string) {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/** A workspace made by the operator (trialDays as given) with an origin, the dev wallet and a priced + a free endpoint. */
async function operatorWorkspace(
  request: APIRequestContext,
  { slug, email, trialDays, originUrl }: { slug: string; email: string; trialDays: number; originUrl: string },
) {
  const admin = { authorization: `Bearer ${adminToken()}` };
  const created = await request.post("/api/admin/tenants", { headers: admin, data: { slug, name: `Billing ${slug}`, ownerEmail: email, trialDays } });
  expect(created.status(), await created.text()).toBe(201);
  const { tenantId, apiKey } = (await created.json()) as { tenantId: string; apiKey: string };
  const auth = { authorization: `Bearer ${apiKey}` };
  expect((await request.patch(`/api/tenants/${tenantId}`, { headers: auth, data: { originUrl } })).status()).toBe(200);
  expect((await request.put(`/api/tenants/${tenantId}/wallet`, { headers: auth, data: { type: "dev" } })).status()).toBe(200);
  for (const endpoint of [
    { method: "GET", path: "/v1/paid", pricingModel: "per_request", priceSats: 1 },
    { method: "GET", path: "/v1/free", pricingModel: null },
  ]) {
    const res = await request.post(`/api/tenants/${tenantId}/endpoints`, { headers: auth, data: endpoint });
    expect(res.status(), await res.text()).toBe(201);
  }
  return { tenantId, auth, admin };
}

test("billing page: trial-less cycle → invoice → suspension banner → paid with the dev wallet", async ({ page, request }, testInfo) => {
  test.skip(testInfo.project.name !== "desktop", "the billing clock is install-wide: one project walks it");
  test.setTimeout(180_000);
  const origin = await startOrigin();
  try {
    const id = unique(testInfo);
    const slug = slugFor("bill", id);
    const email = `billing-${id}@example.com`;
    const { tenantId, auth, admin } = await operatorWorkspace(request, { slug, email, trialDays: 0, originUrl: origin.url });

    // Real traffic in the first cycle: three served calls; the gateway writes its counts every 2 s.
    for (let i = 0; i < 3; i++) expect((await request.get(`${GATEWAY}/gw/${slug}/v1/free`)).status()).toBe(200);
    let cycle: { startsAt: string; endsAt: string; requests: number } | null = null;
    await expect(async () => {
      const billing = (await (await request.get(`/api/tenants/${tenantId}/billing`, { headers: auth })).json()) as {
        status: string;
        currentCycle: typeof cycle;
      };
      expect(billing.status).toBe("active");
      expect(billing.currentCycle?.requests).toBe(3);
      cycle = billing.currentCycle;
    }).toPass({ timeout: 20_000 });

    await signInByEmail(page, email, `/dashboard/${slug}/billing`);
    await expect(page).toHaveURL(`/dashboard/${slug}/billing`);
    await expect(page.getByRole("heading", { level: 1, name: "Billing" })).toBeVisible();
    await expect(page.getByRole("group", { name: "Status" })).toContainText("Active");
    await expect(page.getByRole("group", { name: "Served requests" })).toContainText("3");
    await expect(page.getByRole("group", { name: "Projected fee" })).toContainText("5,000 sats");
    const tiers = page.getByRole("table").filter({ hasText: "Each usage tier" });
    await expect(tiers.getByRole("row", { name: /First 500 requests/ })).toContainText("3");
    await expect(page.getByRole("heading", { name: "Invoice to pay" })).toHaveCount(0);
    await snapshot(page, testInfo, "billing-active");

    // The operator's clock: just past the cycle's end (and the counts' grace) it closes and is invoiced.
    const run = async (at: number) => {
      const res = await request.post("/api/admin/billing/run", { headers: admin, data: { now: new Date(at).toISOString() } });
      expect(res.status(), await res.text()).toBe(200);
    };
    const closedAt = new Date(cycle!.endsAt).getTime() + 10 * MINUTE;
    await run(closedAt);
    await page.reload();
    const invoice = page.getByRole("region", { name: "Invoice to pay" });
    await expect(invoice).toContainText("5,000 sats");
    await expect(page.getByRole("table", { name: "Billing cycles, newest first" }).getByRole("row").nth(1)).toContainText("Invoiced, unpaid");
    await expect(page.getByRole("region", { name: "This workspace is suspended" })).toHaveCount(0);

    // Seven days later it is suspended: the gateway refuses, and every dashboard page says why.
    await run(closedAt + 7 * 24 * 60 * MINUTE + MINUTE);
    expect((await request.get(`${GATEWAY}/gw/${slug}/v1/free`)).status()).toBe(403);
    await page.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Endpoints" }).click();
    const banner = page.getByRole("region", { name: "This workspace is suspended" });
    await expect(banner).toContainText("5,000 sats");
    await expect(banner).toContainText("403");
    await banner.getByRole("link", { name: "Pay the invoice on the billing page" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/billing`);
    await expect(page.getByRole("group", { name: "Status" })).toContainText("Suspended");
    await snapshot(page, testInfo, "billing-suspended");

    // Pay with the dev wallet, as in try-it: the page confirms with the platform and the banner goes.
    await invoice.getByRole("button", { name: "Pay 5,000 sats" }).click();
    const panel = invoice.getByRole("group", { name: "Lightning invoice" });
    await expect(panel).toContainText("to the platform");
    await expect(panel.getByRole("img", { name: "QR code of the Lightning invoice" })).toBeVisible();
    await panel.getByRole("button", { name: "Pay with dev wallet" }).click();
    await expect(page.getByText("Invoice paid. The workspace is active.")).toBeVisible({ timeout: 20_000 });
    await expect(banner).toHaveCount(0);
    await expect(page.getByRole("group", { name: "Status" })).toContainText("Active");
    await expect(page.getByRole("region", { name: "Invoice to pay" })).toHaveCount(0);
    await expect(page.getByRole("table", { name: "Billing cycles, newest first" }).getByRole("row").nth(1)).toContainText("Paid");
    expect((await request.get(`${GATEWAY}/gw/${slug}/v1/free`)).status()).toBe(200);
    await snapshot(page, testInfo, "billing-paid");
  } finally {
    await origin.close();
  }
});

test("danger zone: typing the slug deletes the workspace; back on /dashboard, gateway URL 404", async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const origin = await startOrigin();
  try {
    const id = unique(testInfo);
    const slug = slugFor("gone", id);
    const email = `delete-${id}@example.com`;
    await operatorWorkspace(request, { slug, email, trialDays: 30, originUrl: origin.url });
    expect((await request.get(`${GATEWAY}/gw/${slug}/v1/free`)).status()).toBe(200);

    await signInByEmail(page, email, `/dashboard/${slug}/settings`);
    await expect(page).toHaveURL(`/dashboard/${slug}/settings`);
    const zone = page.getByRole("region", { name: "Danger zone" });
    const remove = zone.getByRole("button", { name: "Delete workspace" });
    await expect(remove).toBeDisabled();
    const confirmation = zone.getByLabel(`Type ${slug} to confirm`);
    // A value typed before the form is hydrated is lost: type until the button follows (dashboard-helpers.ts).
    await expect(async () => {
      await confirmation.fill(`${slug}-nope`);
      await expect(confirmation).toHaveValue(`${slug}-nope`);
      await expect(remove).toBeDisabled();
      await confirmation.fill(slug);
      await expect(remove).toBeEnabled({ timeout: 2_000 });
    }).toPass({ timeout: 30_000 });
    await snapshot(page, testInfo, "danger-zone");
    await remove.click();

    // The toast (4 s) says so as the dashboard leaves the workspace for /dashboard.
    await expect(page.getByText(`Workspace ${slug} deleted`)).toBeVisible();
    await expect(page).toHaveURL("/dashboard");
    await expect(page.getByRole("heading", { name: "Create your first workspace" })).toBeVisible();
    expect((await request.get(`${GATEWAY}/gw/${slug}/v1/free`)).status()).toBe(404);
    const directory = await request.get(`/api/directory/${slug}`);
    expect(directory.status()).toBe(404);
    // The slug stays reserved: nobody else can take the address.
    const again = await page.request.get(`/api/tenants/slug-availability?slug=${slug}`);
    expect(again.status()).toBe(200);
    expect(await again.json()).toMatchObject({ available: false, reason: "is already taken" });
  } finally {
    await origin.close();
  }
});
