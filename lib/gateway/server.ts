// The gateway: a plain node:http server in front of every tenant's origin (no Next imports).
// request -> request id -> tenant -> endpoint -> tenant state -> body limit -> credential
//   -> challenge (402) | claim proof -> origin call (signed) -> consume / release -> response
import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream/promises";
import { Agent, type Dispatcher } from "undici";
import { gatewayHostSuffix, type Config } from "../config/index.ts";
import type { PrismaClient } from "../db/client.ts";
import type { ErrorCode } from "../errors/index.ts";
import { parseAuthorization } from "../l402/headers.ts";
import { verifyL402, type L402VerifyFailure } from "../l402/macaroon.ts";
import type { DevLightningNode } from "../lightning/dev-node.ts";
import { WalletError, type WalletBackend } from "../lightning/types.ts";
import type { CapableWalletBackend } from "../lightning/wallet-capabilities.ts";
import type { Logger } from "../logging/logger.ts";
import { issueChallenge } from "../payments/issue-challenge.ts";
import { claimProof, finishProof } from "../payments/redeem-proof.ts";
import { isSessionModel, quoteEndpoint, type PricingQuote } from "../pricing/quote.ts";
import type { KeyValueStore } from "../store/types.ts";
import { openWalletBackend } from "../wallets/open-wallet.ts";
import { callOrigin, isRetryableUpstreamStatus, type OriginResponse } from "./origin-call.ts";
import { GatewayRateLimiter, clientIpResolver, defaultRateLimits, type RateLimits } from "./rate-limit.ts";
import { readBody } from "./read-body.ts";
import { normalizeRequestPath, resolveTenant } from "./resolve-tenant.ts";
import { matchRoute } from "./route-match.ts";
import { TenantCache, type GatewayEndpoint, type GatewayTenant } from "./tenant-cache.ts";

export const gatewayLimits = {
  maxBodyBytes: 1024 * 1024,
  bodyReadTimeoutMs: 15_000,
  originTimeoutMs: 30_000,
  /** A per_request token stays redeemable this long after its challenge (free retries included). */
  proofValiditySeconds: 24 * 3600,
  /** A claim blocks concurrent use of a proof; it lapses if this process dies mid-call. */
  claimLeaseMs: 2 * 60_000,
};

const exposedHeaders = [
  "WWW-Authenticate",
  "X-Request-Id",
  "X-Session-Token",
  "X-Session-Expires",
  "X-Session-Balance",
  "X-Hub-Payment",
  "X-Hub-Payment-Code",
  "X-Cache",
  "X-Cache-Age",
  "X-Data-Size-KB",
  "X-Data-Cost-Sats",
  "X-Free-Try",
  "Retry-After",
].join(", ");

export type GatewayOptions = {
  config: Config;
  prisma: PrismaClient;
  store: KeyValueStore;
  devNode: DevLightningNode | null;
  log: Logger;
  dispatcher?: Dispatcher;
  rateLimits?: RateLimits;
  /** Overrides of gatewayLimits (tests shorten timeouts). */
  limits?: Partial<typeof gatewayLimits>;
};

type PaymentHeaders = { payment: "charged" | "reverted" | "refunded_to_balance" | "not_charged"; code?: "upstream_failed_retryable" | "upstream_rejected" | "payment_failed" };

type Ctx = {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  clientIp: string;
  abort: AbortController;
};

const verifyMessages: Record<Exclude<L402VerifyFailure, "expired">, string> = {
  malformed: "The L402 credential is malformed",
  bad_signature: "The macaroon signature is invalid",
  bad_identifier: "The macaroon identifier is invalid",
  unknown_caveat: "The macaroon carries a caveat this gateway does not accept",
  wrong_preimage: "The preimage does not match the macaroon's payment hash",
};

export type Gateway = {
  server: http.Server;
  tenants: TenantCache;
  listen(port: number, host?: string): Promise<number>;
  close(): Promise<void>;
};

export function createGateway(options: GatewayOptions): Gateway {
  const { config, prisma, store, log } = options;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 256, pipelining: 1 });
  const tenants = new TenantCache({ prisma, store, appSecret: config.appSecret });
  const hostSuffix = gatewayHostSuffix(config);
  const limits = { ...gatewayLimits, ...options.limits };
  const clientIp = clientIpResolver(config.trustedProxies);
  const limiter = new GatewayRateLimiter(store, options.rateLimits ?? defaultRateLimits);

  function send(ctx: Ctx, status: number, body: unknown, headers: Record<string, string | string[]> = {}) {
    if (ctx.res.headersSent) return void ctx.res.destroy();
    const text = JSON.stringify(body);
    ctx.res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
    ctx.res.end(ctx.req.method === "HEAD" ? undefined : text);
  }

  function sendError(ctx: Ctx, status: number, code: ErrorCode | string, message: string, headers: Record<string, string | string[]> = {}) {
    send(ctx, status, { error: { code, message } }, headers);
  }

  function paymentHeaders(p: PaymentHeaders): Record<string, string> {
    return p.code ? { "x-hub-payment": p.payment, "x-hub-payment-code": p.code } : { "x-hub-payment": p.payment };
  }

  // One live backend per tenant (NWC and phoenixd hold sockets), replaced when the credentials change.
  const wallets = new Map<string, { sealed: string; backend: CapableWalletBackend }>();
  function walletFor(tenant: GatewayTenant): WalletBackend {
    if (!tenant.wallet) throw new WalletError("unreachable", "No wallet connected");
    const cached = wallets.get(tenant.id);
    if (cached?.sealed === tenant.wallet.credentialsEnc) return cached.backend;
    void cached?.backend.close?.().catch(() => {});
    const backend = openWalletBackend({ appSecret: config.appSecret, wallet: tenant.wallet, devNode: options.devNode });
    wallets.set(tenant.id, { sealed: tenant.wallet.credentialsEnc, backend });
    return backend;
  }

  async function challenge(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, quote: PricingQuote, extra?: PaymentHeaders) {
    let issued;
    try {
      issued = await issueChallenge({
        prisma,
        wallet: walletFor(tenant),
        appSecret: config.appSecret,
        tenantId: tenant.id,
        endpointId: endpoint.id,
        scope: { kind: "endpoint", endpointId: endpoint.id },
        quote,
        description: `${tenant.name}: ${endpoint.method} ${endpoint.path}`.slice(0, 200),
        invoiceExpirySeconds: config.invoiceExpirySeconds,
        tokenValiditySeconds: limits.proofValiditySeconds,
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

  /** Streams the origin's response to the client with our headers on top. */
  async function relay(ctx: Ctx, response: OriginResponse, extra: Record<string, string>) {
    const headers = { ...response.headers, ...extra };
    delete headers["access-control-allow-origin"];
    ctx.res.writeHead(response.statusCode, headers);
    ctx.res.flushHeaders();
    try {
      await pipeline(response.body, ctx.res);
    } catch (err) {
      if (!ctx.res.destroyed) ctx.res.destroy(err as Error);
      response.body.destroy();
    }
  }

  async function proxy(ctx: Ctx, tenant: GatewayTenant, endpoint: GatewayEndpoint, path: string, search: string, body: Buffer | null) {
    return callOrigin({
      dispatcher,
      originUrl: tenant.originUrl!,
      method: ctx.req.method ?? "GET",
      path,
      search,
      clientHeaders: ctx.req.headers,
      body,
      requestId: ctx.requestId,
      clientIp: ctx.clientIp,
      forwardedHost: ctx.req.headers.host ?? "",
      forwardedProto: "http",
      secrets: tenant.secrets,
      timeoutMs: endpoint.streaming ? null : limits.originTimeoutMs,
      signal: ctx.abort.signal,
    });
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
    const tenant = await tenants.get(address.slug);
    if (!tenant) return sendError(ctx, 404, "not_found", `No API named "${address.slug}"`);
    if (tenant.status !== "active") return sendError(ctx, 403, "forbidden", `This API is ${tenant.status}`);

    const match = matchRoute(tenant.routes, method, normalized.path);
    if (match.kind === "method_not_allowed") {
      return sendError(ctx, 400, "method_not_allowed", `${method} is not allowed here; use ${match.allowed.join(", ")}`, { allow: match.allowed.join(", ") });
    }
    if (match.kind === "not_found" || !match.value.isActive) return sendError(ctx, 404, "not_found", `No endpoint ${method} ${normalized.path}`);
    const endpoint = match.value;
    if (!tenant.originUrl) return sendError(ctx, 503, "service_unavailable", "The provider has not configured an origin yet");

    const credential = parseAuthorization(req.headersDistinct.authorization);
    const decision = await limiter.check({
      ip: ctx.clientIp,
      tenantId: tenant.id,
      endpointId: endpoint.id,
      endpointLimit: endpoint.rateLimitPerMinute,
      credentialed: credential.kind === "l402" || req.headers["x-session-token"] !== undefined,
    });
    if (!decision.ok) {
      return sendError(ctx, 429, "rate_limited", `Too many requests (${decision.scope} limit); retry in ${decision.retryAfterSeconds} s`, {
        "retry-after": String(decision.retryAfterSeconds),
      });
    }

    const quote = quoteEndpoint(endpoint);
    if (quote && !tenant.wallet) return sendError(ctx, 503, "service_unavailable", "The provider has not connected a wallet yet");
    if (quote && isSessionModel(endpoint.pricingModel)) {
      // Session models (issue: session pricing) are refused before any invoice, so nobody pays
      // for something this gateway cannot serve yet.
      return sendError(ctx, 503, "service_unavailable", `The ${endpoint.pricingModel} pricing model is not served by this gateway version`);
    }

    const read = await readBody(req, limits.maxBodyBytes, limits.bodyReadTimeoutMs);
    if (read.kind === "too_large") return sendError(ctx, 413, "payload_too_large", "The request body exceeds 1 MB", { connection: "close" });
    if (read.kind === "timeout") return sendError(ctx, 408, "request_timeout", "The request body was not received in time", { connection: "close" });
    if (read.kind === "aborted") return;

    if (!quote) {
      const result = await proxy(ctx, tenant, endpoint, normalized.path, search, read.body);
      if (result.kind === "response") return relay(ctx, result, {});
      if (result.kind === "aborted") return;
      return sendError(ctx, result.kind === "timeout" ? 504 : 502, "bad_gateway", result.message);
    }

    if (credential.kind === "malformed") return forged(ctx, `Malformed Authorization header: ${credential.reason}`);
    if (credential.kind !== "l402") return challenge(ctx, tenant, endpoint, quote);

    const verified = verifyL402({ appSecret: config.appSecret, macaroon: credential.macaroon, preimage: credential.preimage });
    if (!verified.ok) {
      if (verified.reason === "expired") return challenge(ctx, tenant, endpoint, quote, { payment: "not_charged", code: "payment_failed" });
      return forged(ctx, verifyMessages[verified.reason]);
    }
    const { claims } = verified;
    if (claims.tenantId !== tenant.id || claims.scope.kind !== "endpoint" || claims.scope.endpointId !== endpoint.id) {
      return forged(ctx, "This token was issued for a different endpoint");
    }

    const claim = await claimProof({
      prisma,
      paymentHash: claims.paymentHash,
      tenantId: tenant.id,
      endpointId: endpoint.id,
      requestId: ctx.requestId,
      leaseMs: limits.claimLeaseMs,
    });
    if (claim === "spent") return challenge(ctx, tenant, endpoint, quote, { payment: "not_charged", code: "payment_failed" });
    if (claim === "in_use") {
      return sendError(ctx, 409, "conflict", "This proof is being redeemed by another request right now; retry when it completes", {
        "retry-after": "1",
        ...paymentHeaders({ payment: "not_charged", code: "payment_failed" }),
      });
    }

    const result = await proxy(ctx, tenant, endpoint, normalized.path, search, read.body);
    const release = () => finishProof({ prisma, paymentHash: claims.paymentHash, requestId: ctx.requestId, outcome: "release" });
    if (result.kind !== "response") {
      await release();
      if (result.kind === "aborted") return;
      return sendError(ctx, result.kind === "timeout" ? 504 : 502, "bad_gateway", result.message, paymentHeaders({ payment: "reverted", code: "upstream_failed_retryable" }));
    }
    if (isRetryableUpstreamStatus(result.statusCode)) {
      await release();
      return relay(ctx, result, paymentHeaders({ payment: "reverted", code: "upstream_failed_retryable" }));
    }
    await finishProof({ prisma, paymentHash: claims.paymentHash, requestId: ctx.requestId, outcome: "consume" });
    const rejected = result.statusCode >= 400;
    return relay(ctx, result, paymentHeaders(rejected ? { payment: "charged", code: "upstream_rejected" } : { payment: "charged" }));
  }

  /** 401 for a forged or malformed credential; repeated forgeries demote the IP (spec 5.1). */
  async function forged(ctx: Ctx, message: string) {
    await limiter.recordForgery(ctx.clientIp);
    sendError(ctx, 401, "unauthorized", message);
  }

  async function health(ctx: Ctx) {
    const [database, storeOk] = await Promise.all([
      prisma.$queryRaw`SELECT 1`.then(
        () => "ok",
        () => "unavailable",
      ),
      store.ping(),
    ]);
    const ok = database === "ok" && storeOk;
    send(ctx, ok ? 200 : 503, { status: ok ? "ok" : "degraded", database, store: storeOk ? "ok" : "unavailable" }, { "cache-control": "no-store" });
  }

  const server = http.createServer((req, res) => {
    const ctx: Ctx = { req, res, requestId: randomUUID(), clientIp: clientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"]), abort: new AbortController() };
    res.setHeader("x-request-id", ctx.requestId);
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-expose-headers", exposedHeaders);
    res.on("close", () => {
      if (!res.writableFinished) ctx.abort.abort();
    });
    handle(ctx).catch((err) => {
      log.error("gateway request failed", { requestId: ctx.requestId, error: err });
      sendError(ctx, 500, "internal", "Internal gateway error");
    });
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 0; // streams may last long; the body reader has its own timeout
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 100;

  return {
    server,
    tenants,
    async listen(port, host = config.host) {
      await tenants.start();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      return (server.address() as AddressInfo).port;
    },
    async close() {
      await tenants.stop();
      await Promise.allSettled([...wallets.values()].map((w) => w.backend.close?.()));
      wallets.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (!options.dispatcher) await (dispatcher as Agent).close();
    },
  };
}
