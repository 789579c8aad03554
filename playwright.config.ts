// Browser tests against the real one-process server (`npm start`): a fresh data directory per run,
// so the demo tenant is seeded exactly as on a user's first start. Chromium comes from Debian
// (`apt-get install -y chromium`); never `playwright install` (no downloads on these machines).
//
// `npm start` builds the web app only when no build exists: after changing pages, run
// `npm run build` before `npm run e2e`, or the tests run against the previous build.
import { existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { writeSelfSignedCertificate } from "./scripts/self-signed-certificate.ts";

const port = 3100;
const gatewayPort = 8502;
// Computed once by the runner and inherited by its workers through the environment.
process.env.E2E_DATA_DIR ??= `.data/e2e-${Date.now()}`;
// Webhooks are HTTPS-only and refuse loopback: the dashboard-ops test's receiver listens on
// 127.0.0.1 with this self-signed certificate, which the server trusts through NODE_EXTRA_CA_CERTS
// (the delivery dispatcher uses Node's default trust store) and reaches through WEBHOOK_ALLOWED_TARGETS.
process.env.E2E_WEBHOOK_CERT_DIR ??= path.join(os.tmpdir(), `${path.basename(process.env.E2E_DATA_DIR)}-webhook-tls`);
if (!existsSync(path.join(process.env.E2E_WEBHOOK_CERT_DIR, "cert.pem"))) {
  mkdirSync(process.env.E2E_WEBHOOK_CERT_DIR, { recursive: true });
  writeSelfSignedCertificate(process.env.E2E_WEBHOOK_CERT_DIR, { commonName: "127.0.0.1", altNames: ["IP:127.0.0.1"] });
}

const chromium = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
};

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  reporter: [["list"]],
  timeout: 30_000,
  expect: { timeout: 10_000 },
  use: {
    // The browser uses the site's configured address (SITE_URL defaults to http://localhost:PORT):
    // magic links, redirects and same-site checks follow SITE_URL, never the Host a request names.
    baseURL: `http://localhost:${port}`,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: chromium,
  },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"], launchOptions: chromium } },
    { name: "mobile", use: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, launchOptions: chromium } },
  ],
  webServer: {
    command: "npm start",
    url: `http://127.0.0.1:${port}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    // NODE_ENV and HOST stay unset: bound to 127.0.0.1, so development features are on (dev
    // Lightning node, dev mailbox, demo seed, persisted secrets) on top of the production Next
    // build that `npm start` serves.
    env: {
      PORT: String(port),
      GATEWAY_PORT: String(gatewayPort),
      DATA_DIR: process.env.E2E_DATA_DIR,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      NODE_EXTRA_CA_CERTS: path.join(process.env.E2E_WEBHOOK_CERT_DIR, "cert.pem"),
      WEBHOOK_ALLOWED_TARGETS: "127.0.0.1/32",
    },
  },
});
