import { describe, expect, it } from "vitest";
import { MemoryStore } from "@/lib/store/memory.ts";
import { checkDirectoryRateLimit } from "./rate-limit.ts";

const limits = { perPathPerMinute: 3, overallPerMinute: 5 };

async function allowed(store: MemoryStore, ips: string[], route = "/directory") {
  const decisions = [];
  for (const ip of ips) decisions.push((await checkDirectoryRateLimit({ store, ip, route, limits })).ok);
  return decisions;
}

describe("directory rate limits per caller", () => {
  it("counts an IPv6 caller by its /64: rotating the interface identifier does not reset the budget", async () => {
    const store = new MemoryStore();
    const sameNetwork = ["2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:aaaa::3", "2001:db8:1:2:ffff:ffff:ffff:ffff"];
    expect(await allowed(store, sameNetwork)).toEqual([true, true, true, false]);
    // Another /64 has its own budget.
    expect(await allowed(store, ["2001:db8:1:3::1"])).toEqual([true]);
  });

  it("counts an IPv4-mapped address as the IPv4 address", async () => {
    const store = new MemoryStore();
    expect(await allowed(store, ["198.51.100.7", "::ffff:198.51.100.7", "::ffff:c633:6407", "198.51.100.7"])).toEqual([true, true, true, false]);
  });

  it("keeps the overall budget across paths", async () => {
    const store = new MemoryStore();
    const ip = "203.0.113.5";
    for (const route of ["/a", "/b", "/c", "/d", "/e"]) expect((await checkDirectoryRateLimit({ store, ip, route, limits })).ok).toBe(true);
    expect(await checkDirectoryRateLimit({ store, ip, route: "/f", limits })).toMatchObject({ ok: false, scope: "overall", limit: 5 });
  });
});
