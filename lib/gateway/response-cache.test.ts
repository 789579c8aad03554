// Response cache rules and both implementations (bounded memory LRU, store-backed for Redis).
import { describe, expect, it } from "vitest";
import { MemoryStore } from "@/lib/store/memory.ts";
import { cacheKey, isStorableResponse, MemoryResponseCache, responseCacheFor, StoreResponseCache, type CachedResponse } from "./response-cache.ts";

const entry = (body: string, storedAt = 1_000): CachedResponse => ({
  statusCode: 200,
  headers: { "content-type": "text/plain" },
  body: Buffer.from(body),
  storedAt,
});

describe("isStorableResponse", () => {
  it.each([
    [200, {}, true],
    [204, { "cache-control": "public, max-age=60" }, true],
    [200, { vary: "Accept-Encoding" }, true],
    [200, { "cache-control": "no-store" }, false],
    [200, { "cache-control": "max-age=0, Private" }, false],
    [200, { "cache-control": "no-cache" }, false],
    [200, { "set-cookie": ["a=1"] }, false],
    [200, { vary: "Authorization" }, false],
    [200, { vary: "*" }, false],
    [301, {}, false],
    [404, {}, false],
    [500, {}, false],
  ] as const)("%i %j → %s", (status, headers, storable) => {
    expect(isStorableResponse(status, headers as Record<string, string | string[]>)).toBe(storable);
  });
});

describe("cacheKey", () => {
  it("separates tenants, paths, queries and encodings", () => {
    const base = { tenantId: "t1", method: "GET", path: "/v1/x", search: "?a=1", acceptEncoding: "gzip" };
    const keys = new Set([
      cacheKey(base),
      cacheKey({ ...base, tenantId: "t2" }),
      cacheKey({ ...base, path: "/v1/y" }),
      cacheKey({ ...base, search: "?a=2" }),
      cacheKey({ ...base, acceptEncoding: undefined }),
    ]);
    expect(keys.size).toBe(5);
    expect(cacheKey(base)).toBe(cacheKey({ ...base, acceptEncoding: " GZIP " }));
  });
});

describe("MemoryResponseCache", () => {
  it("expires entries after their TTL", async () => {
    const cache = new MemoryResponseCache();
    await cache.set("k", entry("hello"), 5_000);
    expect((await cache.get("k", 5_999))?.body.toString()).toBe("hello");
    expect(await cache.get("k", 6_000)).toBeNull();
    expect(cache.size).toBe(0);
  });

  it("stays within its byte bound, evicting the least recently used first", async () => {
    const cache = new MemoryResponseCache(12_000); // room for four 2 KB entries (each counts ~2.5 KB)
    const body = "x".repeat(2_000);
    for (const key of ["a", "b", "c", "d"]) await cache.set(key, entry(body), 60_000);
    await cache.get("a", 2_000); // a is now the most recently used
    await cache.set("e", entry(body), 60_000);
    expect(cache.size).toBeLessThanOrEqual(12_000);
    expect(await cache.get("b", 2_000)).toBeNull();
    expect(await cache.get("a", 2_000)).not.toBeNull();
    expect(await cache.get("e", 2_000)).not.toBeNull();
    await cache.set("huge", entry("y".repeat(20_000)), 60_000);
    expect(await cache.get("huge", 2_000)).toBeNull();
  });
});

describe("StoreResponseCache", () => {
  it("round-trips status, headers and binary bodies through the store, and honours the TTL", async () => {
    const cache = new StoreResponseCache(new MemoryStore());
    const binary: CachedResponse = { statusCode: 203, headers: { "x-a": ["1", "2"] }, body: Buffer.from([0, 255, 10, 13]), storedAt: 1_000 };
    await cache.set("k", binary, 60_000);
    expect(await cache.get("k", 2_000)).toEqual(binary);
    expect(await cache.get("k", 61_000)).toBeNull();
  });

  it("is what a Redis store gets; memory stores get the bounded LRU", () => {
    expect(responseCacheFor(new MemoryStore())).toBeInstanceOf(MemoryResponseCache);
    const redisLike = Object.assign(new MemoryStore(), { kind: "redis" as const });
    expect(responseCacheFor(redisLike as unknown as MemoryStore)).toBeInstanceOf(StoreResponseCache);
  });
});
