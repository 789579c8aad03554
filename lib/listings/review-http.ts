// The review's one way to call a listed gateway: through the SSRF-pinned dispatcher it is given (the
// resolved address is checked at connect time), no redirects followed, a per-request time limit on
// top of the whole review's deadline, and a cap on the bytes read. A text/event-stream answer is read
// only until its first event (or the time limit): a stream that opens and sends an event is enough.
import { createParser } from "eventsource-parser";
import { request, type Dispatcher } from "undici";

/** The review's HTTP limits (docs/decisions.md, "External listing review"). */
export const reviewHttpLimits = {
  /** Headers, body and first stream event of one request. */
  requestTimeoutMs: 10_000,
  /** Bytes read from one answer; the rest is dropped (the answer is marked truncated). */
  maxBodyBytes: 1_000_000,
};

export type ReviewRequest = {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
};

/** What a listed gateway answered. */
export type ReviewResponse = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Lowercased media type without parameters ("" when absent). */
  mediaType: string;
  body: Buffer;
  /** True when more than maxBodyBytes arrived (the body holds the first maxBodyBytes). */
  truncated: boolean;
  /** text/event-stream only: the first event, or null when none arrived in time. */
  firstEvent: { event: string | undefined; data: string } | null;
};

export type ReviewHttpOptions = {
  dispatcher: Dispatcher;
  /** The whole review's deadline. */
  signal: AbortSignal;
  requestTimeoutMs?: number;
  maxBodyBytes?: number;
};

/** The media type of a Content-Type value, lowercased, without parameters. */
export function mediaTypeOf(contentType: string | string[] | undefined): string {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return (value ?? "").split(";")[0].trim().toLowerCase();
}

/** One request to the listed gateway; throws on a refused or failed connection and on the time limits. */
export async function reviewFetch(req: ReviewRequest, options: ReviewHttpOptions): Promise<ReviewResponse> {
  const timeoutMs = options.requestTimeoutMs ?? reviewHttpLimits.requestTimeoutMs;
  const maxBodyBytes = options.maxBodyBytes ?? reviewHttpLimits.maxBodyBytes;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(timeoutMs)]);
  const res = await request(req.url, {
    method: req.method as Dispatcher.HttpMethod,
    // A fresh connection per request: a pooled one the gateway closed meanwhile would turn into a
    // false "unreachable" finding, and a review makes few requests.
    headers: { "user-agent": "L402HubListingReview/1.0", accept: "*/*", ...req.headers, connection: "close" },
    body: req.body,
    dispatcher: options.dispatcher,
    signal,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const mediaType = mediaTypeOf(res.headers["content-type"]);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  let firstEvent: ReviewResponse["firstEvent"] = null;
  const parser = mediaType === "text/event-stream" ? createParser({ onEvent: (e) => void (firstEvent ??= { event: e.event, data: e.data }) }) : null;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const room = maxBodyBytes - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      parser?.feed(chunk.toString("utf8"));
      if (firstEvent) break;
      if (chunk.length > room) {
        truncated = true;
        break;
      }
    }
  } catch (err) {
    // A stream that sent no event before the time limit is an answer to judge, not a failure to reach it.
    if (!parser || options.signal.aborted) throw err;
  } finally {
    res.body.destroy();
  }
  return { status: res.statusCode, headers: res.headers, mediaType, body: Buffer.concat(chunks), truncated, firstEvent };
}

/** A connection failure in words, naming an SSRF refusal as such (the pinned dispatcher's BlockedTargetError). */
export function describeFetchError(err: unknown): { blocked: boolean; message: string } {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === "blocked_address")
      return { blocked: true, message: `refused by the platform's address rules: ${(e as Error).message}` };
  }
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.code === "UND_ERR_HEADERS_TIMEOUT" || e?.code === "UND_ERR_BODY_TIMEOUT")
    return { blocked: false, message: "no answer within the time limit" };
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return { blocked: false, message: code && !message.includes(code) ? `${message} (${code})` : message };
}
