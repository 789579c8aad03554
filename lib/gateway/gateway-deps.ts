// Everything the gateway's steps use, built once by createGateway (server.ts) and handed to them
// explicitly: serveRequest(deps, ctx), serveCall(deps, call)... Each step names the part it needs
// with Pick<GatewayDeps, ...>, so what a file can reach is written in its signature.
import type { Dispatcher } from "undici";
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { createDiscoveryServer } from "@/lib/directory/discovery.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { DeadlineSweeper } from "@/lib/origin/deadlines.ts";
import type { StreamTicker } from "./event-stream-relay.ts";
import type { GatewayLimits } from "./gateway-limits.ts";
import type { HealthCheck } from "./health-check.ts";
import type { ForwardedAddresses } from "./origin-request.ts";
import type { GatewayRateLimiter } from "./rate-limit.ts";
import type { ReservePaymentDeps } from "./reserve-payment.ts";
import type { ResponseCache } from "./response-cache.ts";
import type { StreamSlots } from "./stream-slots.ts";
import type { TenantCache } from "./tenant-cache.ts";
import type { WalletPool } from "./wallet-pool.ts";

/** The gateway's dependencies: configuration, clock, caches, limiters, pools. */
export type GatewayDeps = {
  config: Config;
  limits: GatewayLimits;
  log: Logger;
  /** Milliseconds since the epoch (tests move it). */
  clock: () => number;
  prisma: PrismaClient;
  tenants: TenantCache;
  /** /.well-known/ discovery documents (spec 4.2), rebuilt whenever the cached tenant is. */
  discovery: ReturnType<typeof createDiscoveryServer>;
  /** `.gw.example.com` when GATEWAY_URL_TEMPLATE puts the slug in the host, else null (path form only). */
  hostSuffix: string | null;
  /** SITE_URL's host (lower case): cookies stored for it reach the dashboard (cookie-policy.ts). */
  siteHost: string;
  limiter: GatewayRateLimiter;
  /** What reservePayment needs (database, keys, free-try verifier, token lifetimes). */
  payments: ReservePaymentDeps;
  wallets: WalletPool;
  cache: ResponseCache;
  /** Pooled connections to origins for ordinary calls. */
  dispatcher: Dispatcher;
  /** Connections for streams, uncapped: a stream holds its connection for its whole life. */
  streamDispatcher: Dispatcher;
  forwarded: ForwardedAddresses;
  /** Whole-call origin timeouts of non-stream calls. */
  deadlines: DeadlineSweeper;
  /** Drives every open stream's timing from one interval. */
  ticker: StreamTicker;
  /** Open streams per time_pass session (GATEWAY_STREAMS_PER_SESSION). */
  sessionStreams: StreamSlots;
  /** Open streams per IP on a tenant's free endpoints (GATEWAY_FREE_STREAMS_PER_IP). */
  freeStreams: StreamSlots;
  health: HealthCheck;
};
