// SSE framing for the stream pass-through (spec 4.7, 6.3; WHATWG "server-sent events"): the
// gateway never parses or re-encodes an origin's events, it only tracks where it stands in the
// byte stream, so that what it adds (keep-alive comments, the payment_required frame) never lands
// inside an origin event, and so that it knows whether any content (a non-comment line) passed.
// Lines end with LF or CRLF (a CR is ignored when deciding where a line stands); bare-CR line
// endings, which no origin we know sends, are not recognised. Pure: no I/O.

const LF = 10;
const CR = 13;
const COLON = 58;

/** A comment frame sent when the origin has been silent (spec 8: every 15 seconds). */
export const KEEP_ALIVE_COMMENT = ": keep-alive";

/**
 * Where an SSE byte stream stands after the bytes fed so far:
 * - `atBoundary`: between events (nothing pending): a whole frame may be inserted;
 * - `atLineStart`: at the start of a line: a comment line may be inserted without ending the event;
 * - `sawContent`: some non-comment line (a field such as `data:`) has passed.
 */
export class SseFrameTracker {
  atBoundary = true;
  atLineStart = true;
  sawContent = false;

  /** Advances over a chunk (fast path: searches for line feeds instead of visiting every byte). */
  feed(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (!this.sawContent) this.scanForContent(chunk);
    const last = chunk.lastIndexOf(LF);
    if (last === -1) {
      if (!onlyCR(chunk, 0, chunk.length)) {
        this.atLineStart = false;
        this.atBoundary = false;
      }
      return;
    }
    const previous = last === 0 ? -1 : chunk.lastIndexOf(LF, last - 1);
    // The line ended by the last LF is empty when nothing but CRs stands between it and the line start.
    const endedLineEmpty = previous === -1 ? this.atLineStart && onlyCR(chunk, 0, last) : onlyCR(chunk, previous + 1, last);
    if (onlyCR(chunk, last + 1, chunk.length)) {
      this.atLineStart = true;
      // An empty line dispatches the pending event (or is an extra blank line between events);
      // a non-empty one leaves us at a line start inside an event.
      this.atBoundary = endedLineEmpty;
    } else {
      this.atLineStart = false;
      this.atBoundary = false;
    }
  }

  /**
   * Where in `chunk` the stream next reaches a boundary between events: the index just past it
   * (0 when already there), or -1 when the chunk ends inside an event. Lets the gateway end a
   * stream after the current origin event instead of cutting it in half.
   */
  boundaryEnd(chunk: Uint8Array): number {
    if (this.atBoundary) return 0;
    let lineEmpty = this.atLineStart;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === CR) continue;
      if (byte === LF) {
        if (lineEmpty) return i + 1;
        lineEmpty = true;
      } else {
        lineEmpty = false;
      }
    }
    return -1;
  }

  /** Marks content once a line whose first byte is not `:` (a field line) appears. */
  private scanForContent(chunk: Uint8Array): void {
    let i = 0;
    if (!this.atLineStart) {
      // The current line began in an earlier chunk and was classified there.
      const next = chunk.indexOf(LF);
      if (next === -1) return;
      i = next + 1;
    }
    while (i < chunk.length) {
      while (i < chunk.length && chunk[i] === CR) i++;
      if (i >= chunk.length) return;
      const byte = chunk[i];
      if (byte !== LF && byte !== COLON) {
        this.sawContent = true;
        return;
      }
      if (byte === LF) {
        i++;
        continue;
      }
      const next = chunk.indexOf(LF, i);
      if (next === -1) return;
      i = next + 1;
    }
  }
}

function onlyCR(chunk: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (chunk[i] !== CR) return false;
  return true;
}

/**
 * The keep-alive to insert now: a whole comment frame between events, a lone comment line at the
 * start of a line inside an event (comments never end an event), or null mid-line (try later).
 */
export function keepAliveFrame(tracker: Pick<SseFrameTracker, "atBoundary" | "atLineStart">): string | null {
  if (tracker.atBoundary) return `${KEEP_ALIVE_COMMENT}\n\n`;
  if (tracker.atLineStart) return `${KEEP_ALIVE_COMMENT}\n`;
  return null;
}

/** What ends the pending event so a frame can follow: nothing, one LF, or two. */
export function eventTerminator(tracker: Pick<SseFrameTracker, "atBoundary" | "atLineStart">): string {
  if (tracker.atBoundary) return "";
  return tracker.atLineStart ? "\n" : "\n\n";
}

/** The terminal frame of a paid window that ended mid-stream (spec 4.7 rule 4, 6.3). */
export function paymentRequiredFrame(reason: "time_pass_expired"): string {
  return `event: payment_required\ndata: ${JSON.stringify({ reason })}\n\n`;
}
