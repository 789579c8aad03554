// What a paid call sends its origin (origin-call.ts signs and sends it): the canonical path and
// query, the client's headers, the body, and the tenant's configured address as X-Forwarded-Host
// and -Proto. A non-stream call also starts its whole-call deadline here.
import type { Dispatcher } from "undici";
import { gatewayUrlFor, type Config } from "@/lib/config/index.ts";
import type { DeadlineSweeper } from "@/lib/origin/deadlines.ts";
import type { GatewayLimits } from "./gateway-limits.ts";
import type { OriginRequest } from "@/lib/origin/origin-call.ts";
import type { PaidCall } from "./request-context.ts";
import type { GatewayTenant } from "./tenant-cache.ts";

/** A tenant's gateway address as its origin is told it. */
export type ForwardedAddress = { host: string; proto: string };

/**
 * X-Forwarded-Host/-Proto name the tenant's configured gateway address, never the client's Host:
 * an origin that builds links from them must not be steered by a caller (its cached answer would
 * carry that caller's host to everyone). Worked out once per cached tenant.
 */
export class ForwardedAddresses {
  private readonly byTenant = new WeakMap<GatewayTenant, ForwardedAddress>();

  constructor(private readonly config: Pick<Config, "gatewayUrlTemplate">) {}

  /** The address of `tenant` (GATEWAY_URL_TEMPLATE with its slug). */
  of(tenant: GatewayTenant): ForwardedAddress {
    let address = this.byTenant.get(tenant);
    if (!address) {
      const url = new URL(gatewayUrlFor(this.config, tenant.slug));
      address = { host: url.host, proto: url.protocol.slice(0, -1) };
      this.byTenant.set(tenant, address);
    }
    return address;
  }
}

/** What originRequest needs: the two connection pools, the deadline sweeper and the addresses. */
export type OriginRequestDeps = {
  limits: GatewayLimits;
  dispatcher: Dispatcher;
  streamDispatcher: Dispatcher;
  deadlines: DeadlineSweeper;
  forwarded: ForwardedAddresses;
};

/** The origin request of a call; streams wait `headersTimeoutMs` at most for the origin's headers. */
export function originRequest(deps: OriginRequestDeps, call: PaidCall, headersTimeoutMs: number | null): OriginRequest & { timeoutMs: null } {
  const { ctx, tenant, endpoint } = call;
  const forwarded = deps.forwarded.of(tenant);
  // The deadline covers the whole call, body included; it ends when the response closes.
  if (!endpoint.streaming) deps.deadlines.add(ctx.abort, deps.limits.originTimeoutMs);
  return {
    dispatcher: endpoint.streaming ? deps.streamDispatcher : deps.dispatcher,
    originUrl: tenant.originUrl!,
    method: ctx.req.method ?? "GET",
    path: call.path,
    search: call.search,
    clientHeaders: ctx.req.headers,
    body: call.body,
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
