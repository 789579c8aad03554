// Response caching per endpoint TTL (spec 4.1 rule 4): only GET 2xx responses, keyed by tenant,
// method, path and query (plus the client's Accept-Encoding, since an origin may compress), never
// a response the origin marks no-store or private, that sets cookies or that varies on other
// request headers. Shared through Redis when configured (the KeyValueStore, TTL enforced by
// Redis); otherwise a bounded in-memory LRU, bounded in bytes because bodies are the cost. Losing
// the cache loses no money: payment applies to hits and misses alike.
import { createHash } from "node:crypto";
import type { KeyValueStore } from "@/lib/store/types.ts";

/** A stored response: origin status, origin headers (hop-by-hop already stripped) and body. */
export type CachedResponse = { statusCode: number; headers: Record<string, string | string[]>; body: Buffer; storedAt: number };

/** What the gateway needs from a response cache (memory and store-backed implementations). */
export interface ResponseCache {
  /** The live entry for a key at `now` (ms), or null. */
  get(key: string, now: number): Promise<CachedResponse | null>;
  set(key: string, entry: CachedResponse, ttlMs: number): Promise<void>;
}

/** Largest body we cache: bigger responses are served but not stored. */
export const MAX_CACHED_BODY_BYTES = 1024 * 1024;

/** The cache key of a request: a hash, so long URLs cost the store nothing extra. */
export function cacheKey(parts: { tenantId: string; method: string; path: string; search: string; acceptEncoding: string | undefined }): string {
  const material = [parts.tenantId, parts.method, parts.path, parts.search, (parts.acceptEncoding ?? "").trim().toLowerCase()].join("\n");
  return `rc:${createHash("sha256").update(material).digest("base64url")}`;
}

function headerText(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value.join(",") : (value ?? "")).toLowerCase();
}

/**
 * Whether the origin allows a shared cache to keep this response: 2xx, no `no-store` or
 * `private` Cache-Control (nor `no-cache`, which demands revalidation we do not do), no
 * Set-Cookie, and no Vary other than Accept-Encoding (which is part of our key).
 */
export function isStorableResponse(statusCode: number, headers: Record<string, string | string[] | undefined>): boolean {
  if (statusCode < 200 || statusCode >= 300) return false;
  if (headers["set-cookie"] !== undefined) return false;
  const directives = headerText(headers["cache-control"])
    .split(",")
    .map((d) => d.trim().split("=")[0]);
  if (directives.some((d) => d === "no-store" || d === "private" || d === "no-cache")) return false;
  const vary = headerText(headers.vary)
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  return vary.every((v) => v === "accept-encoding");
}

type MemoryEntry = CachedResponse & { expiresAt: number; size: number };

/** Per-process LRU bounded by total bytes (bodies plus a rough header allowance). */
export class MemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, MemoryEntry>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** Bytes held now (tests check the bound). */
  get size(): number {
    return this.bytes;
  }

  async get(key: string, now: number): Promise<CachedResponse | null> {
    const entry = this.entries.get(key);
    if (!entry) return null;
    this.entries.delete(key);
    if (entry.expiresAt <= now) {
      this.bytes -= entry.size;
      return null;
    }
    this.entries.set(key, entry); // most recently used goes last
    return entry;
  }

  async set(key: string, entry: CachedResponse, ttlMs: number): Promise<void> {
    const size = entry.body.length + 512 + JSON.stringify(entry.headers).length;
    if (size > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.size;
    }
    this.entries.set(key, { ...entry, expiresAt: entry.storedAt + ttlMs, size });
    this.bytes += size;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.size;
    }
  }
}

/** Cache in the shared KeyValueStore (Redis): every gateway instance sees every entry. */
export class StoreResponseCache implements ResponseCache {
  constructor(private readonly store: KeyValueStore) {}

  async get(key: string, now: number): Promise<CachedResponse | null> {
    const text = await this.store.get(key);
    if (!text) return null;
    try {
      const stored = JSON.parse(text) as { s: number; h: Record<string, string | string[]>; b: string; t: number; e: number };
      if (stored.e <= now) return null;
      return { statusCode: stored.s, headers: stored.h, body: Buffer.from(stored.b, "base64"), storedAt: stored.t };
    } catch {
      return null;
    }
  }

  async set(key: string, entry: CachedResponse, ttlMs: number): Promise<void> {
    const value = JSON.stringify({ s: entry.statusCode, h: entry.headers, b: entry.body.toString("base64"), t: entry.storedAt, e: entry.storedAt + ttlMs });
    await this.store.set(key, value, ttlMs);
  }
}

/** Redis-backed when the store is Redis (shared by all instances), bounded memory otherwise. */
export function responseCacheFor(store: KeyValueStore, memoryMaxBytes?: number): ResponseCache {
  return store.kind === "redis" ? new StoreResponseCache(store) : new MemoryResponseCache(memoryMaxBytes);
}
