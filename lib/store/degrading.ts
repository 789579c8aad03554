// Redis as the platform uses it: shared rate-limit counters, the response cache, stream leases,
// config-change fan-out. None of it holds money (lib/store/types.ts), so when Redis goes away a
// process must keep serving on what it has rather than fail every call: counters, leases and cache
// entries move to this process's memory (rate limits then hold per process instead of across the
// cluster), publishes are dropped (other processes' caches catch up on their TTL), and the change of
// mode is logged once each way, never per request. Health checks still report the store's real state.
import type { Logger } from "@/lib/logging/logger.ts";
import { MemoryStore } from "./memory.ts";
import type { RedisStore } from "./redis.ts";
import type { CounterResult, KeyValueStore } from "./types.ts";

/** How long a store that has never connected may take before its absence counts as an outage. */
const connectGraceMs = 10_000;

export class DegradingStore implements KeyValueStore {
  readonly kind = "redis" as const;
  private readonly fallback: MemoryStore;
  private readonly createdAt: number;
  private degradedSince: number | null = null;

  constructor(
    private readonly primary: RedisStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.fallback = new MemoryStore({ maxEntries: 100_000, now });
    this.createdAt = now();
  }

  /** True while calls are answered from this process's memory. */
  get degraded(): boolean {
    return this.degradedSince !== null;
  }

  private async run<T>(operation: string, onPrimary: () => Promise<T>, onFallback: () => Promise<T>): Promise<T> {
    // While the first connection is still being made, commands wait for it in Redis's offline queue,
    // as they would without this wrapper: a process's first calls must not split their counters.
    // Once one of them has failed (a process started while Redis is down), the rest go to memory at
    // once rather than each waiting out its retries.
    const connecting = !this.primary.everReady && this.now() - this.createdAt <= connectGraceMs && this.degradedSince === null;
    if (this.primary.ready || connecting) {
      try {
        const result = await onPrimary();
        if (this.degradedSince !== null) this.recover();
        return result;
      } catch (err) {
        this.degrade(operation, err);
      }
    } else {
      this.degrade(operation, null);
    }
    return onFallback();
  }

  private degrade(operation: string, err: unknown): void {
    if (this.degradedSince !== null) return;
    this.degradedSince = this.now();
    this.log.warn("store unavailable: serving on, with rate limits, leases and the response cache in this process's memory until it returns", {
      store: "redis",
      operation,
      error: err ?? "not connected",
    });
  }

  private recover(): void {
    const outageMs = this.now() - (this.degradedSince ?? this.now());
    this.degradedSince = null;
    this.log.info("store recovered: rate limits, leases and the response cache are shared again", { store: "redis", outageMs });
  }

  get(key: string) {
    return this.run(
      "get",
      () => this.primary.get(key),
      () => this.fallback.get(key),
    );
  }

  set(key: string, value: string, ttlMs?: number) {
    return this.run(
      "set",
      () => this.primary.set(key, value, ttlMs),
      () => this.fallback.set(key, value, ttlMs),
    );
  }

  setIfAbsent(key: string, value: string, ttlMs: number) {
    return this.run(
      "setIfAbsent",
      () => this.primary.setIfAbsent(key, value, ttlMs),
      () => this.fallback.setIfAbsent(key, value, ttlMs),
    );
  }

  del(key: string) {
    return this.run(
      "del",
      () => this.primary.del(key),
      () => this.fallback.del(key),
    );
  }

  increment(key: string, windowMs: number): Promise<CounterResult> {
    return this.run(
      "increment",
      () => this.primary.increment(key, windowMs),
      () => this.fallback.increment(key, windowMs),
    );
  }

  publish(channel: string, message: string) {
    // Subscribers in this process still hear it; other processes miss it until Redis returns.
    return this.run(
      "publish",
      () => this.primary.publish(channel, message),
      () => this.fallback.publish(channel, message),
    );
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    // Both: Redis's subscriber reconnects and resubscribes by itself; the fallback carries what
    // this process publishes while Redis is away.
    const [offPrimary, offFallback] = await Promise.all([this.primary.subscribe(channel, onMessage), this.fallback.subscribe(channel, onMessage)]);
    return async () => {
      await Promise.all([offPrimary(), offFallback()]);
    };
  }

  /** The store's real state, for health checks: never the fallback's. */
  ping() {
    return this.primary.ping();
  }

  async close() {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
