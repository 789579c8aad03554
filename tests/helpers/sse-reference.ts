// Reference readings of an SSE byte stream for tests of lib/gateway/sse-frames.ts (the unit tests
// and the fuzz targets): the obvious byte-at-a-time line rules, a chunker, and a WHATWG parser.
import { createParser, type EventSourceMessage } from "eventsource-parser";

/** The obvious byte-at-a-time reading, the reference the fast tracker must match. */
export function referenceSseState(bytes: Uint8Array): { atLineStart: boolean; atBoundary: boolean; sawContent: boolean } {
  let atLineStart = true;
  let atBoundary = true;
  let sawContent = false;
  for (const byte of bytes) {
    if (byte === 13) continue;
    if (byte === 10) {
      atBoundary = atLineStart;
      atLineStart = true;
    } else {
      if (atLineStart && byte !== 58) sawContent = true;
      atLineStart = false;
      atBoundary = false;
    }
  }
  return { atLineStart, atBoundary, sawContent };
}

/** Cuts bytes into chunks at the given positions (taken modulo the length, deduplicated). */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) chunks.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return chunks;
}

/** The events and comments a WHATWG-conforming client (eventsource-parser) reads from the text. */
export function parseSse(text: string): { events: EventSourceMessage[]; comments: string[] } {
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  parser.feed(text);
  return { events, comments };
}
