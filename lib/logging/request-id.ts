// One id per request, from the first process that handles it to every log line about it. The
// gateway and the web process each assign a random one (never a client's: the gateway's claims on
// a proof are keyed by it), answer it in `X-Request-Id`, pass it to the origin, and log it; the load
// balancer logs the answered header (deploy/haproxy.cfg), so its access line and our lines join on it.
import { randomUUID } from "node:crypto";

/** The response header (and the origin request's) carrying the id. */
export const REQUEST_ID_HEADER = "x-request-id";

/**
 * The request header the web process writes for its route handlers (overwritten on every request,
 * so no client can choose it), as it writes `x-hub-client-ip`.
 */
export const WEB_REQUEST_ID_HEADER = "x-hub-request-id";

export function newRequestId(): string {
  return randomUUID();
}
