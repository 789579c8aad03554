import { afterEach, describe, expect, it } from "vitest";
import { testConfig } from "@/tests/helpers/context.ts";
import { openPlatformWallet, platformWalletProblem } from "./platform-wallet.ts";

const opened: { close?(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((w) => w.close?.()));
});

describe("the platform wallet", () => {
  it("is the configured wallet (PLATFORM_WALLET_TYPE + _CREDENTIALS)", () => {
    const config = testConfig({
      PLATFORM_WALLET_TYPE: "lnbits",
      PLATFORM_WALLET_CREDENTIALS: JSON.stringify({ url: "https://lnbits.example.com", invoiceKey: "a".repeat(32) }),
    });
    expect(platformWalletProblem(config)).toBeNull();
    const wallet = openPlatformWallet({ config, devNode: null })!;
    opened.push(wallet);
    expect(wallet.type).toBe("lnbits");
  });

  it("names the variable and the field when the credentials do not fit the type", () => {
    const config = testConfig({
      PLATFORM_WALLET_TYPE: "lnbits",
      PLATFORM_WALLET_CREDENTIALS: JSON.stringify({ url: "https://lnbits.example.com", invoiceKey: "nope" }),
    });
    expect(platformWalletProblem(config)).toMatch(/^PLATFORM_WALLET_CREDENTIALS: invoiceKey must be/);
    expect(() => openPlatformWallet({ config, devNode: null })).toThrow(/PLATFORM_WALLET_CREDENTIALS: invoiceKey/);
  });

  it("refuses credentials that are not a JSON object, a type missing, or credentials missing for a real wallet", () => {
    expect(() => testConfig({ PLATFORM_WALLET_TYPE: "lnd", PLATFORM_WALLET_CREDENTIALS: "[1]" })).toThrow(/PLATFORM_WALLET_CREDENTIALS: must be a JSON object/);
    expect(() => testConfig({ PLATFORM_WALLET_CREDENTIALS: "{}" })).toThrow(/PLATFORM_WALLET_TYPE: required/);
    expect(() => testConfig({ PLATFORM_WALLET_TYPE: "nwc" })).toThrow(/PLATFORM_WALLET_CREDENTIALS: required for PLATFORM_WALLET_TYPE=nwc/);
  });

  it("falls back to the dev node, or to none", () => {
    const config = testConfig();
    expect(platformWalletProblem(config)).toBeNull();
    expect(openPlatformWallet({ config, devNode: null })).toBeNull();
    const devNode = { wallet: () => ({ type: "dev" as const }) } as unknown as Parameters<typeof openPlatformWallet>[0]["devNode"];
    expect(openPlatformWallet({ config, devNode })?.type).toBe("dev");
  });
});
