// The try-it live viewer (spec 8, "hub live viewer"): it iterates the SDK's L402EventStream of a
// paid stream, bounded to 100 events or 60 seconds, numbering and timing each event and saying why
// it stopped. The bound is the viewer's only. Browser-safe.
import type { L402EventStream, StreamEndReason, StreamEvent } from "@l402-hub/sdk/client";

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

/** How a watched stream ended, with the broken stream's message for "error". */
export type LiveViewerStop = { reason: StreamStopReason; events: number; error?: string };

export type WatchLiveStreamOptions = {
  onEvent: (event: ViewerEvent) => void;
  now?: () => number;
};

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

/** An SDK event as the viewer lists it: the gateway's payment_required frame under its own name. */
function viewerEventOf(message: StreamEvent, index: number, atMs: number): ViewerEvent {
  if (message.type === "payment_required") return { index, event: "payment_required", data: message.data, id: null, atMs };
  return { index, event: message.event, data: message.data, id: message.id, atMs };
}

/**
 * Iterates `stream` (opened with LIVE_VIEWER_LIMITS and the run's abort signal) to its end,
 * handing each event to `onEvent`; the SDK closes the connection when it stops early. Never throws:
 * a stream that breaks off reports "error" with its message.
 */
export async function watchLiveStream(stream: L402EventStream, options: WatchLiveStreamOptions): Promise<LiveViewerStop> {
  const now = options.now ?? (() => Date.now());
  const started = now();
  try {
    for await (const message of stream) options.onEvent(viewerEventOf(message, stream.eventCount, now() - started));
  } catch (err) {
    return { reason: "error", events: stream.eventCount, error: err instanceof Error ? err.message : String(err) };
  }
  return { reason: stopReasons[stream.endReason ?? "ended"], events: stream.eventCount };
}
