// In-memory KeyValueStore for the embedded single-process mode and tests.
import { EventEmitter } from "node:events";
import type { CounterResult, KeyValueStore } from "./types.ts";

type Entry = { value: string; expiresAt: number | null };

export type MemoryStoreOptions = {
  /** Entries kept at most; the oldest are evicted first (bounds memory use). */
  maxEntries?: number;
  now?: () => number;
};

export class MemoryStore implements KeyValueStore {
  readonly kind = "memory" as const;
  private readonly entries = new Map<string, Entry>();
  private readonly bus = new EventEmitter();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
    this.bus.setMaxListeners(0);
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private write(key: string, entry: Entry) {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  async get(key: string) {
    return this.live(key)?.value ?? null;
  }

  async set(key: string, value: string, ttlMs?: number) {
    this.write(key, { value, expiresAt: ttlMs ? this.now() + ttlMs : null });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    if (this.live(key)) return false;
    this.write(key, { value, expiresAt: this.now() + ttlMs });
    return true;
  }

  async del(key: string) {
    this.entries.delete(key);
  }

  async increment(key: string, windowMs: number): Promise<CounterResult> {
    const entry = this.live(key);
    const now = this.now();
    if (!entry) {
      this.write(key, { value: "1", expiresAt: now + windowMs });
      return { count: 1, ttlMs: windowMs };
    }
    entry.value = String(Number(entry.value) + 1);
    return { count: Number(entry.value), ttlMs: Math.max(0, (entry.expiresAt ?? now + windowMs) - now) };
  }

  async publish(channel: string, message: string) {
    this.bus.emit(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    this.bus.on(channel, onMessage);
    return async () => void this.bus.off(channel, onMessage);
  }

  async ping() {
    return true;
  }

  async close() {
    this.entries.clear();
    this.bus.removeAllListeners();
  }
}
