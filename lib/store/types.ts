// What the platform needs from a key-value store: data that may be lost without losing money
// (rate-limit counters, demotions, response cache, nonces, config-change notifications).

export type CounterResult = { count: number; ttlMs: number };

export interface KeyValueStore {
  readonly kind: "memory" | "redis";
  get(key: string): Promise<string | null>;
  /** Stores a value; with ttlMs it expires after that many milliseconds. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Stores only when the key is absent (nonce replay guard); true when stored. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Increments a fixed-window counter; the window starts with the first increment. */
  increment(key: string, windowMs: number): Promise<CounterResult>;
  publish(channel: string, message: string): Promise<void>;
  /** Subscribes to a channel; the returned function unsubscribes. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
