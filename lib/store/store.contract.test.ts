// One contract for every KeyValueStore: the in-memory store always, Redis when REDIS_URL is set.
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import type { KeyValueStore } from "./types.ts";

const factories: [string, () => KeyValueStore][] = [["memory", () => new MemoryStore()]];
if (process.env.REDIS_URL) factories.push(["redis", () => new RedisStore(process.env.REDIS_URL!, `contract:${randomBytes(4).toString("hex")}:`)]);

describe.each(factories)("%s store", (_name, make) => {
  const store = make();
  afterAll(() => store.close());
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("gets, sets, expires and deletes", async () => {
    expect(await store.get("a")).toBeNull();
    await store.set("a", "1");
    await store.set("b", "2", 50);
    expect(await store.get("a")).toBe("1");
    expect(await store.get("b")).toBe("2");
    await sleep(80);
    expect(await store.get("b")).toBeNull();
    await store.del("a");
    expect(await store.get("a")).toBeNull();
  });

  it("stores only absent keys with setIfAbsent", async () => {
    expect(await store.setIfAbsent("nonce", "1", 1000)).toBe(true);
    expect(await store.setIfAbsent("nonce", "2", 1000)).toBe(false);
    expect(await store.get("nonce")).toBe("1");
  });

  it("counts in fixed windows that reset", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => store.increment("ctr", 100)));
    expect(results.map((r) => r.count).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(results.every((r) => r.ttlMs > 0 && r.ttlMs <= 100)).toBe(true);
    await sleep(130);
    expect((await store.increment("ctr", 100)).count).toBe(1);
  });

  it("publishes to subscribers until they unsubscribe", async () => {
    const got: string[] = [];
    const off = await store.subscribe("chan", (m) => got.push(m));
    await store.publish("chan", "hello");
    await sleep(50);
    await off();
    await store.publish("chan", "ignored");
    await sleep(50);
    expect(got).toEqual(["hello"]);
    expect(await store.ping()).toBe(true);
  });
});
