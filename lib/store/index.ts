// Chooses the store: Redis when REDIS_URL is set, otherwise the in-memory store.
import { createLogger, type Logger } from "@/lib/logging/logger.ts";
import { DegradingStore } from "./degrading.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import type { KeyValueStore } from "./types.ts";

export type { KeyValueStore, CounterResult } from "./types.ts";
export { MemoryStore } from "./memory.ts";
export { RedisStore } from "./redis.ts";
export { DegradingStore } from "./degrading.ts";

/**
 * Opens the store for a process; `prefix` isolates test runs sharing one Redis. Redis is wrapped so
 * that an outage degrades the process (per-process limits, logged once) instead of failing calls.
 */
export function openStore(options: { redisUrl: string | null; prefix?: string; log?: Logger }): KeyValueStore {
  if (!options.redisUrl) return new MemoryStore();
  return new DegradingStore(new RedisStore(options.redisUrl, options.prefix), options.log ?? createLogger("info", { part: "store" }));
}

const globalKey = Symbol.for("l402-hub.store");
type GlobalWithStore = typeof globalThis & { [globalKey]?: KeyValueStore };

/** Shares server.ts's store with Next's separately bundled route handlers (same process). */
export function registerStore(store: KeyValueStore): void {
  (globalThis as GlobalWithStore)[globalKey] = store;
}

export function getStore(options: { redisUrl: string | null }): KeyValueStore {
  const g = globalThis as GlobalWithStore;
  g[globalKey] ??= openStore(options);
  return g[globalKey];
}
