import { describe, expect, it } from "vitest";
import { MemoryStore } from "@/lib/store/memory.ts";
import { GatewayRateLimiter, defaultRateLimits } from "./rate-limit.ts";

const req = { ip: "203.0.113.9", tenantId: "t", endpointId: "e1", endpointLimit: null as number | null, credentialed: false };

async function countAllowed(limiter: GatewayRateLimiter, n: number, options = req) {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await limiter.check(options)).ok) ok++;
  return ok;
}

describe("GatewayRateLimiter", () => {
  it("allows 30 anonymous requests per endpoint per minute, then answers with Retry-After", async () => {
    const limiter = new GatewayRateLimiter(new MemoryStore());
    expect(await countAllowed(limiter, 35)).toBe(30);
    const refused = await limiter.check(req);
    expect(refused).toMatchObject({ ok: false, scope: "endpoint" });
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await limiter.check({ ...req, ip: "203.0.113.10" })).ok).toBe(true);
  });

  it("honours the provider's per-endpoint limit", async () => {
    const limiter = new GatewayRateLimiter(new MemoryStore());
    expect(await countAllowed(limiter, 10, { ...req, endpointLimit: 3 })).toBe(3);
  });

  it("caps anonymous traffic over all endpoints at 300 per minute", async () => {
    const limiter = new GatewayRateLimiter(new MemoryStore());
    let ok = 0;
    for (let i = 0; i < 320; i++) if ((await limiter.check({ ...req, endpointId: `e${i % 20}` })).ok) ok++;
    expect(ok).toBe(300);
  });

  it("lets credentialed callers skip the anonymous limits up to the backstop", async () => {
    const limiter = new GatewayRateLimiter(new MemoryStore(), { ...defaultRateLimits, credentialedPerMinute: 100 });
    expect(await countAllowed(limiter, 120, { ...req, credentialed: true })).toBe(100);
  });

  it("demotes an IP that keeps forging credentials to the anonymous limits for a minute", async () => {
    let now = 0;
    const limiter = new GatewayRateLimiter(new MemoryStore({ now: () => now }));
    for (let i = 0; i < 4; i++) await limiter.recordForgery(req.ip);
    expect(await countAllowed(limiter, 40, { ...req, credentialed: true })).toBe(40);
    await limiter.recordForgery(req.ip);
    expect(await countAllowed(limiter, 40, { ...req, endpointId: "e2", credentialed: true })).toBe(30);
    now += 61_000;
    expect(await countAllowed(limiter, 40, { ...req, endpointId: "e3", credentialed: true })).toBe(40);
  });

  it("bounds 402 challenges per IP and tenant, separately from the request limits", async () => {
    const limiter = new GatewayRateLimiter(new MemoryStore(), { ...defaultRateLimits, challengesPerMinute: 3 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push((await limiter.checkChallenge({ ip: req.ip, tenantId: "t1" })).ok);
    expect(results).toEqual([true, true, true, false]);
    expect((await limiter.checkChallenge({ ip: req.ip, tenantId: "t2" })).ok).toBe(true);
    expect((await limiter.checkChallenge({ ip: "203.0.113.10", tenantId: "t1" })).ok).toBe(true);
    expect(await countAllowed(limiter, 3)).toBe(3);
  });
});
