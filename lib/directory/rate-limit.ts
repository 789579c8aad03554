// Directory API rate limits (spec 8): 100 requests per minute per IP per endpoint path and 300 per
// minute per IP overall; beyond either, 429 with Retry-After. "Endpoint path" is the route
// template (`/directory/:slug`), so walking every slug shares one budget (docs/decisions.md).
// Counters live in the KeyValueStore (Redis when configured, so every web instance shares them).
// "Per IP" counts an IPv6 caller by its /64, as the gateway does (lib/client-address.ts).
import { rateLimitClient } from "@/lib/client-address.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";

export type DirectoryRateLimits = { perPathPerMinute: number; overallPerMinute: number };

export const directoryRateLimits: DirectoryRateLimits = { perPathPerMinute: 100, overallPerMinute: 300 };

export type DirectoryRateDecision =
  { ok: true; limit: number; remaining: number } | { ok: false; retryAfterSeconds: number; scope: "path" | "overall"; limit: number };

const minute = 60_000;

/** Counts one request of `ip` to `route` and decides. Both counters advance on every request. */
export async function checkDirectoryRateLimit(options: {
  store: KeyValueStore;
  ip: string;
  route: string;
  limits?: DirectoryRateLimits;
}): Promise<DirectoryRateDecision> {
  const { store, route, limits = directoryRateLimits } = options;
  const ip = rateLimitClient(options.ip);
  const [path, overall] = await Promise.all([store.increment(`dir:rl:path:${route}:${ip}`, minute), store.increment(`dir:rl:all:${ip}`, minute)]);
  const retry = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs / 1000));
  if (path.count > limits.perPathPerMinute) return { ok: false, retryAfterSeconds: retry(path.ttlMs), scope: "path", limit: limits.perPathPerMinute };
  if (overall.count > limits.overallPerMinute) return { ok: false, retryAfterSeconds: retry(overall.ttlMs), scope: "overall", limit: limits.overallPerMinute };
  return { ok: true, limit: limits.perPathPerMinute, remaining: limits.perPathPerMinute - path.count };
}

/**
 * The caller's address as the web server saw it. server.ts writes X-Hub-Client-IP on every request
 * (overwriting anything a client sent, honouring TRUSTED_PROXIES); without it (`next start` alone)
 * the last X-Forwarded-For entry, which Next itself sets from the socket when the client sent none.
 */
export function requestClientIp(headers: Headers): string {
  const trusted = headers.get("x-hub-client-ip");
  if (trusted) return trusted;
  const forwarded = headers.get("x-forwarded-for");
  const last = forwarded
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .pop();
  return last ?? "unknown";
}
