// Calls a tenant's origin: signed headers (spec 5.4, plus the v2 signature over the query), hop-by-hop and credential headers
// stripped (cookies too, unless the endpoint opts in), body already buffered (it was counted and
// signed), response body streamed back.
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { errors as undiciErrors, type Dispatcher } from "undici";
import { canonicalOriginPayload, canonicalOriginPayloadV2, signOriginPayload } from "@l402-hub/sdk/origin";
import { cookiesForOrigin } from "./cookie-policy.ts";
import { originDeadlineReason, type CallAbort } from "./deadlines.ts";

/** The origin-protection pair a call is signed with (spec 5.4); lib/tenants/secrets.ts keeps it sealed at rest. */
export type OriginSecretPair = { gatewaySecret: string; hmacSecret: string };

/** Headers that describe one connection, never forwarded (RFC 9110 7.6.1). */
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/**
 * Client headers the origin must never see: our credentials, the visitor's cookies (the dashboard's
 * session among them; an opted-in endpoint gets them filtered, see originHeaders), and anything it
 * would trust from us.
 */
const withheldFromOrigin = new Set(["host", "authorization", "x-session-token", "content-length", "expect", "forwarded", "cookie"]);

/**
 * Origin response headers the client never receives, because they would act on the platform rather
 * than on the origin's own response: cookies (an opted-in endpoint relays them filtered:
 * cookie-policy.ts), policies a browser applies to the whole gateway host, which tenants and maybe
 * the site share (HSTS, Alt-Svc, Clear-Site-Data, NEL and Report-To, Service-Worker-Allowed), CORS
 * (the gateway's own: `*`, no credentials; exposed names are merged in by the gateway), and the
 * gateway's own payment, session, cache and request-id headers, which clients trust as the gateway's word.
 */
const withheldFromClient = new Set([
  "set-cookie",
  "set-cookie2",
  "strict-transport-security",
  "alt-svc",
  "clear-site-data",
  "nel",
  "report-to",
  "service-worker-allowed",
  "x-request-id",
  "x-session-token",
  "x-session-expires",
  "x-session-balance",
  "x-data-size-kb",
  "x-data-cost-sats",
  "x-free-try",
  "x-cache",
  "x-cache-age",
]);

/**
 * True for an origin response header the gateway does not relay (lower-case name; see
 * withheldFromClient). X-Hub-* and X-Bolthub-* (the deployed client's names for the same payment
 * headers) are the gateway's namespace.
 */
export function isWithheldFromClient(name: string): boolean {
  if (withheldFromClient.has(name)) return true;
  if (name.startsWith("x-")) return name.startsWith("x-hub-") || name.startsWith("x-bolthub-");
  return name.startsWith("access-control-") && name !== "access-control-expose-headers";
}

/** The header names a Connection header lists (they describe this connection only); null when none. */
function connectionNamed(connection: string | string[] | undefined): Set<string> | null {
  // The usual values name no header that is not hop-by-hop already: no Set for them.
  if (connection === undefined || connection === "keep-alive" || connection === "close") return null;
  const named = new Set<string>();
  for (const part of String(connection).split(",")) {
    const name = part.trim().toLowerCase();
    if (name) named.add(name);
  }
  return named.size ? named : null;
}

/**
 * Copies headers without hop-by-hop ones (including those the Connection header names) and
 * without those `skip` refuses. Node and undici give header names in lower case already; one
 * pass, no intermediate object (this runs twice on every proxied call).
 */
function copyHeaders(headers: Record<string, string | string[] | undefined>, skip: ((lower: string) => boolean) | null): Record<string, string | string[]> {
  const named = connectionNamed(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (hopByHop.has(lower) || named?.has(lower) || skip?.(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** Removes hop-by-hop headers, including those the Connection header names. */
export function stripHopByHop(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  return copyHeaders(headers, null);
}

/**
 * True for a client header the origin must not receive (ours to set, or credentials). X-Hub-* and
 * X-Bolthub-* (the deployed client's aliases, e.g. X-Bolthub-Credit) are our namespace: an origin
 * may trust them as the gateway's.
 */
function withheld(name: string): boolean {
  if (withheldFromOrigin.has(name)) return true;
  // Most headers do not start with "x-": one test for them instead of four.
  return (
    name.startsWith("x-") && (name.startsWith("x-gateway-") || name.startsWith("x-forwarded-") || name.startsWith("x-hub-") || name.startsWith("x-bolthub-"))
  );
}

export type OriginRequest = {
  dispatcher: Dispatcher;
  originUrl: string;
  method: string;
  /** Canonical tenant-relative path (lib/l402/canonical-path.ts): matched, forwarded and signed alike. */
  path: string;
  /** Query string including the leading `?` (canonicalQuery: exactly what the origin receives), or "". */
  search: string;
  clientHeaders: IncomingHttpHeaders;
  body: Buffer | null;
  requestId: string;
  clientIp: string;
  forwardedHost: string;
  forwardedProto: string;
  secrets: OriginSecretPair;
  /**
   * Whole-call timeout (probes): `signal` is aborted with originDeadlineReason when it runs out.
   * Null when there is none here (streams), or when the caller aborts `signal` that way itself
   * (the gateway's DeadlineSweeper).
   */
  timeoutMs: number | null;
  /** How long the origin may take to send its response headers (streams: about a second, spec 4.7). */
  headersTimeoutMs?: number;
  /** Aborted when the client goes away (or with originDeadlineReason when the call ran out of time). */
  signal: CallAbort;
  /** Marks health probes so origins can skip work. */
  probe?: boolean;
  /** The endpoint opted in to cookies: the visitor's reach the origin, the platform's own removed. */
  forwardCookies?: boolean;
};

export type OriginResponse = { kind: "response"; statusCode: number; headers: Record<string, string | string[]>; body: Dispatcher.ResponseData["body"] };
export type OriginFailure = { kind: "unreachable" | "timeout" | "aborted"; message: string };

/** Where a call goes: the origin (scheme, host, port) and the request target (path and query). */
export type OriginTarget = { origin: string; path: string };

/** Parsed origin URLs by their text: a tenant's base is parsed once, not on every call. */
const originBases = new Map<string, { origin: string; prefix: string }>();
const maxOriginBases = 10_000;

/**
 * Paths and queries made only of characters the URL parser leaves as they are (RFC 3986 unreserved,
 * sub-delims, ":", "@", "/", "%", and "?" in a non-empty query, where "'" is escaped for http(s) URLs):
 * for them, joining strings gives exactly what `new URL` would, so only other requests pay for a parse.
 */
const plainPath = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const plainSearch = /^(?:\?[A-Za-z0-9\-._~!$&()*+,;=:@/%?]+)?$/;

function originBase(originUrl: string): { origin: string; prefix: string } {
  let base = originBases.get(originUrl);
  if (!base) {
    const url = new URL(originUrl);
    base = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
    if (originBases.size >= maxOriginBases) originBases.clear();
    originBases.set(originUrl, base);
  }
  return base;
}

/**
 * Joins the origin base (which may carry a path prefix) with the request path and query. The gateway
 * hands over normalized paths (lib/gateway/resolve-tenant.ts: no dot segments, no "//"); anything
 * else is resolved by the URL parser as before. Throws when the origin URL is invalid.
 */
export function originTarget(originUrl: string, path: string, search: string): OriginTarget {
  const base = originBase(originUrl);
  if (plainPath.test(path) && !path.includes("/.") && !path.includes("//") && plainSearch.test(search)) {
    return { origin: base.origin, path: `${base.prefix}${path}${search}` };
  }
  const url = new URL(`${base.prefix}${path}${search}`, base.origin);
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

/** Builds the signed header set the origin receives. */
export function originHeaders(
  request: Omit<OriginRequest, "dispatcher" | "signal" | "timeoutMs" | "headersTimeoutMs">,
  now = Date.now(),
): Record<string, string | string[]> {
  const headers = copyHeaders(request.clientHeaders, withheld);
  if (request.forwardCookies) {
    const cookie = cookiesForOrigin(request.clientHeaders.cookie);
    if (cookie !== null) headers.cookie = cookie;
  }
  const timestamp = String(now);
  const nonce = randomUUID();
  const parts = { method: request.method, path: request.path, timestamp, nonce, body: request.body ?? "" };
  headers["x-request-id"] = request.requestId;
  headers["x-forwarded-for"] = request.clientIp;
  headers["x-forwarded-host"] = request.forwardedHost;
  headers["x-forwarded-proto"] = request.forwardedProto;
  headers["x-gateway-secret"] = request.secrets.gatewaySecret;
  // v1 exactly as deployed verifiers compute it, and v2, which also covers the query (packages/sdk/src/origin/origin-signature.ts).
  headers["x-gateway-signature"] = signOriginPayload(request.secrets.hmacSecret, canonicalOriginPayload(parts));
  headers["x-gateway-signature-v2"] = signOriginPayload(request.secrets.hmacSecret, canonicalOriginPayloadV2({ ...parts, query: request.search }));
  headers["x-gateway-timestamp"] = timestamp;
  headers["x-gateway-nonce"] = nonce;
  if (request.probe) headers["x-hub-probe"] = "1";
  return headers;
}

/** How a failed origin call is reported: the client left, it ran out of time, or it never got through. */
function failureOf(request: OriginRequest, err: unknown): OriginFailure {
  const { signal } = request;
  if (signal.aborted && signal.reason !== originDeadlineReason) return { kind: "aborted", message: "The client went away" };
  if (signal.aborted || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return { kind: "timeout", message: "The origin did not answer in time" };
  }
  return { kind: "unreachable", message: `The origin could not be reached (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
}

/** What undici is asked to send, for both ways of calling; null when the origin URL is invalid. */
function dispatchOptions(request: OriginRequest): Dispatcher.DispatchOptions | null {
  let target: OriginTarget;
  try {
    target = originTarget(request.originUrl, request.path, request.search);
  } catch {
    return null;
  }
  return {
    origin: target.origin,
    path: target.path,
    method: request.method as Dispatcher.HttpMethod,
    headers: originHeaders(request),
    body: request.body && request.body.length ? request.body : null,
    // Streams may stay silent for long stretches; the stream layer enforces its own limits.
    headersTimeout: request.headersTimeoutMs ?? request.timeoutMs ?? 30_000,
    bodyTimeout: request.timeoutMs ?? 0,
  };
}

const invalidOrigin: OriginFailure = { kind: "unreachable", message: "The origin URL is invalid" };

/** Sends the request; resolves with the origin's status and streaming body, or a failure kind. */
export async function callOrigin(request: OriginRequest): Promise<OriginResponse | OriginFailure> {
  const options = dispatchOptions(request);
  if (!options) return invalidOrigin;
  // A call with a timeout of its own ends the way a gateway call past its deadline does.
  const timer = request.timeoutMs === null ? null : setTimeout(() => request.signal.abort(originDeadlineReason), request.timeoutMs).unref();
  try {
    const response = await request.dispatcher.request({ ...options, signal: request.signal });
    if (timer) response.body.once("close", () => clearTimeout(timer));
    return {
      kind: "response",
      statusCode: response.statusCode,
      headers: stripHopByHop(response.headers as Record<string, string | string[]>),
      body: response.body,
    };
  } catch (err) {
    if (timer) clearTimeout(timer);
    return failureOf(request, err);
  }
}

/**
 * How a relay into `res` ends: `done` resolves once the response finished, and rejects when the
 * client went away first (at once if it already had: a closed response emits nothing again) or
 * when `fail` is called (the body broke). It settles once; `cleanup` runs then.
 */
export function relayEnd(res: ServerResponse, cleanup?: () => void): { done: Promise<void>; fail: (err: Error) => void } {
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      cleanup?.();
      if (err) reject(err);
      else resolve();
    };
    fail = settle;
    if (res.destroyed) return settle(new Error("The client went away"));
    res.once("finish", () => settle());
    res.once("close", () => settle(res.writableFinished ? undefined : new Error("The client went away")));
  });
  return { done, fail };
}

/**
 * An origin body handed from undici's dispatch callbacks straight to the one response it is
 * relayed into: no Readable, no pipe, no AsyncResource per call (undici's request() makes all
 * three). Chunks that arrive before `pipeTo` is called are held, and undici is paused until then.
 */
export class DirectBody {
  private held: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private sink: { write(chunk: Buffer): void; end(): void; fail(err: Error): void } | null = null;
  private discarded = false;

  constructor(private readonly upstream: Dispatcher.DispatchController) {}

  /** undici: a chunk of the body. */
  push(chunk: Buffer): void {
    if (this.discarded) return;
    if (this.sink) return this.sink.write(chunk);
    this.held.push(chunk);
    this.upstream.pause();
  }

  /** undici: the body is complete. */
  end(): void {
    this.ended = true;
    this.sink?.end();
  }

  /** undici: the body broke off (origin, timeout, or our abort). */
  fail(err: Error): void {
    this.failure ??= err;
    this.sink?.fail(err);
  }

  /**
   * Writes the body into `res` (each chunk also to `onChunk`) with backpressure; resolves once the
   * response finished, rejects when the body fails or the client goes away first.
   */
  pipeTo(res: ServerResponse, onChunk?: (chunk: Buffer) => void): Promise<void> {
    const onDrain = () => this.upstream.resume();
    const relay = relayEnd(res, () => res.off("drain", onDrain));
    if (res.destroyed) return relay.done;
    res.on("drain", onDrain);
    const write = (chunk: Buffer) => {
      onChunk?.(chunk);
      if (!res.write(chunk)) this.upstream.pause();
    };
    this.sink = { write, end: () => void res.end(), fail: relay.fail };
    const held = this.held;
    this.held = [];
    for (const chunk of held) write(chunk);
    if (this.failure) relay.fail(this.failure);
    else if (this.ended) res.end();
    else if (!res.writableNeedDrain) this.upstream.resume();
    return relay.done;
  }

  /** Drops the body unread; the upstream request is aborted if it is still running. */
  destroy(): void {
    this.discarded = true;
    this.held = [];
    this.sink = null;
    if (!this.ended && !this.failure && !this.upstream.aborted) this.upstream.abort(new Error("The origin body was discarded"));
  }
}

export type DirectOriginResponse = { kind: "response"; statusCode: number; headers: Record<string, string | string[]>; body: DirectBody };

/**
 * callOrigin for a response relayed as it is (the gateway's ordinary calls): the same request, the
 * same failures, but the body is a DirectBody. Streams, metered bodies and probes use callOrigin.
 */
export function callOriginDirect(request: OriginRequest & { timeoutMs: null }): Promise<DirectOriginResponse | OriginFailure> {
  const options = dispatchOptions(request);
  if (!options) return Promise.resolve(invalidOrigin);
  const signal = request.signal;
  return new Promise((resolve) => {
    let body: DirectBody | null = null;
    let controller: Dispatcher.DispatchController | null = null;
    const onAbort = () => controller?.abort(signal.reason instanceof Error ? signal.reason : new undiciErrors.RequestAbortedError());
    const done = () => signal.removeListener("abort", onAbort);
    signal.once("abort", onAbort);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (signal.aborted) onAbort();
      },
      onResponseStart(c, statusCode, headers) {
        if (statusCode < 200) return; // informational: the final response follows
        body = new DirectBody(c);
        resolve({ kind: "response", statusCode, headers: stripHopByHop(headers as Record<string, string | string[]>), body });
      },
      onResponseData(_c, chunk) {
        body?.push(chunk);
      },
      onResponseEnd() {
        done();
        body?.end();
      },
      onResponseError(_c, err) {
        done();
        if (body) body.fail(err);
        else resolve(failureOf(request, err));
      },
    };
    request.dispatcher.dispatch(options, handler);
  });
}

/** Upstream outcomes that refund the payment (spec 7.3): unreachable, timeout, 5xx, 408, 429. */
export function isRetryableUpstreamStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}
