// Reads an SSE response (spec 4.7) as an async iterator of events, within a bounded window (a most
// events and a most milliseconds), surfacing the gateway's `payment_required` frame (spec 6.3) as
// its own kind. Browser-safe: a fetch Response, TextDecoder and eventsource-parser only.
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One event of the stream: an ordinary SSE event, or the gateway's end-of-paid-window frame. */
export type StreamEvent = { type: "event"; event: string; data: string; id: string | null } | { type: "payment_required"; reason: string | null; data: string };

/** Why reading stopped. */
export type StreamEndReason = "ended" | "max_events" | "max_ms" | "payment_required" | "aborted";

/**
 * The reading window; spec 8's live viewer bounds (100 events, 60 s) are the defaults. `onComment`
 * hears each SSE comment line (the `: keep-alive` frames) with its text; comments are not events
 * and never count toward `maxEvents`.
 */
export type EventStreamWindow = { maxEvents?: number; maxMs?: number; signal?: AbortSignal | null; onComment?: ((comment: string) => void) | null };

export const DEFAULT_STREAM_MAX_EVENTS = 100;
export const DEFAULT_STREAM_MAX_MS = 60_000;

/** The event's `reason` when the data is JSON `{reason}` (what the gateway sends), else null. */
function paymentRequiredReason(data: string): string | null {
  try {
    const parsed: unknown = JSON.parse(data);
    if (parsed && typeof parsed === "object" && typeof (parsed as { reason?: unknown }).reason === "string") return (parsed as { reason: string }).reason;
  } catch {
    // not JSON: the frame still means the paid window ended
  }
  return null;
}

function toStreamEvent(message: EventSourceMessage): StreamEvent {
  if (message.event === "payment_required") return { type: "payment_required", reason: paymentRequiredReason(message.data), data: message.data };
  return { type: "event", event: message.event ?? "message", data: message.data, id: message.id ?? null };
}

/**
 * A paid SSE response being read. Iterate it once with `for await`; breaking out, reaching the
 * window's bounds or a `payment_required` frame closes the connection. `endReason` says why it stopped.
 */
export class L402EventStream implements AsyncIterable<StreamEvent> {
  /** Set when iteration stops. */
  endReason: StreamEndReason | null = null;
  /** Events delivered so far. */
  eventCount = 0;
  private started = false;
  private readonly maxEvents: number;
  private readonly maxMs: number;

  constructor(
    /** The 2xx `text/event-stream` response (headers such as X-Hub-Payment, X-Session-Token). */
    readonly response: Response,
    private readonly window: EventStreamWindow = {},
    /** What the client paid to open this stream (0 when a session or credit covered it). */
    readonly paidSats = 0,
  ) {
    this.maxEvents = window.maxEvents ?? DEFAULT_STREAM_MAX_EVENTS;
    this.maxMs = window.maxMs ?? DEFAULT_STREAM_MAX_MS;
  }

  /** Reads every event of the window into an array (convenience for agents and tests). */
  async collect(): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    for await (const event of this) events.push(event);
    return events;
  }

  /** Stops reading and closes the connection (when not iterating). */
  async close(): Promise<void> {
    if (!this.started) {
      this.started = true;
      this.endReason ??= "aborted";
      await this.response.body?.cancel().catch(() => undefined);
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    if (this.started) throw new Error("An L402EventStream can be iterated once");
    this.started = true;
    const body = this.response.body;
    if (!body) {
      this.endReason = "ended";
      return;
    }
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const queue: StreamEvent[] = [];
    const onComment = this.window.onComment;
    const parser = createParser({
      onEvent: (message) => queue.push(toStreamEvent(message)),
      onComment: onComment ? (comment) => onComment(comment.trim()) : undefined,
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), this.maxMs)));
    const signal = this.window.signal;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<"aborted">((resolve) => {
      if (!signal) return;
      if (signal.aborted) resolve("aborted");
      onAbort = () => resolve("aborted");
      signal.addEventListener("abort", onAbort, { once: true });
    });
    let finished = false;
    try {
      for (;;) {
        while (queue.length > 0) {
          if (this.eventCount >= this.maxEvents) {
            this.endReason = "max_events";
            return;
          }
          const event = queue.shift()!;
          this.eventCount++;
          yield event;
          if (event.type === "payment_required") {
            this.endReason = "payment_required";
            return;
          }
        }
        if (this.eventCount >= this.maxEvents) {
          this.endReason = "max_events";
          return;
        }
        if (finished) {
          this.endReason = "ended";
          return;
        }
        const next = await Promise.race([reader.read(), timeout, aborted]);
        if (next === "timeout") {
          this.endReason = "max_ms";
          return;
        }
        if (next === "aborted") {
          this.endReason = "aborted";
          return;
        }
        if (next.done) {
          parser.feed(decoder.decode());
          finished = true;
        } else {
          parser.feed(decoder.decode(next.value, { stream: true }));
        }
      }
    } finally {
      clearTimeout(timer);
      if (signal && onAbort) signal.removeEventListener("abort", onAbort);
      this.endReason ??= "aborted";
      // Closing our side ends the paid connection at the gateway too.
      await reader.cancel().catch(() => undefined);
    }
  }
}
