// Where the platform may send requests on a provider's behalf (their origin): the SSRF rules
// (./ssrf.ts) with http allowed, checked when the origin URL is saved and again at
// every connection by the gateway's and the health monitor's pinned dispatchers, so neither a
// private address nor a DNS answer that changes later (rebinding) reaches the internal network.
// ORIGIN_ALLOW_PRIVATE (on outside production) lifts the address rule for local development.
import { Agent } from "undici";
import { AppError } from "@/lib/errors/index.ts";
import { checkTargetUrl, createPinnedDispatcher, systemResolver, type HostResolver, type TargetPolicy } from "./ssrf.ts";

/** Every address: the allow-list of installs that permit private origins. */
const ANY_ADDRESS = ["0.0.0.0/0", "::/0"];

export function originTargetPolicy(config: { originAllowPrivate: boolean }, resolver: HostResolver = systemResolver): TargetPolicy {
  return { resolver, allowedTargets: config.originAllowPrivate ? ANY_ADDRESS : [] };
}

/**
 * The save-time check: a refused origin is a 422 naming `originUrl` and the rule that failed.
 * Where private origins are allowed only the URL's shape is checked (a host whose DNS is not live
 * yet can be saved during development).
 */
export async function assertOriginUrl(rawUrl: string, config: { originAllowPrivate: boolean }, resolver: HostResolver = systemResolver): Promise<void> {
  const problem = await checkTargetUrl(rawUrl, originTargetPolicy(config, resolver), { requireHttps: false, addressCheck: !config.originAllowPrivate });
  if (!problem) return;
  throw new AppError("validation_failed", `Invalid request: originUrl: ${problem.message} (rule ${problem.rule})`, {
    fields: [{ field: "originUrl", message: problem.message, rule: problem.rule }],
  });
}

/**
 * The dispatcher for calls to origins: pinned to the addresses the SSRF rules allow, or a plain
 * agent where private origins are allowed. `connections: null` means no per-origin cap (streams
 * hold their connection for their whole life).
 */
export function originDispatcher(
  config: { originAllowPrivate: boolean },
  options: { connections: number | null; keepAliveTimeoutMs: number; resolver?: HostResolver },
): Agent {
  const connections = options.connections ?? undefined;
  if (config.originAllowPrivate) return new Agent({ keepAliveTimeout: options.keepAliveTimeoutMs, connections, pipelining: 1 });
  return createPinnedDispatcher({
    ...originTargetPolicy(config, options.resolver),
    connectionsPerOrigin: options.connections,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs,
  });
}
