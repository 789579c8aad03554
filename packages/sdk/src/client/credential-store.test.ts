// The client's credential stores, memory and Web Storage, pass one contract; the Web Storage one
// also survives a new store over the same storage and reads malformed entries as absent.
import { describe, expect, it } from "vitest";
import { memoryCredentialStore, webStorageCredentialStore, type L402CredentialStore, type WebStorageLike } from "./credential-store.ts";

/** A Map behind the Web Storage API, as sessionStorage behaves. */
function mapStorage(): WebStorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
    key: (i) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
  };
}

const proof = `L402 AgEEbHNhdA==:${"ab".repeat(32)}`;

const stores: Array<[string, () => L402CredentialStore]> = [
  ["memory", memoryCredentialStore],
  ["web storage", () => webStorageCredentialStore({ storage: mapStorage(), prefix: "test:" })],
];

describe.each(stores)("%s credential store", (_name, create) => {
  it("keeps a session per scope, replaces it, and forgets it", () => {
    const store = create();
    expect(store.getSession("GET http://gw/x/v1/a")).toBeNull();
    store.setSession("GET http://gw/x/v1/a", { token: "tok", expiresAt: 1_700_000_000_000, balance: 4 });
    store.setSession("GET http://gw/x/v1/b", { token: "other", expiresAt: null, balance: null });
    expect(store.getSession("GET http://gw/x/v1/a")).toEqual({ token: "tok", expiresAt: 1_700_000_000_000, balance: 4 });
    store.setSession("GET http://gw/x/v1/a", { token: "tok", expiresAt: 1_700_000_000_000, balance: 3 });
    expect(store.getSession("GET http://gw/x/v1/a")?.balance).toBe(3);
    store.deleteSession("GET http://gw/x/v1/a");
    expect(store.getSession("GET http://gw/x/v1/a")).toBeNull();
    expect(store.getSession("GET http://gw/x/v1/b")).toEqual({ token: "other", expiresAt: null, balance: null });
  });

  it("keeps credit per provider, and clear() forgets sessions and credit alike", () => {
    const store = create();
    store.setCredit("http://gw/gw/x", { authorization: proof, balanceSats: 5 });
    expect(store.getCredit("http://gw/gw/x")).toEqual({ authorization: proof, balanceSats: 5 });
    expect(store.getCredit("http://gw/gw/y")).toBeNull();
    store.setSession("s", { token: "t", expiresAt: null, balance: 1 });
    store.clear();
    expect(store.getCredit("http://gw/gw/x")).toBeNull();
    expect(store.getSession("s")).toBeNull();
  });

  it("hands out copies: changing what it returned does not change what it keeps", () => {
    const store = create();
    store.setSession("s", { token: "t", expiresAt: null, balance: 2 });
    store.getSession("s")!.balance = 0;
    expect(store.getSession("s")?.balance).toBe(2);
    store.setCredit("p", { authorization: proof, balanceSats: 5 });
    store.getCredit("p")!.balanceSats = 0;
    expect(store.getCredit("p")?.balanceSats).toBe(5);
  });
});

describe("webStorageCredentialStore", () => {
  it("is read back by a new store over the same storage, and keeps to its prefix", () => {
    const storage = mapStorage();
    storage.setItem("unrelated", "keep me");
    const first = webStorageCredentialStore({ storage, prefix: "app:" });
    first.setSession("GET http://gw/x/v1/a", { token: "tok", expiresAt: null, balance: 2 });
    first.setCredit("http://gw/gw/x", { authorization: proof, balanceSats: null });
    expect([...storage.map.keys()].sort()).toEqual(["app:credit:http://gw/gw/x", "app:session:GET http://gw/x/v1/a", "unrelated"]);
    const second = webStorageCredentialStore({ storage, prefix: "app:" });
    expect(second.getSession("GET http://gw/x/v1/a")).toEqual({ token: "tok", expiresAt: null, balance: 2 });
    expect(second.getCredit("http://gw/gw/x")).toEqual({ authorization: proof, balanceSats: null });
    second.clear();
    expect([...storage.map.keys()]).toEqual(["unrelated"]);
  });

  it("reads unreadable entries and malformed proofs as absent", () => {
    const storage = mapStorage();
    const store = webStorageCredentialStore({ storage });
    storage.setItem("l402:session:a", "{broken");
    storage.setItem("l402:session:b", JSON.stringify({ token: "" }));
    storage.setItem("l402:session:c", JSON.stringify({ token: "t", expiresAt: "soon", balance: "4" }));
    storage.setItem("l402:credit:x", JSON.stringify({ authorization: "L402 mac:not-hex" }));
    storage.setItem("l402:credit:y", JSON.stringify({ authorization: `Bearer ${"ab".repeat(32)}` }));
    expect(store.getSession("a")).toBeNull();
    expect(store.getSession("b")).toBeNull();
    expect(store.getSession("c")).toEqual({ token: "t", expiresAt: null, balance: null });
    expect(store.getCredit("x")).toBeNull();
    expect(store.getCredit("y")).toBeNull();
  });

  it("does not fail when the storage refuses writes", () => {
    const storage = mapStorage();
    storage.setItem = () => {
      throw new DOMException("quota exceeded", "QuotaExceededError");
    };
    const store = webStorageCredentialStore({ storage });
    expect(() => store.setSession("s", { token: "t", expiresAt: null, balance: null })).not.toThrow();
    expect(store.getSession("s")).toBeNull();
  });
});
