// The try-it live viewer's reader: SSE frames from a fetch body (the SDK's L402EventStream), bounded to
// 100 events or 60 seconds (spec 8, "hub live viewer"), with the reason it stopped. Browser-safe.
import { L402EventStream, type StreamEndReason } from "../sdk/client/event-stream.ts";

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

/** The SDK's end reasons in the viewer's words. */
const stopReasons: Record<StreamEndReason, StreamStopReason> = {
  ended: "ended",
  max_events: "limit_reached",
  max_ms: "time_limit",
  payment_required: "payment_required",
  aborted: "stopped",
};

/**
 * Reads SSE events from `body` until the stream ends or a bound is hit, and cancels the body when
 * it stops early (which closes the connection). Comments (keep-alives) are not events. Never throws.
 * The reading itself is the SDK's (L402EventStream); the viewer adds positions and timings.
 */
export async function readEventStream(body: ReadableStream<Uint8Array>, options: ReadEventStreamOptions): Promise<ReadEventStreamResult> {
  const now = options.now ?? (() => Date.now());
  const started = now();
  const stream = new L402EventStream(new Response(body), {
    maxEvents: options.maxEvents ?? LIVE_VIEWER_LIMITS.maxEvents,
    maxMs: options.maxMs ?? LIVE_VIEWER_LIMITS.maxMs,
    signal: options.signal,
  });
  try {
    for await (const message of stream) {
      const event = message.type === "payment_required" ? { event: "payment_required", data: message.data, id: null } : message;
      options.onEvent({ index: stream.eventCount, event: event.event, data: event.data, id: event.id, atMs: now() - started });
    }
  } catch (err) {
    return { reason: "error", events: stream.eventCount, error: err instanceof Error ? err.message : String(err) };
  }
  return { reason: stopReasons[stream.endReason ?? "ended"], events: stream.eventCount };
}
