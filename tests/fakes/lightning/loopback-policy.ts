// The wallet address rules of a test whose fakes listen on loopback: what WALLET_ALLOWED_TARGETS
// would say for a self-hoster whose node runs on the same machine. Test-only code.
import { systemResolver, type TargetPolicy } from "@/lib/origin/ssrf.ts";

/** Loopback allowed (127.0.0.0/8 and ::1), everything else private or reserved still refused. */
export const LOOPBACK_WALLET_POLICY: TargetPolicy = { resolver: systemResolver, allowedTargets: ["127.0.0.0/8", "::1/128"] };

/** The same as a WALLET_ALLOWED_TARGETS value, for test contexts built from the environment. */
export const LOOPBACK_WALLET_TARGETS = LOOPBACK_WALLET_POLICY.allowedTargets.join(",");
