import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, gatewayHostSuffix, gatewayUrlFor, loadConfig } from "./index.ts";

const tmp = () => mkdtempSync(path.join(os.tmpdir(), "hub-config-"));

describe("loadConfig", () => {
  it("runs on embedded defaults with nothing set, persisting a generated APP_SECRET and admin token", () => {
    const dir = tmp();
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 3000,
      gatewayPort: 8402,
      databaseUrl: null,
      redisUrl: null,
      siteUrl: "http://localhost:3000",
      apiUrl: "http://localhost:3000/api",
      gatewayUrlTemplate: "http://localhost:8402/gw/{slug}",
      // This machine only, so the development features are on (tests/security/development-defaults.test.ts).
      host: "127.0.0.1",
      devFeatures: true,
      lightningDevNode: true,
      devMailbox: true,
      seedDemo: true,
    });
    expect(config.appSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(dir, "app-secret"), "utf8").trim()).toBe(config.appSecret);
    expect(loadConfig({ DATA_DIR: dir }).appSecret).toBe(config.appSecret);
    expect(loadConfig({ DATA_DIR: dir }).hubAdminToken).toBe(config.hubAdminToken);
  });

  it("names every invalid variable on its own line", () => {
    try {
      loadConfig({ DATA_DIR: tmp(), PORT: "http", DATABASE_URL: "mysql://x", GATEWAY_URL_TEMPLATE: "https://gw.example.com", LIGHTNING_DEV_NODE: "maybe" });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const lines = (err as ConfigError).problems;
      expect(lines).toHaveLength(4);
      expect(lines.find((l) => l.startsWith("PORT:"))).toContain('"http"');
      expect(lines.find((l) => l.startsWith("DATABASE_URL:"))).toContain("postgres");
      expect(lines.find((l) => l.startsWith("GATEWAY_URL_TEMPLATE:"))).toContain("{slug}");
      expect(lines.find((l) => l.startsWith("LIGHTNING_DEV_NODE:"))).toContain("true or false");
    }
  });

  it("requires APP_SECRET and SITE_URL in production and turns development features off there", () => {
    expect(() => loadConfig({ NODE_ENV: "production", DATA_DIR: tmp() })).toThrow(/APP_SECRET: required[\s\S]*SITE_URL: required/);
    const config = loadConfig({ NODE_ENV: "production", APP_SECRET: "x".repeat(32), SITE_URL: "https://hub.example.com/", DATA_DIR: tmp() });
    expect(config).toMatchObject({ host: "0.0.0.0", devFeatures: false, lightningDevNode: false, devMailbox: false, originAllowPrivate: false });
    expect(config.hubAdminToken).toBeNull();
    expect(config.siteUrl).toBe("https://hub.example.com");
  });

  it("takes the free-try identity provider as three variables together", () => {
    expect(loadConfig({ DATA_DIR: tmp() }).freeTryProvider).toBeNull();
    const idp = { FREE_TRY_ISSUER: "https://id.example.com/", FREE_TRY_JWKS_URL: "https://id.example.com/jwks", FREE_TRY_AUDIENCE: "hub" };
    expect(loadConfig({ DATA_DIR: tmp(), ...idp }).freeTryProvider).toEqual({
      issuer: "https://id.example.com/",
      jwksUrl: "https://id.example.com/jwks",
      audience: "hub",
    });
    expect(() => loadConfig({ DATA_DIR: tmp(), FREE_TRY_ISSUER: "https://id.example.com/" })).toThrow(
      /FREE_TRY_ISSUER, FREE_TRY_JWKS_URL, FREE_TRY_AUDIENCE: set all three/,
    );
    expect(() => loadConfig({ DATA_DIR: tmp(), ...idp, FREE_TRY_JWKS_URL: "ftp://x" })).toThrow(/FREE_TRY_JWKS_URL/);
  });

  it("derives gateway addresses and the host suffix from the template", () => {
    const sub = loadConfig({ DATA_DIR: tmp(), GATEWAY_URL_TEMPLATE: "https://{slug}.gw.example.com" });
    expect(gatewayUrlFor(sub, "market")).toBe("https://market.gw.example.com");
    expect(gatewayHostSuffix(sub)).toBe(".gw.example.com");
    const local = loadConfig({ DATA_DIR: tmp(), GATEWAY_PORT: "9000" });
    expect(gatewayUrlFor(local, "demo")).toBe("http://localhost:9000/gw/demo");
    expect(gatewayHostSuffix(local)).toBeNull();
  });
});
