// Live wallet backends of the web app, one per tenant, so that a public route polled by browsers
// (POST /api/l402/settlement) reuses one connection to a provider's wallet instead of opening a
// relay WebSocket or TLS session per call. A backend is replaced (and the old one closed) when the
// stored credentials change, closed after a while unused, and the least recently used one is closed
// when the cache is full. The gateway's pool is one too (lib/gateway/wallet-pool.ts), and so is the
// worker's invoice-settlements job (lib/jobs/schedule.ts), which polls every tenant's wallet every 3 s.
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import type { CapableWalletBackend } from "@/lib/lightning/wallet-capabilities.ts";
import type { TargetPolicy } from "@/lib/lightning/wallet-network.ts";
import { openWalletBackend, type StoredWallet } from "./open-wallet.ts";

export type WalletBackendCacheOptions = {
  appSecret: string;
  devNode: DevLightningNode | null;
  /** The wallet address rules every backend connects under (walletTargetPolicy(config)). */
  targetPolicy: TargetPolicy;
  /** Most backends kept open (one per tenant); the least recently used is closed beyond. */
  maxEntries?: number;
  /** A backend unused this long is closed (its relay socket or keep-alive connections with it). */
  idleMs?: number;
  /** Builds a backend; tests inject counting fakes. */
  open?: (wallet: StoredWallet) => CapableWalletBackend;
  now?: () => number;
};

type Entry = { sealed: string; backend: CapableWalletBackend; lastUsed: number };

/** One live backend per tenant, keyed by the sealed credentials (a reconnection reseals them). */
export class WalletBackendCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private readonly open: (wallet: StoredWallet) => CapableWalletBackend;
  private sweeper: NodeJS.Timeout | null = null;

  constructor(options: WalletBackendCacheOptions) {
    this.maxEntries = options.maxEntries ?? 256;
    this.idleMs = options.idleMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.open =
      options.open ?? ((wallet) => openWalletBackend({ appSecret: options.appSecret, wallet, devNode: options.devNode, targetPolicy: options.targetPolicy }));
  }

  /** The tenant's backend for this stored wallet: the cached one while the credentials are unchanged. */
  backendFor(tenantId: string, wallet: StoredWallet): CapableWalletBackend {
    this.closeIdle();
    const cached = this.entries.get(tenantId);
    if (cached && cached.sealed === wallet.credentialsEnc) {
      // Re-inserted so Map order stays least recently used first.
      this.entries.delete(tenantId);
      cached.lastUsed = this.now();
      this.entries.set(tenantId, cached);
      return cached.backend;
    }
    if (cached) this.evict(tenantId, cached);
    const backend = this.open(wallet);
    this.entries.set(tenantId, { sealed: wallet.credentialsEnc, backend, lastUsed: this.now() });
    while (this.entries.size > this.maxEntries) {
      const [oldestId, oldest] = this.entries.entries().next().value!;
      this.evict(oldestId, oldest);
    }
    this.sweeper ??= setInterval(() => this.closeIdle(), this.idleMs).unref();
    return backend;
  }

  /** Number of backends held (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Closes every backend (process shutdown). */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    const backends = [...this.entries.values()].map((entry) => entry.backend);
    this.entries.clear();
    await Promise.allSettled(backends.map((backend) => backend.close?.()));
  }

  private closeIdle(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [tenantId, entry] of this.entries) if (entry.lastUsed <= cutoff) this.evict(tenantId, entry);
    if (this.entries.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  private evict(tenantId: string, entry: Entry): void {
    this.entries.delete(tenantId);
    // A call still using it fails as "unreachable" and is retried by its poller; never thrown here.
    void entry.backend.close?.().catch(() => {});
  }
}
