// The served MCP config outside development: one entry, which runs the SDK package by name and
// exact version, so it works on any machine; the local checkout's entry only with dev features on.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config/index.ts";
import { buildMcpConfig, localCheckoutServerName, mcpPackage, mcpServerName, walletPlaceholder } from "./mcp-config.ts";

const sdkPackage = JSON.parse(readFileSync(new URL("../../packages/sdk/package.json", import.meta.url), "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
};
const api = { slug: "weather", name: "Weather", description: "Current weather.", tags: [], endpoints: [] };
const production = loadConfig({
  NODE_ENV: "production",
  HOST: "0.0.0.0",
  APP_SECRET: "test-app-secret-0123456789abcdef0123456789",
  HUB_ADMIN_TOKEN: "test-admin-token-0123456789",
  SITE_URL: "https://hub.example.com",
  GATEWAY_URL_TEMPLATE: "https://{slug}.gw.example.com",
  DATABASE_URL: "postgresql://hub@db.example.com/hub",
});

describe("buildMcpConfig", () => {
  it("runs the package's only bin by name and exact version: npx -y @l402-hub/sdk@<version> --gateway <url>", () => {
    expect(mcpPackage).toBe(`${sdkPackage.name}@${sdkPackage.version}`);
    expect(Object.keys(sdkPackage.bin)).toHaveLength(1); // what `npx <package>` runs
    expect(production.devFeatures).toBe(false);
    const config = buildMcpConfig({ config: production, api, installDir: "/srv/hub", nodePath: "/usr/bin/node" });
    expect(config.mcpServers).toEqual({
      [mcpServerName("weather")]: {
        command: "npx",
        args: ["-y", `@l402-hub/sdk@${sdkPackage.version}`, "--gateway", "https://weather.gw.example.com"],
        env: { HUB_WALLET: walletPlaceholder, HUB_BUDGET_SATS: "1000" },
      },
    });
    expect(JSON.stringify(config)).not.toContain("/srv/hub"); // no path of the server's machine
    expect(config.metadata).not.toHaveProperty("localCheckout");
  });

  it("adds the local checkout's entry, clearly named, only with development features on and a loopback site", () => {
    const config = buildMcpConfig({
      config: { ...production, devFeatures: true, siteUrl: "http://localhost:3000" },
      api,
      installDir: "/srv/hub",
      nodePath: "/usr/bin/node",
    });
    expect(Object.keys(config.mcpServers)).toEqual(["l402-weather", "l402-weather-local-checkout"]);
    expect(config.mcpServers[localCheckoutServerName("weather")]).toEqual({
      command: "/usr/bin/node",
      args: ["/srv/hub/node_modules/tsx/dist/cli.mjs", "/srv/hub/packages/sdk/src/mcp/server.ts", "--gateway", "https://weather.gw.example.com"],
      env: { HUB_WALLET: walletPlaceholder, HUB_BUDGET_SATS: "1000" },
    });
    expect(config.metadata.localCheckout).toMatch(/^l402-weather-local-checkout .* this machine only; use l402-weather anywhere else$/);
  });

  it("never shows the machine's paths on a public site, even with DEV_FEATURES=true", () => {
    const config = buildMcpConfig({ config: { ...production, devFeatures: true }, api, installDir: "/srv/hub", nodePath: "/usr/bin/node" });
    expect(Object.keys(config.mcpServers)).toEqual(["l402-weather"]);
    expect(JSON.stringify(config)).not.toContain("/srv/hub");
    expect(config.metadata).not.toHaveProperty("localCheckout");
  });
});
