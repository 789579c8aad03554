// The gateway: a plain node:http server in front of every tenant's origin (no Next imports).
// createGateway builds the dependencies once (GatewayDeps) and hands them, with each request's
// context, to the request path in serve-request.ts (whose header lists every step and its answers):
//   request -> request id -> tenant -> tenant state -> endpoint -> origin configured
//   -> credential (read without I/O) -> rate limit -> wallet -> body
//   -> reservePayment: challenge (402, answer-refusal.ts) | reserve (proof claim, session debit, credit burn, free try)
//   -> serve-call.ts (cache hit | origin call; per_kb: serve-metered.ts) | serve-stream.ts (SSE)
//   -> commit (consume / keep debit) or refund (revert / refunded_to_balance) -> response (respond.ts)
// This file only wires: the per-request context, usage counting when a response closes, and the
// draining shutdown (drain.ts).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import type { Agent, Dispatcher } from "undici";
import { gatewayHostSuffix, type Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import { createDiscoveryServer } from "@/lib/directory/discovery.ts";
import type { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { newRequestId, REQUEST_ID_HEADER } from "@/lib/logging/request-id.ts";
import { createFreeTryVerifier, type FreeTryVerifier } from "@/lib/payments/free-try.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { originDispatcher } from "@/lib/origin/origin-policy.ts";
import { CallAbort, DeadlineSweeper } from "@/lib/origin/deadlines.ts";
import { Drain } from "./drain.ts";
import { StreamTicker } from "./event-stream-relay.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { gatewayLimits, type GatewayLimits } from "./gateway-limits.ts";
import { HealthCheck } from "./health-check.ts";
import { ForwardedAddresses } from "./origin-request.ts";
import { clientIpResolver } from "@/lib/client-address.ts";
import { GatewayRateLimiter, defaultRateLimits, type RateLimits } from "./rate-limit.ts";
import type { RequestContext } from "./request-context.ts";
import { countUsage } from "./request-usage.ts";
import { exposedHeaders } from "./respond.ts";
import { responseCacheFor, type ResponseCache } from "./response-cache.ts";
import { serveRequest } from "./serve-request.ts";
import { StreamSlots } from "./stream-slots.ts";
import { TenantCache } from "./tenant-cache.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import { WalletPool } from "./wallet-pool.ts";
import { sendError } from "./write-response.ts";

/** What a gateway is built from: the process's database, store and config, and what tests replace. */
export type GatewayOptions = {
  config: Config;
  prisma: PrismaClient;
  /** The PostgreSQL pool behind `prisma` (Database.pg): paid calls' money statements use it directly. */
  pg?: pg.Pool | null;
  store: KeyValueStore;
  devNode: DevLightningNode | null;
  log: Logger;
  dispatcher?: Dispatcher;
  /** Overrides of the rate limits (defaultRateLimits, challengesPerMinute from the config). */
  rateLimits?: Partial<RateLimits>;
  /** Overrides of gatewayLimits (tests shorten timeouts). */
  limits?: Partial<GatewayLimits>;
  /** Milliseconds since the epoch: token validity, stream windows, cache ages (tests move it). Sessions and credit lapse by the database's clock. */
  clock?: () => number;
  /** Free-try token verifier; by default our own issuer plus FREE_TRY_* from the config. */
  freeTry?: FreeTryVerifier;
  /** Response cache; by default Redis when the store is Redis, bounded memory otherwise. */
  responseCache?: ResponseCache;
};

/** A running gateway: its HTTP server, its tenant cache, and a draining close. */
export type Gateway = {
  server: http.Server;
  tenants: TenantCache;
  /** SSE streams open right now (tests and the benchmark watch resources being released). */
  openStreams(): number;
  /** Writes the usage counts held in memory now (they are written every usageFlushMs anyway). */
  flushUsage(): Promise<void>;
  listen(port: number, host?: string): Promise<number>;
  close(): Promise<void>;
};

/** Builds a gateway: its dependencies once, then a server that hands every request to serveRequest. */
export function createGateway(options: GatewayOptions): Gateway {
  const { config, prisma, store, log } = options;
  const limits: GatewayLimits = { ...gatewayLimits, ...options.limits };
  const clock = options.clock ?? Date.now;
  const deps: GatewayDeps = {
    config,
    limits,
    log,
    clock,
    prisma,
    tenants: new TenantCache({ prisma, store, appSecret: config.appSecret }),
    discovery: createDiscoveryServer({ prisma, config }),
    hostSuffix: gatewayHostSuffix(config),
    // Cookies ignore ports: one stored for this host would reach the dashboard (cookie-policy.ts).
    siteHost: new URL(config.siteUrl).hostname.toLowerCase(),
    limiter: new GatewayRateLimiter(store, { ...defaultRateLimits, challengesPerMinute: config.gatewayChallengesPerMinute, ...options.rateLimits }),
    payments: {
      prisma,
      pg: options.pg ?? null,
      appSecret: config.appSecret,
      clock,
      freeTry: options.freeTry ?? createFreeTryVerifier({ appSecret: config.appSecret, ownIssuer: config.siteUrl, external: config.freeTryProvider }),
      proofValiditySeconds: limits.proofValiditySeconds,
      creditTtlSeconds: config.creditTtlDays * 86_400,
      balanceTtlMs: config.creditTtlDays * 86_400_000,
    },
    wallets: new WalletPool({ config, devNode: options.devNode }),
    cache: options.responseCache ?? responseCacheFor(store, limits.memoryCacheBytes),
    // Without ORIGIN_ALLOW_PRIVATE, every origin connection is pinned to addresses the SSRF rules
    // allow (lib/origin/origin-policy.ts), whatever the origin's DNS says after it was saved.
    dispatcher: options.dispatcher ?? originDispatcher(config, { connections: limits.originConnections, keepAliveTimeoutMs: 10_000 }),
    // A stream holds its upstream connection for its whole life: streams get their own agent with no
    // per-origin cap, so they never queue behind the pool (and never starve ordinary calls).
    streamDispatcher: options.dispatcher ?? originDispatcher(config, { connections: null, keepAliveTimeoutMs: 10_000 }),
    forwarded: new ForwardedAddresses(config),
    // Whole-call origin timeouts for non-stream calls, noticed within a quarter of the limit.
    deadlines: new DeadlineSweeper(Math.max(10, Math.min(250, Math.floor(limits.originTimeoutMs / 4)))),
    ticker: new StreamTicker(limits.streamTickMs, clock),
    // Streams that cost nothing per connection are capped per holder (stream-slots.ts).
    sessionStreams: new StreamSlots({ store, log, limit: config.gatewayStreamsPerSession }),
    freeStreams: new StreamSlots({ store, log, limit: config.gatewayFreeStreamsPerIp }),
    health: new HealthCheck({ prisma, store }),
  };
  const { tenants, deadlines, ticker } = deps;
  const clientIp = clientIpResolver(config.trustedProxies);
  const usage = new UsageRecorder({ prisma, log, flushIntervalMs: limits.usageFlushMs, clock });
  const drain = new Drain();

  const server = http.createServer((req, res) => {
    drain.responseStarted(res);
    const ctx: RequestContext = {
      req,
      res,
      requestId: newRequestId(),
      clientIp: clientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"]),
      abort: new CallAbort(),
      usage: null,
      cookieScope: null,
    };
    res.setHeader(REQUEST_ID_HEADER, ctx.requestId);
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", exposedHeaders);
    res.on("close", () => {
      drain.responseClosed(res);
      deadlines.delete(ctx.abort);
      // Whatever is still running upstream for this response ends with it: the client left, or an
      // error answer went out while an origin body was still unread (a finished call has already
      // detached its listener, so this is a no-op then).
      ctx.abort.abort();
      if (ctx.usage) countUsage(usage, ctx.usage, res.statusCode);
    });
    drain.handlerStarted();
    serveRequest(deps, ctx)
      .catch((err) => {
        log.error("gateway request failed", { requestId: ctx.requestId, error: err });
        sendError(ctx, "internal", "Internal gateway error");
      })
      .finally(() => drain.handlerEnded());
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 0; // streams may last long; the body reader has its own timeout
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 100;

  return {
    server,
    tenants,
    openStreams: () => ticker.size,
    flushUsage: () => usage.flush(),
    async listen(port, host = config.host) {
      await tenants.start();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    async close() {
      await drain.closeServer(server, { drainMs: limits.shutdownDrainMs, cutGraceMs: limits.shutdownCutGraceMs, endStreams: () => ticker.shutdown() });
      await tenants.stop();
      deadlines.close();
      deps.sessionStreams.close();
      deps.freeStreams.close();
      await usage.close().catch((err) => log.error("usage counters not written at shutdown", { error: err }));
      await deps.wallets.close();
      if (!options.dispatcher) await Promise.all([(deps.dispatcher as Agent).close(), (deps.streamDispatcher as Agent).close()]);
    },
  };
}
