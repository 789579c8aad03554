// What try-it keeps for the page session: session tokens per endpoint and credit per API.
import { describe, expect, it } from "vitest";
import { creditBalanceFrom, creditKey, forget, readCredit, readSession, sessionKey, updateSession, writeCredit, type KeyStore } from "./stored-credentials.ts";

function memoryStore(): KeyStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

const headers = (values: Record<string, string>) => new Headers(values);

describe("sessions", () => {
  it("keeps a new token with its expiry and balance, and updates the balance on later calls", () => {
    const store = memoryStore();
    const key = sessionKey("http://gw/demo", "get", "/v1/lucky/{name}");
    expect(key).toBe("l402-hub:try-it:session:http://gw/demo GET /v1/lucky/{name}");
    const expires = new Date(Date.now() + 60_000).toISOString();
    updateSession(store, key, headers({ "x-session-token": "tok", "x-session-expires": expires, "x-session-balance": "4" }), null);
    expect(readSession(store, key)).toEqual({ token: "tok", expiresAt: expires, balance: "4" });
    updateSession(store, key, headers({ "x-session-balance": "3" }), "tok");
    expect(readSession(store, key)).toEqual({ token: "tok", expiresAt: expires, balance: "3" });
    forget(store, key);
    expect(readSession(store, key)).toBeNull();
  });

  it("drops an expired session and ignores unreadable entries", () => {
    const store = memoryStore();
    store.setItem("a", JSON.stringify({ token: "t", expiresAt: new Date(Date.now() - 1000).toISOString() }));
    expect(readSession(store, "a")).toBeNull();
    expect(store.map.has("a")).toBe(false);
    store.setItem("b", "{broken");
    expect(readSession(store, "b")).toBeNull();
    expect(updateSession(store, "c", headers({}), null)).toBeNull();
  });
});

describe("credit", () => {
  it("is kept per gateway and reads back only when its proof is well formed", () => {
    const store = memoryStore();
    const key = creditKey("http://gw/demo");
    writeCredit(store, key, { macaroon: "mac", preimage: "ab".repeat(32), boughtSats: 5, balanceSats: 4 });
    expect(readCredit(store, key)).toEqual({ macaroon: "mac", preimage: "ab".repeat(32), boughtSats: 5, balanceSats: 4 });
    store.setItem(key, JSON.stringify({ macaroon: "mac", preimage: "not-hex" }));
    expect(readCredit(store, key)).toBeNull();
    expect(creditBalanceFrom(headers({ "x-session-balance": "12" }))).toBe(12);
    expect(creditBalanceFrom(headers({}))).toBeNull();
  });
});
