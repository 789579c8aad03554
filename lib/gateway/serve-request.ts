// The gateway's request path (../shared/DESIGN.md; ARCHITECTURE.md "A paid request's path"), in
// the order the code below takes it:
//   CORS preflight | /healthz
//   -> tenant address (Host subdomain or /gw/<slug>; 404) -> canonical path and query (400)
//   -> unknown-slug lookups per IP (429) -> tenant (404) -> tenant state (403)
//   -> discovery documents (/.well-known/…) | endpoint match (404; 400 + Allow; other letter case 400)
//   -> origin configured (503) -> credential read without I/O (presented-credential.ts)
//   -> rate limit: anonymous per endpoint and global, credentialed backstop, demotion (429 + Retry-After)
//   -> wallet connected (503) -> per_kb stream refused (503) -> body (413, 408)
//   -> reservePayment: a refusal (answerRefusal: 402 challenge, 401, 409 …) or a reservation
//   -> serveStream | serveCall (cache hit | origin call; per_kb: serve-metered.ts)
//   -> commit or refund -> the answer's status and headers (respond.ts)
import { canonicalQuery } from "@/lib/l402/canonical-path.ts";
import { parseAuthorization } from "@l402-hub/sdk/client/l402-headers";
import { quoteEndpoint, streamPricing } from "@/lib/pricing/quote.ts";
import { answerRefusal } from "./answer-refusal.ts";
import { hostOf } from "@/lib/origin/cookie-policy.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { presentedCredential } from "./presented-credential.ts";
import { readBody } from "./read-body.ts";
import type { PaidCall, RequestContext } from "./request-context.ts";
import { reservePayment } from "./reserve-payment.ts";
import { normalizeRequestPath, resolveTenant } from "./resolve-tenant.ts";
import { matchRoute } from "./route-match.ts";
import { serveCall } from "./serve-call.ts";
import { serveStream } from "./serve-stream.ts";
import { sendError } from "./write-response.ts";

/** Answers one request to the gateway; throws only on unexpected errors (server.ts answers 500). */
export async function serveRequest(deps: GatewayDeps, ctx: RequestContext): Promise<void> {
  const { req } = ctx;
  const { config, limits, limiter, tenants } = deps;
  const method = (req.method ?? "GET").toUpperCase();
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const rawPath = q === -1 ? url : url.slice(0, q);
  const search = q === -1 ? "" : url.slice(q);

  if (method === "OPTIONS") return answerPreflight(ctx);
  if (rawPath === "/healthz") return deps.health.answer(ctx);

  const address = resolveTenant(req.headers.host, rawPath, deps.hostSuffix);
  if (!address) return sendError(ctx, "not_found", "No API at this address; tenant gateways live at /gw/<slug>/...");
  const normalized = normalizeRequestPath(address.path);
  if ("problem" in normalized) return sendError(ctx, "bad_request", normalized.message);
  // The query is forwarded and signed as the origin will receive it (nothing decoded).
  const query = canonicalQuery(search);
  if ("problem" in query) return sendError(ctx, "bad_request", query.problem);
  if (tenants.lookupNeeded(address.slug)) {
    // A name this gateway does not know costs a database query: bounded per IP, so a flood of
    // random slugs is refused before it reaches the database.
    const lookup = await limiter.checkTenantLookup(ctx.clientIp);
    if (!lookup.ok) {
      return sendError(ctx, "rate_limited", `Too many requests for API names this gateway does not know; retry in ${lookup.retryAfterSeconds} s`, {
        "retry-after": String(lookup.retryAfterSeconds),
      });
    }
  }
  const tenant = await tenants.get(address.slug);
  if (!tenant) return sendError(ctx, "not_found", `No API named "${address.slug}"`);
  if (tenant.status !== "active") return sendError(ctx, "forbidden", inactiveTenantMessage(tenant.status));
  if (normalized.path.startsWith("/.well-known/")) {
    const doc = await deps.discovery({ tenantKey: tenant, tenantId: tenant.id, method, path: normalized.path });
    ctx.res.writeHead(doc.status, { ...doc.headers, "content-length": Buffer.byteLength(doc.body) });
    return void ctx.res.end(method === "HEAD" ? undefined : doc.body);
  }

  const match = matchRoute(tenant.routes, method, normalized.path);
  if (match.kind === "method_not_allowed") {
    return sendError(ctx, "method_not_allowed", `${method} is not allowed here; use ${match.allowed.join(", ")}`, { allow: match.allowed.join(", ") });
  }
  if (match.kind === "case_mismatch") {
    return sendError(
      ctx,
      "bad_request",
      `The path ${normalized.path} names the endpoint ${match.template} only in other letter case; endpoint paths are case-sensitive`,
    );
  }
  if (match.kind === "not_found" || !match.value.isActive) return sendError(ctx, "not_found", `No endpoint ${method} ${normalized.path}`);
  const endpoint = match.value;
  ctx.usage = { tenantId: tenant.id, endpointId: endpoint.id, outcome: null, paid: false, upstreamError: false };
  if (endpoint.forwardCookies) {
    ctx.cookieScope = { clientHost: hostOf(req.headers.host), siteHost: deps.siteHost, pathPrefix: address.form === "path" ? `/gw/${address.slug}` : null };
  }
  if (!tenant.originUrl) return sendError(ctx, "service_unavailable", "The provider has not configured an origin yet");

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
    now: new Date(deps.clock()),
  });
  const decision = await limiter.check({
    ip: ctx.clientIp,
    tenantId: tenant.id,
    endpointId: endpoint.id,
    endpointLimit: endpoint.rateLimitPerMinute,
    credentialed: presented.credentialed,
  });
  if (!decision.ok) {
    return sendError(ctx, "rate_limited", `Too many requests (${decision.scope} limit); retry in ${decision.retryAfterSeconds} s`, {
      "retry-after": String(decision.retryAfterSeconds),
    });
  }

  const quote = quoteEndpoint(endpoint);
  if (quote && !tenant.wallet) return sendError(ctx, "service_unavailable", "The provider has not connected a wallet yet");
  if (endpoint.streaming && endpoint.pricingModel && streamPricing(endpoint.pricingModel) === "refused") {
    // per_kb streams are refused before any invoice (spec 4.7 rule 5): nobody pays for what we will not serve.
    return sendError(ctx, "service_unavailable", "This endpoint streams but is priced per_kb; streams are priced per connection");
  }

  const read = await readBody(req, limits.maxBodyBytes, limits.bodyReadTimeoutMs);
  if (read.kind === "too_large") return sendError(ctx, "payload_too_large", "The request body exceeds 1 MB", { connection: "close" });
  if (read.kind === "timeout") return sendError(ctx, "request_timeout", "The request body was not received in time", { connection: "close" });
  if (read.kind === "aborted") return;

  const maxStreamMs = (endpoint.maxStreamSeconds ?? limits.streamMaxSeconds) * 1000;
  const reserved = await reservePayment(deps.payments, {
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
  if (!reserved.ok) return answerRefusal(deps, ctx, tenant, endpoint, reserved.refusal);
  const call: PaidCall = { ctx, tenant, endpoint, reservation: reserved.reservation, path: normalized.path, search: query.search, body: read.body };
  return endpoint.streaming ? serveStream(deps, call, maxStreamMs) : serveCall(deps, call);
}

/** A CORS preflight: any method the gateway serves, the headers the browser asks for (or ours), cached 10 minutes. */
function answerPreflight(ctx: RequestContext): void {
  ctx.res.writeHead(204, {
    "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
    "access-control-allow-headers":
      ctx.req.headers["access-control-request-headers"] ?? "Authorization, Content-Type, X-Session-Token, X-Hub-Credit, X-Bolthub-Credit",
    "access-control-max-age": "600",
  });
  ctx.res.end();
}

/** Why a tenant's API refuses every call (spec 7.1's 403), in words a caller can act on. */
function inactiveTenantMessage(status: "inactive" | "suspended"): string {
  return status === "suspended"
    ? "This API is suspended: its provider has not paid the platform fee. It answers again as soon as the provider pays."
    : "This API is inactive: its provider is not serving it at the moment.";
}
