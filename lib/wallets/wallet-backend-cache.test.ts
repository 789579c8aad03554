// The web app's live wallet backends: one per tenant while its stored credentials stay the same,
// the old one closed when they change, when it sits unused, or when the cache is full.
import { afterEach, describe, expect, it } from "vitest";
import type { CapableWalletBackend } from "@/lib/lightning/wallet-capabilities.ts";
import { WalletBackendCache } from "./wallet-backend-cache.ts";

/** A backend that only records whether it was closed. */
type CountingBackend = CapableWalletBackend & { sealed: string; closed: boolean };

let clock = 0;
const opened: CountingBackend[] = [];
const caches: WalletBackendCache[] = [];

function cache(options: { maxEntries?: number; idleMs?: number } = {}): WalletBackendCache {
  const created = new WalletBackendCache({
    appSecret: "unused",
    devNode: null,
    targetPolicy: { resolver: async () => [], allowedTargets: [] },
    now: () => clock,
    ...options,
    open: (wallet) => {
      const backend = {
        type: "lnbits",
        sealed: wallet.credentialsEnc,
        closed: false,
        createInvoice: async () => Promise.reject(new Error("not used")),
        lookupInvoice: async () => null,
        getNodePubkey: async () => null,
        close: async () => void (backend.closed = true),
      } as CountingBackend;
      opened.push(backend);
      return backend;
    },
  });
  caches.push(created);
  return created;
}

const wallet = (sealed: string) => ({ type: "lnbits", credentialsEnc: sealed });

afterEach(async () => {
  await Promise.all(caches.splice(0).map((c) => c.close()));
  opened.length = 0;
  clock = 0;
});

describe("WalletBackendCache", () => {
  it("reuses one backend per tenant while the sealed credentials are the same", () => {
    const wallets = cache();
    const first = wallets.backendFor("t1", wallet("a"));
    expect(wallets.backendFor("t1", wallet("a"))).toBe(first);
    expect(wallets.backendFor("t2", wallet("a"))).not.toBe(first);
    expect(opened).toHaveLength(2);
  });

  it("replaces and closes a tenant's backend when its wallet is reconnected", () => {
    const wallets = cache();
    const first = wallets.backendFor("t1", wallet("a")) as CountingBackend;
    const second = wallets.backendFor("t1", wallet("b")) as CountingBackend;
    expect(second).not.toBe(first);
    expect(first.closed).toBe(true);
    expect(second.closed).toBe(false);
    expect(wallets.size).toBe(1);
  });

  it("closes the least recently used backend beyond maxEntries", () => {
    const wallets = cache({ maxEntries: 2 });
    const t1 = wallets.backendFor("t1", wallet("a")) as CountingBackend;
    const t2 = wallets.backendFor("t2", wallet("a")) as CountingBackend;
    wallets.backendFor("t1", wallet("a")); // t1 is now the most recently used
    wallets.backendFor("t3", wallet("a"));
    expect(t2.closed).toBe(true);
    expect(t1.closed).toBe(false);
    expect(wallets.size).toBe(2);
  });

  it("closes backends unused for idleMs", () => {
    const wallets = cache({ idleMs: 1_000 });
    const idle = wallets.backendFor("t1", wallet("a")) as CountingBackend;
    clock = 500;
    const busy = wallets.backendFor("t2", wallet("a")) as CountingBackend;
    clock = 1_200;
    wallets.backendFor("t2", wallet("a"));
    expect(idle.closed).toBe(true);
    expect(busy.closed).toBe(false);
    expect(wallets.size).toBe(1);
  });

  it("closes every backend on close", async () => {
    const wallets = cache();
    wallets.backendFor("t1", wallet("a"));
    wallets.backendFor("t2", wallet("a"));
    await wallets.close();
    expect(opened.map((b) => b.closed)).toEqual([true, true]);
    expect(wallets.size).toBe(0);
  });
});
