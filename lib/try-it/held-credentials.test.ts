// What try-it shows of the held session and credit: the scopes the SDK client keeps them under,
// and an expired session dropped rather than shown.
import { describe, expect, it } from "vitest";
import { memoryCredentialStore } from "@l402-hub/sdk/client";
import { readHeldCredentials, tryItCreditProvider, tryItSessionScope } from "./held-credentials.ts";

const proof = `L402 mac:${"ab".repeat(32)}`;

describe("held credentials", () => {
  it("scopes sessions to one endpoint template of one gateway and credit to the provider", () => {
    expect(tryItSessionScope("http://gw/gw/demo/", "get", "/v1/lucky/{name}")).toBe("GET http://gw/gw/demo/v1/lucky/{name}");
    expect(tryItCreditProvider("http://gw:8502/gw/demo")).toBe("http://gw:8502/gw/demo");
    expect(tryItCreditProvider("https://demo.gw.example.com")).toBe("https://demo.gw.example.com");
    expect(tryItCreditProvider("not a url")).toBeNull();
  });

  it("shows the session and credit the next call would send", () => {
    const store = memoryCredentialStore();
    const where = { scope: "GET http://gw/gw/demo/v1/a", provider: "http://gw/gw/demo" };
    expect(readHeldCredentials(store, where)).toEqual({ session: null, credit: null });
    store.setSession(where.scope, { token: "tok", expiresAt: Date.now() + 60_000, balance: 4 });
    store.setCredit(where.provider, { authorization: proof, balanceSats: 3 });
    expect(readHeldCredentials(store, where)).toEqual({
      session: { token: "tok", expiresAt: expect.any(Number), balance: 4 },
      credit: { authorization: proof, balanceSats: 3 },
    });
    expect(readHeldCredentials(store, { ...where, provider: null }).credit).toBeNull();
  });

  it("drops a session past its expiry", () => {
    const store = memoryCredentialStore();
    store.setSession("s", { token: "t", expiresAt: 1_000, balance: null });
    expect(readHeldCredentials(store, { scope: "s", provider: null, now: 1_000 }).session).toBeNull();
    expect(store.getSession("s")).toBeNull();
    store.setSession("s", { token: "t", expiresAt: null, balance: null });
    expect(readHeldCredentials(store, { scope: "s", provider: null }).session).toEqual({ token: "t", expiresAt: null, balance: null });
  });
});
