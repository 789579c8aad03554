import { describe, expect, it } from "vitest";
import { createLogger } from "@/lib/logging/logger.ts";
import { MemoryStore } from "@/lib/store/memory.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { StreamSlots } from "./stream-slots.ts";

const log = createLogger("silent");

describe("StreamSlots", () => {
  it("caps a session's streams across instances sharing a store, and a release frees a slot", async () => {
    const store = new MemoryStore();
    const a = new StreamSlots({ store, log, limit: 2 });
    const b = new StreamSlots({ store, log, limit: 2 });
    const first = await a.acquire("s1");
    const second = await b.acquire("s1");
    expect(first && second).toBeTruthy();
    expect(await a.acquire("s1")).toBeNull();
    expect(await b.acquire("s1")).toBeNull();
    expect(await a.acquire("s2")).not.toBeNull();
    second!.release();
    second!.release(); // idempotent: frees one slot, not two
    await new Promise((r) => setImmediate(r));
    expect(await a.acquire("s1")).not.toBeNull();
    expect(await b.acquire("s1")).toBeNull();
    a.close();
    b.close();
  });

  it("frees the slots of an instance that died once their lease lapses", async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now });
    const dead = new StreamSlots({ store, log, limit: 1, leaseMs: 30_000 });
    expect(await dead.acquire("s1")).not.toBeNull();
    dead.close(); // no release, no renewal: the process is gone
    const alive = new StreamSlots({ store, log, limit: 1, leaseMs: 30_000 });
    expect(await alive.acquire("s1")).toBeNull();
    now += 30_001;
    expect(await alive.acquire("s1")).not.toBeNull();
    alive.close();
  });

  it("still caps streams in this process when the store fails", async () => {
    const failing = {
      setIfAbsent: () => Promise.reject(new Error("store down")),
      del: () => Promise.reject(new Error("store down")),
    } as unknown as KeyValueStore;
    const slots = new StreamSlots({ store: failing, log, limit: 2 });
    const taken = [await slots.acquire("s1"), await slots.acquire("s1"), await slots.acquire("s1")];
    expect(taken.map((slot) => slot !== null)).toEqual([true, true, false]);
    taken[0]!.release();
    expect(await slots.acquire("s1")).not.toBeNull();
    slots.close();
  });
});
