// Redis KeyValueStore: shared by every web, gateway and worker process in production.
import { Redis } from "ioredis";
import type { CounterResult, KeyValueStore } from "./types.ts";

// INCR and set the window's expiry atomically on the first hit; return count and remaining ms.
const incrementScript = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

export class RedisStore implements KeyValueStore {
  readonly kind = "redis" as const;
  private readonly client: Redis;
  private subscriber: Redis | null = null;
  private readonly handlers = new Map<string, Set<(message: string) => void>>();

  constructor(
    private readonly url: string,
    private readonly prefix = "hub:",
  ) {
    this.client = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.client.on("error", () => {}); // surfaced through ping() and command errors
    this.client.on("ready", () => (this.everReady = true));
  }

  /** Whether it has connected at least once. */
  everReady = false;

  /** Connected now: commands go straight to Redis instead of waiting in the offline queue. */
  get ready(): boolean {
    return this.client.status === "ready";
  }

  async get(key: string) {
    return this.client.get(this.prefix + key);
  }

  async set(key: string, value: string, ttlMs?: number) {
    if (ttlMs) await this.client.set(this.prefix + key, value, "PX", ttlMs);
    else await this.client.set(this.prefix + key, value);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    return (await this.client.set(this.prefix + key, value, "PX", ttlMs, "NX")) === "OK";
  }

  async del(key: string) {
    await this.client.del(this.prefix + key);
  }

  async increment(key: string, windowMs: number): Promise<CounterResult> {
    const [count, ttl] = (await this.client.eval(incrementScript, 1, this.prefix + key, windowMs)) as [number, number];
    return { count, ttlMs: ttl };
  }

  async publish(channel: string, message: string) {
    await this.client.publish(this.prefix + channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void) {
    const full = this.prefix + channel;
    if (!this.subscriber) {
      this.subscriber = new Redis(this.url, { maxRetriesPerRequest: null });
      this.subscriber.on("error", () => {});
      this.subscriber.on("message", (ch: string, message: string) => {
        for (const handler of this.handlers.get(ch) ?? []) handler(message);
      });
    }
    let set = this.handlers.get(full);
    if (!set) {
      set = new Set();
      this.handlers.set(full, set);
      await this.subscriber.subscribe(full);
    }
    set.add(onMessage);
    return async () => {
      set.delete(onMessage);
      if (set.size === 0) {
        this.handlers.delete(full);
        await this.subscriber?.unsubscribe(full).catch(() => {});
      }
    };
  }

  async ping() {
    try {
      return (await this.client.ping()) === "PONG";
    } catch {
      return false;
    }
  }

  async close() {
    await Promise.all([this.client.quit().catch(() => {}), this.subscriber?.quit().catch(() => {})]);
  }
}
