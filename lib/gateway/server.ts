// The gateway: a plain node:http server in front of every tenant's origin (no Next imports).
// request -> request id -> tenant -> endpoint -> tenant state -> body limit -> credential
//   -> reservePayment: challenge (402) | reserve (proof claim, session debit, credit burn, free try)
//   -> cache hit | origin call (signed) -> plain relay | per_kb metering | SSE relay
//   -> commit (consume / keep debit) or refund (revert / refunded_to_balance) -> response
import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import type { Agent, Dispatcher } from "undici";
import { gatewayHostSuffix, gatewayUrlFor, type Config } from "../config/index.ts";
import type pg from "pg";
import type { PrismaClient } from "../db/client.ts";
import { createDiscoveryServer } from "../directory/discovery.ts";
import type { ErrorCode } from "../errors/index.ts";
import { canonicalQuery } from "../l402/canonical-path.ts";
import { parseAuthorization } from "../l402/headers.ts";
import type { DevLightningNode } from "../lightning/dev-node.ts";
import { WalletError } from "../lightning/types.ts";
import type { Logger } from "../logging/logger.ts";
import { createFreeTryVerifier, type FreeTryVerifier } from "../payments/free-try.ts";
import { issueChallenge } from "../payments/issue-challenge.ts";
import { formatKb, perKbCost, quoteEndpoint, streamPricing } from "../pricing/quote.ts";
import type { KeyValueStore } from "../store/types.ts";
import { EventStreamRelay, StreamTicker } from "./event-stream-relay.ts";
import { callOrigin, callOriginDirect, DirectBody, isRetryableUpstreamStatus, relayEnd, type DirectOriginResponse, type OriginRequest, type OriginResponse } from "./origin-call.ts";
import { hostOf, type CookieScope } from "./cookie-policy.ts";
import { GatewayRateLimiter, clientIpResolver, defaultRateLimits, rateLimitClient, type RateLimits } from "./rate-limit.ts";
import { presentedCredential } from "./presented-credential.ts";
import { readBody } from "./read-body.ts";
import { cacheAgeSeconds, exposedHeaders, originResponseHeaders, outcomeHeaders, paymentHeaders, paymentNotCharged, paymentRefused, type CallOutcome, type PaymentHeaders } from "./respond.ts";
import { challengeOffer, reservePayment, type ChallengeOffer, type PaymentRefusal, type PerKbMeter, type Reservation } from "./reserve-payment.ts";
import { normalizeRequestPath, resolveTenant } from "./resolve-tenant.ts";
import { cacheKey, isStorableResponse, MAX_CACHED_BODY_BYTES, responseCacheFor, type CachedResponse, type ResponseCache } from "./response-cache.ts";
import { matchRoute } from "./route-match.ts";
import { TenantCache, type GatewayEndpoint, type GatewayTenant } from "./tenant-cache.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import { WalletPool } from "./wallet-pool.ts";
import { Drain } from "./drain.ts";
import { StreamSlots } from "./stream-slots.ts";
import { originDispatcher } from "../tenants/origin-policy.ts";
import { CallAbort, DeadlineSweeper } from "./deadlines.ts";

/** A per_kb body is written in slices of this size, so a client that leaves pays for the slices it took. */
const perKbWriteSliceBytes = 64 * 1024;

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
  limits?: Partial<typeof gatewayLimits>;
  /** Milliseconds since the epoch: token validity, stream windows, cache ages (tests move it). Sessions and credit lapse by the database's clock. */
  clock?: () => number;
  /** Free-try token verifier; by default our own issuer plus FREE_TRY_* from the config. */
  freeTry?: FreeTryVerifier;
  /** Response cache; by default Redis when the store is Redis, bounded memory otherwise. */
  responseCache?: ResponseCache;
};

/** One call on its way to the origin, paid for. */
type PaidCall = { ctx: Ctx; tenant: GatewayTenant; endpoint: GatewayEndpoint; reservation: Reservation; path: string; search: string; body: Buffer | null };

type Ctx = {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  clientIp: string;
  /** Aborted when the client goes away, or by the deadline sweeper. */
  abort: CallAbort;
  /** Set once the request matched an endpoint: what it counts for in UsageCounter. */
  usage: RequestUsage | null;
  /** Set when the endpoint relays cookies (forwardCookies): where the client would store them. */
  cookieScope: CookieScope | null;
};

/** How a request to an endpoint ended, for the usage counters (counted when the response closes). */
type RequestUsage = { tenantId: string; endpointId: string; outcome: CallOutcome | null; paid: boolean; upstreamError: boolean };

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

export function createGateway(options: GatewayOptions): Gateway {
  const { config, prisma, store, log } = options;
  const limits = { ...gatewayLimits, ...options.limits };
  // Without ORIGIN_ALLOW_PRIVATE, every origin connection is pinned to addresses the SSRF rules
  // allow (lib/tenants/origin-policy.ts), whatever the origin's DNS says after it was saved.
  const dispatcher = options.dispatcher ?? originDispatcher(config, { connections: limits.originConnections, keepAliveTimeoutMs: 10_000 });
  // A stream holds its upstream connection for its whole life: streams get their own agent with no
  // per-origin cap, so they never queue behind the pool (and never starve ordinary calls).
  const streamDispatcher = options.dispatcher ?? originDispatcher(config, { connections: null, keepAliveTimeoutMs: 10_000 });
  const tenants = new TenantCache({ prisma, store, appSecret: config.appSecret });
  // /.well-known/ discovery documents (spec 4.2), rebuilt whenever the cached tenant is.
  const discovery = createDiscoveryServer({ prisma, config });
  const hostSuffix = gatewayHostSuffix(config);
  // Cookies ignore ports: one stored for this host would reach the dashboard (cookie-policy.ts).
  const siteHost = new URL(config.siteUrl).hostname.toLowerCase();
  const clientIp = clientIpResolver(config.trustedProxies);
  const limiter = new GatewayRateLimiter(store, { ...defaultRateLimits, challengesPerMinute: config.gatewayChallengesPerMinute, ...options.rateLimits });
  const clock = options.clock ?? Date.now;
  const cache = options.responseCache ?? responseCacheFor(store, limits.memoryCacheBytes);
  const ticker = new StreamTicker(limits.streamTickMs, clock);
  // Streams that cost nothing per connection are capped per holder (stream-slots.ts).
  const sessionStreams = new StreamSlots({ store, log, limit: config.gatewayStreamsPerSession });
  const freeStreams = new StreamSlots({ store, log, limit: config.gatewayFreeStreamsPerIp });
  // Whole-call origin timeouts for non-stream calls, noticed within a quarter of the limit.
  const deadlines = new DeadlineSweeper(Math.max(10, Math.min(250, Math.floor(limits.originTimeoutMs / 4))));
  const wallets = new WalletPool({ config, devNode: options.devNode });
  const usage = new UsageRecorder({ prisma, log, flushIntervalMs: limits.usageFlushMs, clock });
  const paymentDeps = {
    prisma,
    pg: options.pg ?? null,
    appSecret: config.appSecret,
    clock,
    freeTry: options.freeTry ?? createFreeTryVerifier({ appSecret: config.appSecret, ownIssuer: config.siteUrl, external: config.freeTryProvider }),
    proofValiditySeconds: limits.proofValiditySeconds,
    creditTtlSeconds: config.creditTtlDays * 86_400,
    balanceTtlMs: config.creditTtlDays * 86_400_000,
  };

  function send(ctx: Ctx, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
    if (ctx.res.headersSent) return void ctx.res.destroy();
    const text = JSON.stringify(body);
    ctx.res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
    ctx.res.end(ctx.req.method === "HEAD" ? undefined : text);
  }

  function sendError(ctx: Ctx, status: number, code: ErrorCode | string, message: string, headers: Record<string, string | string[]> = {}) {
    send(ctx, status, { error: { code, message } }, headers);
  }

  async function challenge(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, offer: ChallengeOffer, extra?: PaymentHeaders) {
    // Every 402 is a new invoice on the provider's wallet: bounded per IP and tenant, whatever limits the request passed.
    const allowed = await limiter.checkChallenge({ ip: ctx.clientIp, tenantId: tenant.id });
    if (!allowed.ok) {
      return sendError(
        ctx,
        429,
        "rate_limited",
        `Too many payment challenges: this API issues at most ${limiter.limits.challengesPerMinute} payment challenges per minute to one address; retry in ${allowed.retryAfterSeconds} s`,
        { "retry-after": String(allowed.retryAfterSeconds), ...(extra ? paymentHeaders(extra) : {}) },
      );
    }
    let issued;
    try {
      issued = await issueChallenge({
        prisma,
        wallet: wallets.walletFor(tenant),
        appSecret: config.appSecret,
        tenantId: tenant.id,
        endpointId: endpoint.id,
        scope: offer.scope,
        quote: offer.quote,
        description: `${tenant.name}: ${offer.scope.kind === "credit" ? "prepaid credit" : `${endpoint.method} ${endpoint.path}`}`.slice(0, 200),
        invoiceExpirySeconds: config.invoiceExpirySeconds,
        tokenValiditySeconds: offer.tokenValiditySeconds,
        now: new Date(clock()),
      });
    } catch (err) {
      if (!(err instanceof WalletError)) throw err;
      log.warn("invoice creation failed", { requestId: ctx.requestId, tenant: tenant.slug, kind: err.kind, error: err.message });
      return sendError(ctx, 503, "service_unavailable", "The provider's wallet could not create an invoice; try again shortly", {
        "retry-after": "30",
        ...(extra ? paymentHeaders(extra) : {}),
      });
    }
    send(ctx, 402, issued.body, {
      "www-authenticate": issued.wwwAuthenticate,
      "cache-control": "no-store",
      ...(extra ? paymentHeaders(extra) : {}),
    });
  }

  /**
   * Streams the origin's response to the client with our headers on top. With `keep`, the body is
   * also collected (up to the cache's entry limit) and handed over once fully delivered.
   */
  async function relay(ctx: Ctx, response: OriginResponse | DirectOriginResponse, extra: Record<string, string>, keep?: (body: Buffer) => void) {
    const headers = originResponseHeaders(response.headers, extra, ctx.cookieScope);
    // Headers leave with the first body chunk: one write instead of two (SSE flushes its own, below).
    ctx.res.writeHead(response.statusCode, headers);
    const chunks: Buffer[] = [];
    let kept = 0;
    const collect = keep
      ? (chunk: Buffer) => {
          kept += chunk.length;
          if (kept <= MAX_CACHED_BODY_BYTES) chunks.push(chunk);
        }
      : undefined;
    try {
      if (response.body instanceof DirectBody) await response.body.pipeTo(ctx.res, collect);
      else {
        // A second 'data' listener sees the same chunks pipe() writes: the cache copy costs no extra stream.
        if (collect) response.body.on("data", collect);
        await pump(response.body, ctx.res);
      }
      if (keep && kept <= MAX_CACHED_BODY_BYTES) keep(Buffer.concat(chunks));
    } catch (err) {
      if (!ctx.res.destroyed) ctx.res.destroy(err as Error);
      response.body.destroy();
    }
  }

  /**
   * X-Hub-Payment (spec 7.2) and the session, credit or free-try headers of a call's outcome, which
   * is also noted for the usage counters. "refunded" here always means the origin failed.
   */
  function callOutcomeHeaders({ ctx, reservation }: PaidCall, outcome: CallOutcome): Record<string, string> {
    noteOutcome(ctx, reservation, outcome, outcome === "refunded");
    return outcomeHeaders(reservation, outcome);
  }

  /** outcomeHeaders of a response the origin just gave, with `X-Cache: MISS` when the endpoint caches. */
  function originOutcomeHeaders(call: PaidCall, outcome: CallOutcome, cacheMiss: boolean): Record<string, string> {
    const headers = callOutcomeHeaders(call, outcome);
    if (cacheMiss) headers["x-cache"] = "MISS";
    return headers;
  }

  function noteOutcome(ctx: Ctx, reservation: Reservation, outcome: CallOutcome, upstreamError: boolean) {
    if (!ctx.usage) return;
    ctx.usage.outcome = outcome;
    ctx.usage.paid = reservation.kind === "proof" || reservation.kind === "session" || reservation.kind === "credit";
    ctx.usage.upstreamError = upstreamError;
  }

  /** Answers a request that got no reservation. */
  async function refuse(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, refusal: PaymentRefusal) {
    switch (refusal.kind) {
      case "challenge":
        return challenge(ctx, tenant, endpoint, refusal.offer, refusal.notCharged ? paymentRefused : undefined);
      case "forged":
        return forged(ctx, refusal.message);
      case "unauthorized":
        return sendError(ctx, 401, "unauthorized", refusal.message);
      case "bad_request":
        return sendError(ctx, 400, "bad_request", refusal.message);
      case "unknown_caveat":
        return sendError(ctx, 401, "unknown_caveat", refusal.message);
      case "caveat_failed":
        // A genuine delegated credential used beyond what its holder allowed: nothing was charged,
        // and paying again would not help (a child cannot re-buy its parent's credential).
        return send(ctx, 401, { error: { code: "caveat_failed", message: refusal.message, details: { caveat: refusal.caveat } } }, paymentHeaders(paymentNotCharged));
      case "in_use":
        return sendError(ctx, 409, "conflict", "This proof is being redeemed by another request right now; retry when it completes", {
          "retry-after": "1",
          ...paymentHeaders(paymentRefused),
        });
    }
  }

  /** A new 402 for a call its reservation could not pay for after all (per_kb: the response costs more than the balance). */
  async function challengeAgain(call: PaidCall) {
    const offer = challengeOffer(paymentDeps, call.endpoint, {});
    if ("problem" in offer) throw new Error(offer.problem);
    return challenge(call.ctx, call.tenant, call.endpoint, offer, paymentRefused);
  }

  /** Answers an origin that could not be reached or timed out; the reservation is given back first. */
  async function upstreamFailed(call: PaidCall, failure: { kind: "unreachable" | "timeout" | "aborted"; message: string }) {
    await call.reservation.refund();
    if (failure.kind === "aborted") return noteOutcome(call.ctx, call.reservation, "refunded", false);
    return sendError(call.ctx, failure.kind === "timeout" ? 504 : 502, "bad_gateway", failure.message, callOutcomeHeaders(call, "refunded"));
  }

  /** A non-stream call: cache hit, or origin call then relay (per_kb: metered). */
  async function serveCall(call: PaidCall) {
    const { ctx, tenant, endpoint, reservation } = call;
    const ttl = endpoint.cacheTtlSeconds ?? 0;
    const key =
      ttl > 0 && ctx.req.method === "GET"
        ? cacheKey({ tenantId: tenant.id, method: "GET", path: call.path, search: call.search, acceptEncoding: [ctx.req.headers["accept-encoding"]].flat().join(",") })
        : null;
    if (key) {
      const hit = await cache.get(key, clock()).catch((err) => {
        log.warn("response cache read failed", { requestId: ctx.requestId, error: err });
        return null;
      });
      if (hit) return serveCached(call, hit);
    }
    // A metered body is read whole before it is charged; any other is relayed as it arrives.
    const result = reservation.meter
      ? await proxy(ctx, tenant, endpoint, call.path, call.search, call.body, null)
      : await proxyDirect(ctx, tenant, endpoint, call.path, call.search, call.body);
    if (result.kind !== "response") return upstreamFailed(call, result);
    if (isRetryableUpstreamStatus(result.statusCode)) {
      await reservation.refund();
      return relay(ctx, result, originOutcomeHeaders(call, "refunded", key !== null));
    }
    const outcome: CallOutcome = result.statusCode >= 400 ? "rejected" : "served";
    const keep =
      key && isStorableResponse(result.statusCode, result.headers)
        ? (body: Buffer) => storeInCache(key, { statusCode: result.statusCode, headers: result.headers, body, storedAt: clock() }, ttl)
        : undefined;
    if (reservation.meter) {
      if (result.body instanceof DirectBody) throw new Error("A metered call reads its origin body through callOrigin");
      return serveMetered(call, { ...result, body: result.body }, outcome, key !== null, keep);
    }
    await reservation.commit();
    return relay(ctx, result, originOutcomeHeaders(call, outcome, key !== null), keep);
  }

  function storeInCache(key: string, entry: CachedResponse, ttlSeconds: number) {
    cache.set(key, entry, ttlSeconds * 1000).catch((err) => log.warn("response cache write failed", { error: err }));
  }

  /** A cache hit: the payment still applies (docs/decisions.md), the origin is not called. */
  async function serveCached(call: PaidCall, hit: CachedResponse) {
    const { ctx, reservation } = call;
    const extra: Record<string, string> = {};
    let costSats = 0;
    if (reservation.meter) {
      const charged = await reservation.meter.charge(hit.body.length);
      if (!charged.ok) return challengeAgain(call);
      costSats = charged.costSats;
      extra["x-data-size-kb"] = formatKb(hit.body.length);
      extra["x-data-cost-sats"] = String(costSats);
    } else {
      await reservation.commit();
    }
    const headers = originResponseHeaders(
      hit.headers,
      {
        ...callOutcomeHeaders(call, "served"),
        ...extra,
        "x-cache": "HIT",
        "x-cache-age": cacheAgeSeconds(hit.storedAt, clock()),
        "content-length": String(hit.body.length),
      },
      ctx.cookieScope,
    );
    if (reservation.meter) return sendMetered(ctx, reservation.meter, costSats, hit.statusCode, headers, hit.body);
    ctx.res.writeHead(hit.statusCode, headers);
    ctx.res.end(hit.body);
  }

  /**
   * per_kb: the body is buffered (up to what the balance pays for, and perKbMaxBytes) so its size
   * is known, charged in one conditional debit, then sent with X-Data-Size-KB / X-Data-Cost-Sats.
   * A body larger than the balance pays for is not delivered and not charged: a fresh 402.
   */
  async function serveMetered(call: PaidCall, result: OriginResponse, outcome: CallOutcome, cacheMiss: boolean, keep?: (body: Buffer) => void) {
    const { ctx, reservation } = call;
    const meter = reservation.meter!;
    const affordable = meter.affordableBytes();
    const cap = Math.min(affordable, limits.perKbMaxBytes);
    const read = await readCapped(result.body, cap, Number(result.headers["content-length"] ?? NaN));
    if (read.kind === "error") {
      return upstreamFailed(call, { kind: ctx.abort.aborted ? "aborted" : "unreachable", message: "The origin broke off its response" });
    }
    if (read.kind === "too_large") {
      if (affordable > limits.perKbMaxBytes) {
        return sendError(ctx, 502, "bad_gateway", `The response is larger than the ${limits.perKbMaxBytes / 1048576} MB a per_kb endpoint can meter`, paymentHeaders(paymentNotCharged));
      }
      return challengeAgain(call);
    }
    const charged = await meter.charge(read.body.length);
    if (!charged.ok) return challengeAgain(call);
    const headers = originResponseHeaders(
      result.headers,
      {
        ...originOutcomeHeaders(call, outcome, cacheMiss),
        "x-data-size-kb": formatKb(read.body.length),
        "x-data-cost-sats": String(charged.costSats),
        "content-length": String(read.body.length),
      },
      ctx.cookieScope,
    );
    sendMetered(ctx, meter, charged.costSats, result.statusCode, headers, read.body);
    keep?.(read.body);
  }

  /**
   * Sends a charged per_kb body. The charge covers what the client's socket took: the body is
   * written in slices, each counted once its write completed (handed to the kernel), and if the
   * response closes before all of it was, the part never handed over is refunded. A client that
   * reads most of the body and then resets pays for what it was sent (docs/decisions.md, per_kb).
   */
  function sendMetered(ctx: Ctx, meter: PerKbMeter, costSats: number, statusCode: number, headers: Record<string, string | string[]>, body: Buffer) {
    const { res } = ctx;
    let handedOver = 0;
    const refundUndelivered = () => {
      const refund = costSats - perKbCost(handedOver, meter.unitCostSats);
      if (refund > 0) meter.uncharge(refund).catch((err) => log.error("per_kb refund failed", { requestId: ctx.requestId, error: err }));
    };
    // The client left while the charge was being taken: nothing was handed over.
    if (res.destroyed) return refundUndelivered();
    res.once("close", () => {
      // Completions of writes that finished just before the close run first.
      if (handedOver < body.length) setImmediate(refundUndelivered);
    });
    res.writeHead(statusCode, headers);
    if (ctx.req.method === "HEAD") {
      // HEAD is charged as GET, as before: the origin produced the body and the head tells its size.
      handedOver = body.length;
      return void res.end();
    }
    let offset = 0;
    const writeSlices = () => {
      while (offset < body.length && !res.destroyed) {
        const slice = body.subarray(offset, offset + perKbWriteSliceBytes);
        offset += slice.length;
        const more = res.write(slice, (err) => {
          if (!err) handedOver += slice.length;
        });
        // Backpressure: at most one slice waits beyond the socket's buffer.
        if (!more && offset < body.length) return void res.once("drain", writeSlices);
      }
      if (!res.destroyed) res.end();
    };
    writeSlices();
  }

  /**
   * A streaming endpoint. Streams that cost nothing per connection are capped: a time_pass session
   * holds at most GATEWAY_STREAMS_PER_SESSION at once, a client IP at most GATEWAY_FREE_STREAMS_PER_IP
   * on one tenant's free endpoints (stream-slots.ts). Other models pay per connection.
   */
  async function serveStream(call: PaidCall, maxDurationMs: number) {
    const { ctx, tenant, reservation } = call;
    const session = reservation.windowEndsAt !== null && reservation.sessionId !== undefined;
    if (!session && reservation.kind !== "free") return relayStream(call, maxDurationMs);
    const slots = session ? sessionStreams : freeStreams;
    const slot = await slots.acquire(session ? `session:${reservation.sessionId}` : `free:${tenant.id}:${rateLimitClient(ctx.clientIp)}`);
    if (!slot) {
      await reservation.refund();
      const holder = session ? "This session already holds" : "This address already holds";
      const scope = session ? "one session" : "one address on this API's free endpoints";
      return sendError(ctx, 429, "rate_limited", `${holder} ${slots.limit} streams, the most ${scope} may hold at once; close one and retry`, {
        "retry-after": "5",
        ...(session ? paymentHeaders(paymentNotCharged) : {}),
      });
    }
    try {
      return await relayStream(call, maxDurationMs);
    } finally {
      slot.release();
    }
  }

  /** Origin headers within streamHeadersTimeoutMs, then the SSE relay. */
  async function relayStream(call: PaidCall, maxDurationMs: number) {
    const { ctx, tenant, endpoint, reservation } = call;
    const result = await proxy(ctx, tenant, endpoint, call.path, call.search, call.body, limits.streamHeadersTimeoutMs);
    if (result.kind !== "response") return upstreamFailed(call, result);
    if (isRetryableUpstreamStatus(result.statusCode)) {
      await reservation.refund();
      return relay(ctx, result, callOutcomeHeaders(call, "refunded"));
    }
    const contentType = String(result.headers["content-type"] ?? "").toLowerCase();
    if (result.statusCode >= 300 || !contentType.startsWith("text/event-stream")) {
      await reservation.commit();
      return relay(ctx, result, callOutcomeHeaders(call, result.statusCode >= 400 ? "rejected" : "served"));
    }
    const headers = originResponseHeaders(result.headers, { ...callOutcomeHeaders(call, "served"), "x-accel-buffering": "no" }, ctx.cookieScope);
    headers["cache-control"] ??= "no-cache";
    delete headers["content-length"];
    ctx.res.writeHead(result.statusCode, headers);
    ctx.res.flushHeaders();
    const streamed = await ticker.run(
      new EventStreamRelay({
        res: ctx.res,
        body: result.body,
        clock,
        keepAliveMs: limits.streamKeepAliveMs,
        idleTimeoutMs: (endpoint.idleTimeoutSeconds ?? limits.streamIdleSeconds) * 1000,
        maxDurationMs,
        windowEndsAt: reservation.windowEndsAt,
        closeGraceMs: limits.streamCloseGraceMs,
        // A per_request proof is consumed by the first content it buys; a stream with none releases it.
        onFirstContent: () => void reservation.commit().catch((err) => log.error("stream commit failed", { requestId: ctx.requestId, error: err })),
      }),
    );
    // A stream that delivered no content gives its deduction back afterwards (spec 4.7 rule 6).
    if (streamed.contentSeen) await reservation.commit();
    else {
      await reservation.refund();
      noteOutcome(ctx, reservation, "refunded", false);
    }
  }

  /** A streamed or metered call: the origin body as a Readable. */
  async function proxy(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, path: string, search: string, body: Buffer | null, headersTimeoutMs: number | null) {
    return callOrigin(originRequest(ctx, tenant, endpoint, path, search, body, headersTimeoutMs));
  }

  /** An ordinary call: the origin body goes straight into the response (DirectBody). */
  async function proxyDirect(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, path: string, search: string, body: Buffer | null) {
    return callOriginDirect(originRequest(ctx, tenant, endpoint, path, search, body, null));
  }

  // X-Forwarded-Host/-Proto name the tenant's configured gateway address, never the client's Host:
  // an origin that builds links from them must not be steered by a caller (its cached answer would
  // carry that caller's host to everyone). Worked out once per cached tenant.
  const forwardedAddresses = new WeakMap<GatewayTenant, { host: string; proto: string }>();
  function forwardedAddress(tenant: GatewayTenant): { host: string; proto: string } {
    let address = forwardedAddresses.get(tenant);
    if (!address) {
      const url = new URL(gatewayUrlFor(config, tenant.slug));
      address = { host: url.host, proto: url.protocol.slice(0, -1) };
      forwardedAddresses.set(tenant, address);
    }
    return address;
  }

  function originRequest(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, path: string, search: string, body: Buffer | null, headersTimeoutMs: number | null): OriginRequest & { timeoutMs: null } {
    const forwarded = forwardedAddress(tenant);
    // The deadline covers the whole call, body included; it ends when the response closes.
    if (!endpoint.streaming) deadlines.add(ctx.abort, limits.originTimeoutMs);
    return {
      dispatcher: endpoint.streaming ? streamDispatcher : dispatcher,
      originUrl: tenant.originUrl!,
      method: ctx.req.method ?? "GET",
      path,
      search,
      clientHeaders: ctx.req.headers,
      body,
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      forwardedHost: forwarded.host,
      forwardedProto: forwarded.proto,
      secrets: tenant.secrets,
      forwardCookies: ctx.cookieScope !== null,
      timeoutMs: null,
      headersTimeoutMs: headersTimeoutMs ?? undefined,
      signal: ctx.abort,
    };
  }

  async function handle(ctx: Ctx) {
    const { req } = ctx;
    const method = (req.method ?? "GET").toUpperCase();
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const rawPath = q === -1 ? url : url.slice(0, q);
    const search = q === -1 ? "" : url.slice(q);

    if (method === "OPTIONS") {
      ctx.res.writeHead(204, {
        "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
        "access-control-allow-headers": req.headers["access-control-request-headers"] ?? "Authorization, Content-Type, X-Session-Token, X-Hub-Credit",
        "access-control-max-age": "600",
      });
      return void ctx.res.end();
    }
    if (rawPath === "/healthz") return health(ctx);

    const address = resolveTenant(req.headers.host, rawPath, hostSuffix);
    if (!address) return sendError(ctx, 404, "not_found", "No API at this address; tenant gateways live at /gw/<slug>/...");
    const normalized = normalizeRequestPath(address.path);
    if ("problem" in normalized) return sendError(ctx, 400, "bad_request", normalized.message);
    // The query is forwarded and signed as the origin will receive it (nothing decoded).
    const query = canonicalQuery(search);
    if ("problem" in query) return sendError(ctx, 400, "bad_request", query.problem);
    if (tenants.lookupNeeded(address.slug)) {
      // A name this gateway does not know costs a database query: bounded per IP, so a flood of
      // random slugs is refused before it reaches the database.
      const lookup = await limiter.checkTenantLookup(ctx.clientIp);
      if (!lookup.ok) {
        return sendError(ctx, 429, "rate_limited", `Too many requests for API names this gateway does not know; retry in ${lookup.retryAfterSeconds} s`, {
          "retry-after": String(lookup.retryAfterSeconds),
        });
      }
    }
    const tenant = await tenants.get(address.slug);
    if (!tenant) return sendError(ctx, 404, "not_found", `No API named "${address.slug}"`);
    if (tenant.status !== "active") return sendError(ctx, 403, "forbidden", `This API is ${tenant.status}`);
    if (normalized.path.startsWith("/.well-known/")) {
      const doc = await discovery({ tenantKey: tenant, tenantId: tenant.id, method, path: normalized.path });
      ctx.res.writeHead(doc.status, { ...doc.headers, "content-length": Buffer.byteLength(doc.body) });
      return void ctx.res.end(method === "HEAD" ? undefined : doc.body);
    }

    const match = matchRoute(tenant.routes, method, normalized.path);
    if (match.kind === "method_not_allowed") {
      return sendError(ctx, 400, "method_not_allowed", `${method} is not allowed here; use ${match.allowed.join(", ")}`, { allow: match.allowed.join(", ") });
    }
    if (match.kind === "case_mismatch") {
      return sendError(ctx, 400, "bad_request", `The path ${normalized.path} names the endpoint ${match.template} only in other letter case; endpoint paths are case-sensitive`);
    }
    if (match.kind === "not_found" || !match.value.isActive) return sendError(ctx, 404, "not_found", `No endpoint ${method} ${normalized.path}`);
    const endpoint = match.value;
    ctx.usage = { tenantId: tenant.id, endpointId: endpoint.id, outcome: null, paid: false, upstreamError: false };
    if (endpoint.forwardCookies) {
      ctx.cookieScope = { clientHost: hostOf(req.headers.host), siteHost, pathPrefix: address.form === "path" ? `/gw/${address.slug}` : null };
    }
    if (!tenant.originUrl) return sendError(ctx, 503, "service_unavailable", "The provider has not configured an origin yet");

    // headersDistinct copies every header into arrays; only a request with Authorization needs it
    // (to see repeated lines, e.g. L402 and LSAT both sent).
    const credential = parseAuthorization(req.headers.authorization === undefined ? undefined : req.headersDistinct.authorization);
    // Only a credential this endpoint accepts, checked as far as it can be without I/O, skips the
    // anonymous limits: a junk X-Session-Token or a forged proof is an anonymous request.
    const presented = presentedCredential({
      appSecret: config.appSecret,
      tenantId: tenant.id,
      endpoint,
      method,
      path: normalized.path,
      credential,
      headers: req.headers,
      now: new Date(clock()),
    });
    const decision = await limiter.check({
      ip: ctx.clientIp,
      tenantId: tenant.id,
      endpointId: endpoint.id,
      endpointLimit: endpoint.rateLimitPerMinute,
      credentialed: presented.credentialed,
    });
    if (!decision.ok) {
      return sendError(ctx, 429, "rate_limited", `Too many requests (${decision.scope} limit); retry in ${decision.retryAfterSeconds} s`, {
        "retry-after": String(decision.retryAfterSeconds),
      });
    }

    const quote = quoteEndpoint(endpoint);
    if (quote && !tenant.wallet) return sendError(ctx, 503, "service_unavailable", "The provider has not connected a wallet yet");
    if (endpoint.streaming && endpoint.pricingModel && streamPricing(endpoint.pricingModel) === "refused") {
      // per_kb streams are refused before any invoice (spec 4.7 rule 5): nobody pays for what we will not serve.
      return sendError(ctx, 503, "service_unavailable", "This endpoint streams but is priced per_kb; streams are priced per connection");
    }

    const read = await readBody(req, limits.maxBodyBytes, limits.bodyReadTimeoutMs);
    if (read.kind === "too_large") return sendError(ctx, 413, "payload_too_large", "The request body exceeds 1 MB", { connection: "close" });
    if (read.kind === "timeout") return sendError(ctx, 408, "request_timeout", "The request body was not received in time", { connection: "close" });
    if (read.kind === "aborted") return;

    const maxStreamMs = (endpoint.maxStreamSeconds ?? limits.streamMaxSeconds) * 1000;
    const reserved = await reservePayment(paymentDeps, {
      tenant,
      endpoint,
      method,
      path: normalized.path,
      headers: req.headers,
      credential,
      verified: presented.l402,
      requestId: ctx.requestId,
      // A stream's proof stays claimed for the stream's whole life, so no second connection can use it.
      claimLeaseMs: endpoint.streaming ? maxStreamMs + 60_000 : limits.claimLeaseMs,
    });
    if (!reserved.ok) return refuse(ctx, tenant, endpoint, reserved.refusal);
    const call: PaidCall = { ctx, tenant, endpoint, reservation: reserved.reservation, path: normalized.path, search: query.search, body: read.body };
    return endpoint.streaming ? serveStream(call, maxStreamMs) : serveCall(call);
  }

  /** 401 for a forged or malformed credential; repeated forgeries demote the IP (spec 5.1). */
  async function forged(ctx: Ctx, message: string) {
    await limiter.recordForgery(ctx.clientIp);
    sendError(ctx, 401, "unauthorized", message);
  }

  // /healthz is unauthenticated and unlimited: every check within a second shares one probe, so
  // a flood costs the database one query a second.
  let healthProbe: { startedAt: number; result: Promise<{ database: string; storeOk: boolean }> } | null = null;
  async function health(ctx: Ctx) {
    const now = Date.now();
    if (!healthProbe || now - healthProbe.startedAt >= 1_000) {
      healthProbe = {
        startedAt: now,
        result: Promise.all([
          prisma.$queryRaw`SELECT 1`.then(
            () => "ok",
            () => "unavailable",
          ),
          store.ping().catch(() => false),
        ]).then(([database, storeOk]) => ({ database, storeOk })),
      };
    }
    const { database, storeOk } = await healthProbe.result;
    const ok = database === "ok" && storeOk;
    send(ctx, ok ? 200 : 503, { status: ok ? "ok" : "degraded", database, store: storeOk ? "ok" : "unavailable" }, { "cache-control": "no-store" });
  }

  function countUsage(u: RequestUsage, statusCode: number) {
    const charged = u.paid && (u.outcome === "served" || u.outcome === "rejected");
    usage.record(u.tenantId, u.endpointId, {
      requests: 1,
      paidRequests: charged ? 1 : 0,
      servedRequests: statusCode >= 200 && statusCode < 300 && u.outcome !== "refunded" ? 1 : 0,
      refunds: u.paid && u.outcome === "refunded" ? 1 : 0,
      upstreamErrors: u.upstreamError ? 1 : 0,
    });
  }

  const drain = new Drain();
  const server = http.createServer((req, res) => {
    drain.responseStarted(res);
    const ctx: Ctx = {
      req,
      res,
      requestId: randomUUID(),
      clientIp: clientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"]),
      abort: new CallAbort(),
      usage: null,
      cookieScope: null,
    };
    res.setHeader("x-request-id", ctx.requestId);
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", exposedHeaders);
    res.on("close", () => {
      drain.responseClosed(res);
      deadlines.delete(ctx.abort);
      // Whatever is still running upstream for this response ends with it: the client left, or an
      // error answer went out while an origin body was still unread (a finished call has already
      // detached its listener, so this is a no-op then).
      ctx.abort.abort();
      if (ctx.usage) countUsage(ctx.usage, res.statusCode);
    });
    drain.handlerStarted();
    handle(ctx)
      .catch((err) => {
        log.error("gateway request failed", { requestId: ctx.requestId, error: err });
        sendError(ctx, 500, "internal", "Internal gateway error");
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
      sessionStreams.close();
      freeStreams.close();
      await usage.close().catch((err) => log.error("usage counters not written at shutdown", { error: err }));
      await wallets.close();
      if (!options.dispatcher) await Promise.all([(dispatcher as Agent).close(), (streamDispatcher as Agent).close()]);
    },
  };
}

/**
 * Reads an origin body of at most `cap` bytes (per_kb metering). A larger one, declared or
 * counted, is abandoned unread: it is never delivered, so it is never charged.
 */
async function readCapped(body: Readable, cap: number, declaredLength: number): Promise<{ kind: "ok"; body: Buffer } | { kind: "too_large" } | { kind: "error" }> {
  if (Number.isFinite(declaredLength) && declaredLength > cap) {
    body.on("error", () => {}); // undici reports its own abort as an error
    body.destroy();
    return { kind: "too_large" };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > cap) return { kind: "too_large" }; // leaving the loop destroys the body
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { kind: "error" };
  }
  return { kind: "ok", body: Buffer.concat(chunks, size) };
}

/**
 * Pipes an origin body into the response; resolves once the response finished, rejects when the
 * body fails or the client goes away first. What stream/promises' pipeline does for two streams,
 * without the AbortController and AbortError (a DOMException with a stack) it makes per call.
 */
function pump(body: Readable, res: ServerResponse): Promise<void> {
  const relay = relayEnd(res);
  if (!res.destroyed) {
    body.once("error", relay.fail);
    body.pipe(res);
  }
  return relay.done;
}
