// The dashboard's operations pages against the real server: a webhook to a real HTTPS receiver
// started here (test delivery in the log, signatures checked with the SDK, rotation, pause), an API
// key created, used and revoked (401 afterwards), and analytics after real paid calls through the
// gateway to an origin started here.
//
// Webhooks are HTTPS-only and refuse loopback addresses. playwright.config.ts makes a self-signed
// certificate for 127.0.0.1 (E2E_WEBHOOK_CERT_DIR), has the server trust it (NODE_EXTRA_CA_CERTS)
// and allows 127.0.0.1/32 (WEBHOOK_ALLOWED_TARGETS); every other private address stays refused.
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { verifyWebhook } from "@l402-hub/sdk/webhooks";
import { createWorkspace, signInByEmail, slugFor, unique } from "./dashboard-helpers.ts";

type Received = { headers: http.IncomingHttpHeaders; rawBody: Buffer };

/** An HTTPS receiver on 127.0.0.1 with the certificate the server trusts; records every request. */
async function startReceiver() {
  const dir = process.env.E2E_WEBHOOK_CERT_DIR;
  if (!dir) throw new Error("E2E_WEBHOOK_CERT_DIR is set by playwright.config.ts");
  const received: Received[] = [];
  const server = https.createServer({ cert: readFileSync(path.join(dir, "cert.pem")), key: readFileSync(path.join(dir, "key.pem")) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, rawBody: Buffer.concat(chunks) });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/l402`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A plain origin the gateway forwards to: 200 JSON for anything. */
async function startOrigin() {
  const server = http.createServer((req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ quote: "Stay humble, stack sats.", path: req.url })),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const nav = (page: Page) => page.getByRole("navigation", { name: "Workspace" });
/** A full-page screenshot kept with the test's artifacts (the automatic one shows only the last page). */
async function snapshot(page: Page, testInfo: TestInfo, name: string) {
  // Written into the test's output directory (test-results/, the CI artifact) and attached to the report.
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
const envelope = (r: Received) =>
  JSON.parse(r.rawBody.toString("utf8")) as { event: string; data: { paymentHash: string; amountSats: number; endpointId: string | null } };

test("webhooks, API keys and analytics: create, test, rotate, revoke, and see paid traffic", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  const receiver = await startReceiver();
  const origin = await startOrigin();
  try {
    const id = unique(testInfo);
    const slug = slugFor("ops", id);
    await signInByEmail(page, `ops-${id}@example.com`);
    await createWorkspace(page, "Quotes", slug);

    // Analytics before any traffic: next steps instead of charts.
    await nav(page).getByRole("link", { name: "Analytics" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/analytics`);
    const noTraffic = page.getByRole("region", { name: "No traffic yet" });
    await expect(noTraffic).toBeVisible();
    await snapshot(page, testInfo, "analytics-empty");
    await expect(noTraffic.getByRole("listitem", { name: "Connect a wallet: to do" })).toBeVisible();
    await expect(noTraffic.getByRole("listitem", { name: "Add an endpoint: to do" })).toBeVisible();
    await expect(noTraffic).toContainText("Make a first call");

    // ---------------------------------------------------------------- webhooks
    await nav(page).getByRole("link", { name: "Webhooks" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/webhooks`);
    await expect(page.getByRole("region", { name: "No webhooks yet" })).toContainText("react without polling");
    const form = page.getByRole("form", { name: "Add a webhook" });
    await form.getByRole("checkbox", { name: /invoice\.settled/ }).check();
    await expect(form.getByText("A consumer paid one of your invoices")).toBeVisible();
    // The SSRF guard's refusal is shown on the URL field.
    await form.getByLabel("Endpoint URL").fill("https://10.0.0.1/hook");
    await form.getByRole("button", { name: "Create webhook" }).click();
    await expect(form.getByText(/must not point to a private or reserved address/)).toBeVisible();
    await expect(form.getByLabel("Endpoint URL")).toHaveAttribute("aria-invalid", "true");
    await form.getByLabel("Endpoint URL").fill(receiver.url);
    await form.getByRole("button", { name: "Create webhook" }).click();

    const created = page.getByRole("region", { name: "Signing secret of your new webhook" });
    await expect(created).toContainText("you will not see it again");
    await expect(created.getByRole("button", { name: "Copy signing secret" })).toBeVisible();
    const secret = (await created.locator("code").first().textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await created.getByRole("button", { name: "I have copied it" }).click();
    await expect(created).toHaveCount(0);

    const card = page.getByRole("article", { name: receiver.url });
    await expect(card.getByRole("list", { name: "Events" })).toHaveText("invoice.settled");
    await card.getByRole("button", { name: "Send test event" }).click();
    const log = card.locator("table");
    await expect(log.getByRole("row").nth(1)).toContainText("succeeded", { timeout: 20_000 });
    await expect(log.getByRole("row").nth(1)).toContainText("200");
    await expect(log.getByRole("row").nth(1)).toContainText("invoice.settled");
    expect(receiver.received).toHaveLength(1);
    const first = receiver.received[0]!;
    expect(verifyWebhook({ secret, headers: first.headers, rawBody: first.rawBody }).ok).toBe(true);
    expect(envelope(first).data.paymentHash).toBe("0".repeat(64));

    // Pause (optimistic, kept after a reload), which also disables tests; then resume.
    const active = card.getByRole("switch", { name: `Active: ${receiver.url}` });
    await expect(active).toHaveAttribute("aria-checked", "true");
    await active.click();
    await expect(active).toHaveAttribute("aria-checked", "false");
    await expect(card.getByRole("button", { name: "Send test event" })).toBeDisabled();
    await page.reload();
    await expect(active).toHaveAttribute("aria-checked", "false");
    await active.click();
    await expect(active).toHaveAttribute("aria-checked", "true");

    // Rotate: the new secret is shown once and signs the next delivery; the old one no longer verifies.
    await card.getByRole("button", { name: "Rotate secret" }).click();
    await card.getByRole("group", { name: "Confirm secret rotation" }).getByRole("button", { name: "Yes, rotate secret" }).click();
    const rotated = card.getByRole("region", { name: "New signing secret" });
    await expect(rotated).toContainText("you will not see it again");
    const newSecret = (await rotated.locator("code").first().textContent())!.trim();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await rotated.getByRole("button", { name: "I have copied it" }).click();
    await card.getByRole("button", { name: "Send test event" }).click();
    await expect(log.getByRole("row")).toHaveCount(3, { timeout: 20_000 });
    await expect(log.getByRole("row").nth(1)).toContainText("succeeded", { timeout: 20_000 });
    const second = receiver.received[1]!;
    expect(verifyWebhook({ secret: newSecret, headers: second.headers, rawBody: second.rawBody }).ok).toBe(true);
    expect(verifyWebhook({ secret, headers: second.headers, rawBody: second.rawBody })).toEqual({ ok: false, code: "signature_mismatch" });

    await snapshot(page, testInfo, "webhooks");

    // ---------------------------------------------------------------- API keys
    await nav(page).getByRole("link", { name: "API keys" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/api-keys`);
    await page.getByRole("form", { name: "Create an API key" }).getByLabel("Name").fill("CI");
    await page.getByRole("button", { name: "Create key" }).click();
    const shownKey = page.getByRole("region", { name: "Your new API key “CI”" });
    await expect(shownKey).toContainText("you will not see it again");
    const apiKey = (await shownKey.locator("code").first().textContent())!.trim();
    expect(apiKey).toMatch(/^hub_sk_/);
    const curl = (await shownKey.locator("figure").nth(1).locator("code").textContent())!;
    expect(curl).toContain(`Authorization: Bearer ${apiKey}`);
    const tenantId = /\/api\/tenants\/([^\s\\]+)/.exec(curl)![1]!;
    await shownKey.getByRole("button", { name: "I have copied it" }).click();
    const keys = page.getByRole("table", { name: "API keys, newest first" });
    await expect(keys.getByRole("row", { name: /CI/ })).toContainText("Active");
    await expect(keys.getByRole("row", { name: /CI/ })).toContainText("Never");

    // The key works: set up the workspace through the API (origin, dev wallet, one paid endpoint).
    const auth = { authorization: `Bearer ${apiKey}` };
    expect((await request.get(`/api/tenants/${tenantId}`, { headers: auth })).status()).toBe(200);
    expect((await request.patch(`/api/tenants/${tenantId}`, { headers: auth, data: { originUrl: origin.url } })).status()).toBe(200);
    expect((await request.put(`/api/tenants/${tenantId}/wallet`, { headers: auth, data: { type: "dev" } })).status()).toBe(200);
    const endpoint = await request.post(`/api/tenants/${tenantId}/endpoints`, {
      headers: auth,
      data: { method: "GET", path: "/v1/quote", title: "Quote of the day", pricingModel: "per_request", priceSats: 1 },
    });
    expect(endpoint.status(), await endpoint.text()).toBe(201);
    const endpointId = ((await endpoint.json()) as { id: string }).id;

    // Revoke it in the dashboard: the next request with it is refused.
    await page.reload();
    await expect(keys.getByRole("row", { name: /CI/ })).not.toContainText("Never");
    await keys.getByRole("button", { name: "Revoke CI" }).click();
    await keys.getByRole("group", { name: "Confirm revoking CI" }).getByRole("button", { name: "Yes, revoke" }).click();
    // The row turns "Revoked" at once (optimistic); the toast comes when the server has revoked it.
    await expect(keys.getByRole("row", { name: /CI/ })).toContainText("Revoked");
    await expect(page.getByText("API key revoked: it stops working on its next request")).toBeVisible();
    await snapshot(page, testInfo, "api-keys");
    const refused = await request.get(`/api/tenants/${tenantId}`, { headers: auth });
    expect(refused.status()).toBe(401);
    await page.reload();
    await expect(keys.getByRole("row", { name: /CI/ })).toContainText("Revoked");
    await expect(keys.getByRole("button", { name: "Revoke CI" })).toHaveCount(0);

    // ---------------------------------------------------------------- traffic and analytics
    // Through the gateway: one unpaid call (402), then paid with the dev wallet (200).
    const gateway = `http://localhost:8502/gw/${slug}/v1/quote`;
    const challenge = await request.get(gateway);
    expect(challenge.status(), await challenge.text()).toBe(402);
    const macaroon = /macaroon="([^"]+)"/.exec(challenge.headers()["www-authenticate"] ?? "")![1];
    const { paymentRequest } = (await challenge.json()) as { paymentRequest: string };
    const paid = await request.post("/api/dev/lightning/pay", { data: { invoice: paymentRequest } });
    expect(paid.status()).toBe(200);
    const { preimage } = (await paid.json()) as { preimage: string };
    const served = await request.get(gateway, { headers: { authorization: `L402 ${macaroon}:${preimage}` } });
    expect(served.status(), await served.text()).toBe(200);
    expect(await served.json()).toMatchObject({ path: "/v1/quote" });

    // The real invoice.settled reaches the webhook, signed with the rotated secret.
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(3);
    const settled = receiver.received[2]!;
    expect(verifyWebhook({ secret: newSecret, headers: settled.headers, rawBody: settled.rawBody }).ok).toBe(true);
    expect(envelope(settled)).toMatchObject({ event: "invoice.settled", data: { amountSats: 1, endpointId } });

    // Usage counters are flushed every 2 s: reload until the analytics show the calls.
    await nav(page).getByRole("link", { name: "Analytics" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}/analytics`);
    const totals = page.getByRole("region", { name: "Totals" });
    await expect(async () => {
      await page.reload();
      await expect(totals.getByRole("group", { name: "Paid requests", exact: true })).toContainText("1", { timeout: 1_000 });
    }).toPass({ timeout: 20_000 });
    await expect(totals.getByRole("group", { name: "Requests", exact: true })).toContainText("2");
    await expect(totals.getByRole("group", { name: "Earnings", exact: true })).toContainText("1 sat");
    await expect(totals.getByRole("group", { name: "Refunds", exact: true })).toContainText("0");
    await expect(totals.getByRole("group", { name: "Origin errors", exact: true })).toContainText("0");
    const requestsChart = page.getByRole("region", { name: "Requests and paid requests" });
    await expect(requestsChart.locator("svg.recharts-surface").first()).toBeVisible();
    await requestsChart.getByRole("button", { name: "Show as table" }).click();
    const today = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" }).format(new Date());
    await expect(requestsChart.getByRole("row", { name: new RegExp(`^${today} `) })).toHaveText(new RegExp(`${today}\\s*2\\s*1\\s*1`));
    await expect(page.getByRole("region", { name: "Per endpoint" }).getByRole("row", { name: /GET \/v1\/quote/ })).toContainText("Quote of the day");

    await requestsChart.getByRole("button", { name: "Show chart" }).click();
    await expect(requestsChart.locator("svg.recharts-surface").first()).toBeVisible();
    await snapshot(page, testInfo, "analytics");

    // Monthly view and the endpoint filter.
    await page.getByRole("radiogroup", { name: "Granularity" }).getByRole("radio", { name: "Monthly" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Monthly, last 12 months" })).toBeVisible();
    await expect(totals.getByRole("group", { name: "Earnings", exact: true })).toContainText("1 sat");
    await page.getByLabel("Endpoint", { exact: true }).selectOption({ label: "GET /v1/quote · Quote of the day" });
    await expect(totals.getByRole("group", { name: "Paid requests", exact: true })).toContainText("1");

    // The overview's summary.
    await nav(page).getByRole("link", { name: "Overview" }).click();
    await expect(page).toHaveURL(`/dashboard/${slug}`);
    const recent = page.getByRole("region", { name: "Last 30 days" });
    await expect(recent.getByRole("group", { name: "Earnings", exact: true })).toContainText("1 sat");
    await expect(recent.getByRole("group", { name: "Paid requests", exact: true })).toContainText("1");
  } finally {
    await receiver.close();
    await origin.close();
  }
});
