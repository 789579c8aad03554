// SSE framing: the tracker agrees with a byte-by-byte reading of the WHATWG line rules for every
// chunking, and what the gateway inserts never changes the events a client parses.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { chunked, parseSse as parse, referenceSseState as reference } from "@/tests/helpers/sse-reference.ts";
import { eventTerminator, keepAliveFrame, paymentRequiredFrame, SseFrameTracker } from "./sse-frames.ts";

const encoder = new TextEncoder();

/** SSE-ish text: fields, comments, blank lines, CRLF and LF line endings. */
const sseText = fc
  .array(fc.constantFrom("data: x", "data:", "event: tick", ": note", ":", "\n", "\r\n", "\r", "a", "id: 7", " "), { maxLength: 40 })
  .map((parts) => parts.join(""));

describe("SseFrameTracker", () => {
  it("matches the byte-by-byte reading for every text and every chunking", () => {
    fc.assert(
      fc.property(sseText, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const bytes = encoder.encode(text);
        const tracker = new SseFrameTracker();
        for (const chunk of chunked(bytes, cuts)) tracker.feed(chunk);
        expect({ atLineStart: tracker.atLineStart, atBoundary: tracker.atBoundary, sawContent: tracker.sawContent }).toEqual(reference(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("boundaryEnd finds the first point between events", () => {
    fc.assert(
      fc.property(sseText, sseText, (before, text) => {
        const tracker = new SseFrameTracker();
        tracker.feed(encoder.encode(before));
        const bytes = encoder.encode(text);
        const end = tracker.boundaryEnd(bytes);
        const prefix = encoder.encode(before);
        const at = (k: number) => reference(new Uint8Array([...prefix, ...bytes.subarray(0, k)])).atBoundary;
        let expected = -1;
        for (let k = 0; k <= bytes.length; k++) {
          if (at(k)) {
            expected = k;
            break;
          }
        }
        expect(end).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ["", true, true, false],
    ["data: a\n", false, true, true],
    ["data: a\n\n", true, true, true],
    ["data: a", false, false, true],
    [": ok\n\n", true, true, false],
    [": ok\n", false, true, false],
    ["data: a\r\n\r\n", true, true, true],
  ])("%j: boundary %s, line start %s, content %s", (text, atBoundary, atLineStart, sawContent) => {
    const tracker = new SseFrameTracker();
    tracker.feed(encoder.encode(text));
    expect(tracker).toMatchObject({ atBoundary, atLineStart, sawContent });
  });
});

describe("inserted frames", () => {
  it("a keep-alive inserted wherever the tracker allows never changes the origin's events", () => {
    fc.assert(
      fc.property(sseText, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const bytes = encoder.encode(`${text}\n\n`);
        const tracker = new SseFrameTracker();
        let out = "";
        for (const chunk of chunked(bytes, cuts)) {
          const frame = keepAliveFrame(tracker);
          if (frame) out += frame;
          tracker.feed(chunk);
          out += new TextDecoder().decode(chunk);
        }
        expect(parse(out).events).toEqual(parse(new TextDecoder().decode(bytes)).events);
      }),
      { numRuns: 1000 },
    );
  });

  it("the payment_required frame after the terminator parses as its own event, whatever came before", () => {
    fc.assert(
      fc.property(sseText, (text) => {
        const tracker = new SseFrameTracker();
        tracker.feed(encoder.encode(text));
        const { events } = parse(text + eventTerminator(tracker) + paymentRequiredFrame("time_pass_expired"));
        expect(events.at(-1)).toMatchObject({ event: "payment_required", data: '{"reason":"time_pass_expired"}' });
      }),
      { numRuns: 1000 },
    );
  });

  it("keep-alive frames are comments, whole frames only between events", () => {
    expect(keepAliveFrame({ atBoundary: true, atLineStart: true })).toBe(": keep-alive\n\n");
    expect(keepAliveFrame({ atBoundary: false, atLineStart: true })).toBe(": keep-alive\n");
    expect(keepAliveFrame({ atBoundary: false, atLineStart: false })).toBeNull();
    expect(parse(": keep-alive\n\n").comments).toEqual(["keep-alive"]);
  });
});
