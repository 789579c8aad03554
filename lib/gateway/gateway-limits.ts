// The gateway's fixed limits and timings (spec 8 and our own decisions); tests override some
// through GatewayOptions.limits.

/** Defaults of every limit the gateway applies itself (rate limits are in rate-limit.ts). */
export const gatewayLimits = {
  maxBodyBytes: 1024 * 1024,
  bodyReadTimeoutMs: 15_000,
  originTimeoutMs: 30_000,
  /** A per_request token stays redeemable this long after its challenge (free retries included). */
  proofValiditySeconds: 24 * 3600,
  /** A claim blocks concurrent use of a proof; it lapses if this process dies mid-call. */
  claimLeaseMs: 2 * 60_000,
  /** A streaming origin must send its headers this soon, or the call is an upstream failure (spec 4.7 rule 7). */
  streamHeadersTimeoutMs: 1_500,
  /** A `: keep-alive` comment after this much silence on a stream (spec 8). */
  streamKeepAliveMs: 15_000,
  /** Stream lifetime when the endpoint sets no maxStreamSeconds. */
  streamMaxSeconds: 3_600,
  /** Origin silence that closes a stream when the endpoint sets no idleTimeoutSeconds. */
  streamIdleSeconds: 120,
  /** How long a stream that must end waits for the origin's current event to complete. */
  streamCloseGraceMs: 1_000,
  /** Resolution of stream timing (one interval per gateway drives every open stream). */
  streamTickMs: 1_000,
  /** Largest per_kb response the gateway buffers to measure and charge. */
  perKbMaxBytes: 8 * 1024 * 1024,
  /** Bound of the in-memory response cache (used without Redis). */
  memoryCacheBytes: 64 * 1024 * 1024,
  /** Pooled connections per origin for ordinary calls (streams use their own, uncapped). */
  originConnections: 256,
  /** How often the usage counters held in memory are written to UsageCounter. */
  usageFlushMs: 2_000,
  /** At shutdown, how long calls in flight may take to finish before their connections are cut. */
  shutdownDrainMs: 10_000,
  /** After the drain, how long the handlers of cut calls get to give their claims back before the pools close. */
  shutdownCutGraceMs: 2_000,
};

/** The limits one gateway runs with: the defaults and its overrides. */
export type GatewayLimits = typeof gatewayLimits;
