// What the listing review needs from the running platform: the dispatcher every review request goes
// through (the webhooks' SSRF policy: WEBHOOK_ALLOWED_TARGETS, resolved address checked at connect
// time, https trust from the system store plus NODE_EXTRA_CA_CERTS) and the platform wallet's send
// side. Only the dev node can pay today (no real wallet backend has a send call yet), so with
// PLATFORM_WALLET_* set the review checks challenges and invoices but skips paid answers.
import type { Agent } from "undici";
import type { Config } from "@/lib/config/index.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createPinnedDispatcher, targetPolicyFor, type HostResolver } from "@/lib/origin/ssrf.ts";
import type { ReviewPayer } from "./review-listing.ts";

/** The review's pinned dispatcher. `ca` (tests) replaces the trusted certificates. */
export function listingReviewDispatcher(config: Pick<Config, "webhookAllowedTargets">, options: { resolver?: HostResolver; ca?: string } = {}): Agent {
  return createPinnedDispatcher({
    ...targetPolicyFor(config, options.resolver),
    ca: options.ca,
    connectTimeoutMs: 10_000,
    connectionsPerOrigin: 4,
    // Unused in practice: review requests ask for Connection: close (lib/listings/review-http.ts).
    keepAliveTimeoutMs: 1_000,
  });
}

/** The platform wallet's send side, or null when it cannot pay: the dev node on the embedded defaults. */
export function listingReviewPayer(options: { config: Pick<Config, "platformWallet">; devNode: DevLightningNode | null }): ReviewPayer | null {
  const { config, devNode } = options;
  if (!devNode) return null;
  if (config.platformWallet && config.platformWallet.type !== "dev") return null;
  return { pay: async (paymentRequest) => ({ preimage: (await devNode.pay(paymentRequest)).preimage }) };
}
