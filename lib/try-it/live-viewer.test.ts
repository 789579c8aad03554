// The live viewer over the SDK's L402EventStream: events with names and times, and each way it
// stops (spec 8 limits).
import { describe, expect, it } from "vitest";
import { L402EventStream, type EventStreamWindow } from "@l402-hub/sdk/client";
import { describeStopReason, LIVE_VIEWER_LIMITS, watchLiveStream, type WatchLiveStreamOptions, type ViewerEvent } from "./live-viewer.ts";

const encoder = new TextEncoder();

/** A body that yields `chunks` (split anywhere) and then ends, or stays open when `hang`. */
function body(chunks: string[], options: { hang?: boolean; failWith?: Error } = {}): ReadableStream<Uint8Array> & { canceled: () => boolean } {
  let canceled = false;
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(encoder.encode(chunks[i++]));
      else if (options.failWith) controller.error(options.failWith);
      else if (!options.hang) controller.close();
      else return new Promise(() => {});
    },
    cancel() {
      canceled = true;
    },
  });
  return Object.assign(stream, { canceled: () => canceled });
}

/** What the page does: the response's stream, opened with the viewer's bounds, watched to its end. */
function watch(source: ReadableStream<Uint8Array>, options: WatchLiveStreamOptions & EventStreamWindow) {
  const { onEvent, now, ...window } = options;
  const stream = new L402EventStream(new Response(source), { ...LIVE_VIEWER_LIMITS, ...window });
  return watchLiveStream(stream, { onEvent, now });
}

describe("watchLiveStream", () => {
  it("hands each comment (the keep-alive frames) to onComment without counting it as an event", async () => {
    const comments: string[] = [];
    const events: ViewerEvent[] = [];
    const result = await watch(body([": keep-alive\n\nevent: hello\ndata: {}\n\n:keep-alive\n\n"]), {
      onEvent: (e) => events.push(e),
      onComment: (c) => comments.push(c),
      maxEvents: 1,
    });
    // Both comments of the chunk read are heard (trimmed), though the window closed after one event.
    expect(comments).toEqual(["keep-alive", "keep-alive"]);
    expect(events.map((e) => e.event)).toEqual(["hello"]);
    expect(result).toEqual({ reason: "limit_reached", events: 1 });
  });

  it("reads events split across chunks, with names, ids, multi-line data; comments are not events", async () => {
    const events: ViewerEvent[] = [];
    const result = await watch(body([": keep-alive\n\nevent: blo", 'ck\nid: 7\ndata: {"h":1}\n\ndata: line one\ndata: line two\n\n']), {
      onEvent: (e) => events.push(e),
    });
    expect(result).toEqual({ reason: "ended", events: 2 });
    expect(events.map(({ atMs, ...e }) => e)).toEqual([
      { index: 1, event: "block", id: "7", data: '{"h":1}' },
      { index: 2, event: "message", id: null, data: "line one\nline two" },
    ]);
  });

  it("stops at the event limit, shows nothing past it, and cancels the body", async () => {
    const events: ViewerEvent[] = [];
    const frames = Array.from({ length: 5 }, (_, i) => `data: ${i}\n\n`).join("");
    const source = body([frames], { hang: true });
    const result = await watch(source, { onEvent: (e) => events.push(e), maxEvents: 3 });
    expect(result).toEqual({ reason: "limit_reached", events: 3 });
    expect(events).toHaveLength(3);
    expect(source.canceled()).toBe(true);
  });

  it("stops at a payment_required frame and shows it", async () => {
    const events: ViewerEvent[] = [];
    const result = await watch(body(['data: 1\n\nevent: payment_required\ndata: {"reason":"time_pass_expired"}\n\ndata: late\n\n'], { hang: true }), {
      onEvent: (e) => events.push(e),
    });
    expect(result.reason).toBe("payment_required");
    expect(events.at(-1)).toMatchObject({ event: "payment_required", data: '{"reason":"time_pass_expired"}' });
    expect(events).toHaveLength(2);
  });

  it("stops at the time limit, when told to, and reports a broken stream", async () => {
    expect(await watch(body(["data: 1\n\n"], { hang: true }), { onEvent: () => {}, maxMs: 30 })).toEqual({ reason: "time_limit", events: 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    expect(await watch(body([], { hang: true }), { onEvent: () => {}, signal: controller.signal })).toEqual({ reason: "stopped", events: 0 });
    expect(await watch(body(["data: 1\n\n"], { failWith: new Error("connection reset") }), { onEvent: () => {} })).toEqual({
      reason: "error",
      events: 1,
      error: "connection reset",
    });
  });

  it("says why in words", () => {
    expect(describeStopReason("limit_reached")).toContain("100 events");
    expect(describeStopReason("time_limit")).toContain("60 seconds");
    expect(describeStopReason("payment_required")).toContain("payment_required");
  });
});
