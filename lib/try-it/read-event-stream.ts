// The try-it live viewer's reader: SSE frames from a fetch body (eventsource-parser), bounded to
// 100 events or 60 seconds (spec 8, "hub live viewer"), with the reason it stopped. Browser-safe.
import { createParser } from "eventsource-parser";

/** Spec 8: the live viewer stops at 100 events or 60 seconds; the bound is the viewer's only. */
export const LIVE_VIEWER_LIMITS = { maxEvents: 100, maxMs: 60_000 } as const;

/** Why the viewer stopped reading. */
export type StreamStopReason = "limit_reached" | "time_limit" | "ended" | "payment_required" | "error" | "stopped";

/** One event as the viewer shows it. */
export type ViewerEvent = {
  /** 1-based position in the stream. */
  index: number;
  /** The `event:` name; "message" when the frame had none (the SSE default). */
  event: string;
  data: string;
  id: string | null;
  /** Milliseconds since the stream opened. */
  atMs: number;
};

export type ReadEventStreamOptions = {
  onEvent: (event: ViewerEvent) => void;
  signal?: AbortSignal;
  maxEvents?: number;
  maxMs?: number;
  now?: () => number;
};

export type ReadEventStreamResult = { reason: StreamStopReason; events: number; error?: string };

/** What each stop reason means, for people. */
export function describeStopReason(reason: StreamStopReason, limits: { maxEvents: number; maxMs: number } = LIVE_VIEWER_LIMITS): string {
  switch (reason) {
    case "limit_reached":
      return `Stopped after ${limits.maxEvents} events, the live viewer's limit. The stream itself may go on.`;
    case "time_limit":
      return `Stopped after ${Math.round(limits.maxMs / 1000)} seconds, the live viewer's limit. The stream itself may go on.`;
    case "ended":
      return "The stream ended.";
    case "payment_required":
      return "The paid window ended: the gateway sent payment_required and closed the stream.";
    case "error":
      return "The stream broke off with an error.";
    case "stopped":
      return "You stopped the stream.";
  }
}

/**
 * Reads SSE events from `body` until the stream ends or a bound is hit, and cancels the body when
 * it stops early (which closes the connection). Comments (keep-alives) are not events. Never throws.
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, options: ReadEventStreamOptions): Promise<ReadEventStreamResult> {
  const maxEvents = options.maxEvents ?? LIVE_VIEWER_LIMITS.maxEvents;
  const maxMs = options.maxMs ?? LIVE_VIEWER_LIMITS.maxMs;
  const now = options.now ?? (() => Date.now());
  const started = now();
  const reader = body.getReader();
  let events = 0;
  let reason: StreamStopReason | null = null;
  const stop = (why: StreamStopReason) => {
    if (reason) return;
    reason = why;
    reader.cancel().catch(() => {});
  };

  const parser = createParser({
    onEvent(message) {
      // A chunk may hold several frames: nothing after the stop is shown.
      if (reason) return;
      events += 1;
      options.onEvent({ index: events, event: message.event || "message", data: message.data, id: message.id ?? null, atMs: now() - started });
      if (message.event === "payment_required") stop("payment_required");
      else if (events >= maxEvents) stop("limit_reached");
    },
  });

  const timer = setTimeout(() => stop("time_limit"), Math.max(0, maxMs));
  const onAbort = () => stop("stopped");
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const decoder = new TextDecoder();
  let error: string | undefined;
  try {
    while (!reason) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    if (!reason) {
      parser.feed(decoder.decode());
      reason = "ended";
    }
  } catch (err) {
    if (!reason) {
      reason = "error";
      error = err instanceof Error ? err.message : String(err);
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
  return error === undefined ? { reason: reason!, events } : { reason: reason!, events, error };
}
