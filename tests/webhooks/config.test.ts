// The webhook variables of lib/config: defaults, parsing, and a startup error naming the variable.
import { describe, expect, it } from "vitest";
import { ConfigError } from "@/lib/config/index.ts";
import { testConfig } from "@/tests/helpers/context.ts";

describe("webhook configuration", () => {
  it("defaults to no allowed private targets, 32 in flight (4 per subscription), capacity checks every 5 minutes", () => {
    const config = testConfig();
    expect(config.webhookAllowedTargets).toEqual([]);
    expect(config.webhookConcurrency).toBe(32);
    expect(config.webhookConcurrencyPerSubscription).toBe(4);
    expect(config.nodeCapacityCheckSeconds).toBe(300);
  });

  it("parses WEBHOOK_ALLOWED_TARGETS as comma-separated CIDRs", () => {
    expect(testConfig({ WEBHOOK_ALLOWED_TARGETS: " 127.0.0.0/8, ::1/128,10.1.2.3 " }).webhookAllowedTargets).toEqual(["127.0.0.0/8", "::1/128", "10.1.2.3"]);
  });

  it.each(["localhost", "127.0.0.0/33", "10.0.0.0/8/1", "::1/129"])("refuses WEBHOOK_ALLOWED_TARGETS=%s at startup, naming the variable", (value) => {
    expect(() => testConfig({ WEBHOOK_ALLOWED_TARGETS: value })).toThrow(ConfigError);
    expect(() => testConfig({ WEBHOOK_ALLOWED_TARGETS: value })).toThrow(/WEBHOOK_ALLOWED_TARGETS: must be comma-separated CIDRs/);
  });
});
