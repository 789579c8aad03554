// Gateway rate limits (spec 8, 5.1): anonymous callers get a per-endpoint limit (30/min/IP,
// provider-configurable) and a global one (300/min/IP); callers presenting a verified credential
// (lib/gateway/presented-credential.ts) skip them but hit a 3,000/min/IP backstop; repeated forged
// credentials demote an IP to the anonymous limits for a minute. Each 402 makes the tenant's wallet
// create an invoice, so challenges have their own limit per IP and tenant (60/min). Counters live
// in the store (Redis when configured): losing them loses no money. Looking up an API name the
// gateway does not know costs a database query, so those lookups are limited per IP (60/min).
// "Per IP" is per /64 for IPv6 (one host usually holds a whole /64 and could rotate through it),
// and an IPv4-mapped address counts as its IPv4 address (lib/client-address.ts).
import { rateLimitClient } from "@/lib/client-address.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";

export type RateLimits = {
  endpointPerMinute: number;
  globalPerMinute: number;
  credentialedPerMinute: number;
  /** Forged credentials from one IP within a minute that trigger demotion. */
  forgeriesBeforeDemotion: number;
  demotionMs: number;
  /** 402 challenges (each one a new invoice on the tenant's wallet) per IP per tenant per minute. */
  challengesPerMinute: number;
  /** Database lookups of API names the gateway does not know (random slugs) per IP per minute. */
  tenantLookupsPerMinute: number;
};

export const defaultRateLimits: RateLimits = {
  endpointPerMinute: 30,
  globalPerMinute: 300,
  credentialedPerMinute: 3000,
  forgeriesBeforeDemotion: 5,
  demotionMs: 60_000,
  challengesPerMinute: 60,
  tenantLookupsPerMinute: 60,
};

type RateScope = "endpoint" | "global" | "credentialed" | "challenge" | "tenant_lookup";

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number; scope: RateScope };

const minute = 60_000;

export class GatewayRateLimiter {
  constructor(
    private readonly store: KeyValueStore,
    readonly limits: RateLimits = defaultRateLimits,
  ) {}

  /** Counts this request and decides; `credentialed` means a credential this endpoint accepts was verified (presentedCredential). */
  async check(options: { ip: string; tenantId: string; endpointId: string; endpointLimit: number | null; credentialed: boolean }): Promise<RateDecision> {
    const ip = rateLimitClient(options.ip);
    const credentialed = options.credentialed && !(await this.store.get(`rl:demoted:${ip}`));
    if (credentialed) {
      const c = await this.store.increment(`rl:cred:${ip}`, minute);
      return c.count > this.limits.credentialedPerMinute ? this.refuse(c.ttlMs, "credentialed") : { ok: true };
    }
    const [endpoint, global] = await Promise.all([
      this.store.increment(`rl:ep:${options.endpointId}:${ip}`, minute),
      this.store.increment(`rl:all:${ip}`, minute),
    ]);
    if (endpoint.count > (options.endpointLimit ?? this.limits.endpointPerMinute)) return this.refuse(endpoint.ttlMs, "endpoint");
    if (global.count > this.limits.globalPerMinute) return this.refuse(global.ttlMs, "global");
    return { ok: true };
  }

  /** Counts a 402 challenge (a new invoice) of this tenant for this IP and decides. */
  async checkChallenge(options: { ip: string; tenantId: string }): Promise<RateDecision> {
    const c = await this.store.increment(`rl:challenge:${options.tenantId}:${rateLimitClient(options.ip)}`, minute);
    return c.count > this.limits.challengesPerMinute ? this.refuse(c.ttlMs, "challenge") : { ok: true };
  }

  /** Counts a database lookup of an API name this gateway does not know yet (TenantCache.lookupNeeded) and decides. */
  async checkTenantLookup(ip: string): Promise<RateDecision> {
    const c = await this.store.increment(`rl:lookup:${rateLimitClient(ip)}`, minute);
    return c.count > this.limits.tenantLookupsPerMinute ? this.refuse(c.ttlMs, "tenant_lookup") : { ok: true };
  }

  /** Records a forged credential (bad macaroon, wrong preimage, tampered token) from an IP. */
  async recordForgery(address: string): Promise<void> {
    const ip = rateLimitClient(address);
    const strikes = await this.store.increment(`rl:forged:${ip}`, minute);
    if (strikes.count >= this.limits.forgeriesBeforeDemotion) await this.store.set(`rl:demoted:${ip}`, "1", this.limits.demotionMs);
  }

  private refuse(ttlMs: number, scope: RateScope): RateDecision {
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)), scope };
  }
}
