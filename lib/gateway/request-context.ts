// The state of one request as it moves through the gateway's steps (serve-request.ts and the
// serve-*.ts files): made once per request by server.ts, and, once paid for, the call.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CookieScope } from "@/lib/origin/cookie-policy.ts";
import type { CallAbort } from "@/lib/origin/deadlines.ts";
import type { RequestUsage } from "./request-usage.ts";
import type { Reservation } from "./reserve-payment.ts";
import type { GatewayEndpoint, GatewayTenant } from "./tenant-cache.ts";

/** One request: its response, id, client and what it is counted for. */
export type RequestContext = {
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

/** One call on its way to the origin, paid for (or free). */
export type PaidCall = {
  ctx: RequestContext;
  tenant: GatewayTenant;
  endpoint: GatewayEndpoint;
  reservation: Reservation;
  /** The canonical path: matched, charged, forwarded and signed alike. */
  path: string;
  /** The query as the origin receives it (canonicalQuery), with its `?`, or "". */
  search: string;
  body: Buffer | null;
};
