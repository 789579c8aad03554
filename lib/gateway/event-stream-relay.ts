// SSE pass-through (spec 4.7, 8): origin bytes go to the client as they arrive, unbuffered and
// unparsed, with backpressure (the origin is paused while the client's socket is full). The relay
// adds only what the spec asks for, at places SseFrameTracker says are safe: a `: keep-alive`
// comment after 15 s of silence, and the `payment_required` frame when a time_pass window ends
// (after the origin's current event, or after a grace period). It also enforces the stream's
// maximum lifetime and idle timeout. One StreamTicker per gateway drives every open stream's
// timing from one interval, on an injectable clock, so 1,000 streams cost one timer.
import type { ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { eventTerminator, keepAliveFrame, paymentRequiredFrame, SseFrameTracker } from "./sse-frames.ts";

/** Why a stream ended. */
export type StreamEnd = "origin_end" | "origin_error" | "client_gone" | "idle_timeout" | "max_duration" | "window_ended" | "shutdown";

/** What a finished stream delivered: `contentSeen` is false when no origin field line reached the client. */
export type StreamOutcome = { end: StreamEnd; contentSeen: boolean; bytes: number };

/** One stream's sockets, clock and limits (the endpoint's, or the gateway's defaults). */
export type EventStreamRelayOptions = {
  res: ServerResponse;
  body: Readable;
  /** Milliseconds since the epoch; the gateway's clock (tests move it). */
  clock: () => number;
  keepAliveMs: number;
  /** Origin silence (no bytes at all) after which the stream is closed. */
  idleTimeoutMs: number;
  /** Lifetime of the connection. */
  maxDurationMs: number;
  /** When the paid window ends (time_pass), or null. */
  windowEndsAt: number | null;
  /** How long the relay waits for the origin's current event to finish before closing anyway. */
  closeGraceMs: number;
  /** Called once, when the first origin content line has been written to the client. */
  onFirstContent?: () => void;
};

/** One open stream. `run` resolves when it ends, however it ends. */
export class EventStreamRelay {
  private readonly tracker = new SseFrameTracker();
  private readonly startedAt: number;
  private lastOriginAt: number;
  private lastWriteAt: number;
  private bytes = 0;
  private closing: { end: StreamEnd; deadline: number } | null = null;
  private done = false;
  private waitingForDrain = false;
  private resolve!: (outcome: StreamOutcome) => void;
  private readonly finished: Promise<StreamOutcome>;

  constructor(private readonly options: EventStreamRelayOptions) {
    this.startedAt = options.clock();
    this.lastOriginAt = this.startedAt;
    this.lastWriteAt = this.startedAt;
    this.finished = new Promise((resolve) => (this.resolve = resolve));
  }

  /** Starts relaying; resolves with the outcome when the stream ends. */
  run(): Promise<StreamOutcome> {
    const { body, res } = this.options;
    body.on("data", this.onData);
    body.once("end", this.onEnd);
    body.once("error", this.onError);
    res.once("close", this.onClose);
    if (res.destroyed) this.finish("client_gone");
    return this.finished;
  }

  /** Applies the clock: window end, lifetime, idle timeout, keep-alive. The ticker calls it. */
  tick(now: number): void {
    if (this.done) return;
    const o = this.options;
    if (this.closing) {
      if (now >= this.closing.deadline) this.finish(this.closing.end);
      return;
    }
    if (this.passedDeadline(now)) return;
    if (now - this.lastOriginAt >= o.idleTimeoutMs) return this.finish("idle_timeout");
    if (now - this.lastWriteAt >= o.keepAliveMs) {
      const frame = keepAliveFrame(this.tracker);
      if (frame) {
        o.res.write(frame);
        this.lastWriteAt = now;
      }
    }
  }

  /** The gateway is shutting down: end at the origin's next event boundary (within closeGraceMs). */
  shutdown(now: number): void {
    if (!this.done && !this.closing) this.beginClose("shutdown", now);
  }

  /** Starts closing when the paid window or the lifetime is over; true when it did. */
  private passedDeadline(now: number): boolean {
    const o = this.options;
    const end: StreamEnd | null =
      o.windowEndsAt !== null && now >= o.windowEndsAt ? "window_ended" : now - this.startedAt >= o.maxDurationMs ? "max_duration" : null;
    if (end) this.beginClose(end, now);
    return end !== null;
  }

  private readonly onData = (chunk: Buffer) => {
    if (this.done) return;
    const now = this.options.clock();
    this.lastOriginAt = now;
    // Data that arrives after the window ended is cut at the current event even if the ticker has
    // not run yet: the clock decides, not the timer's phase.
    if (!this.closing && this.passedDeadline(now) && this.done) return;
    if (this.closing) {
      // Finish the origin's current event, then close: never cut an event in half if avoidable.
      const end = this.tracker.boundaryEnd(chunk);
      if (end >= 0) {
        this.write(chunk.subarray(0, end), now);
        return this.finish(this.closing.end);
      }
    }
    this.write(chunk, now);
  };

  private write(chunk: Buffer, now: number) {
    if (chunk.length === 0) return;
    const hadContent = this.tracker.sawContent;
    this.tracker.feed(chunk);
    this.bytes += chunk.length;
    this.lastWriteAt = now;
    const { body, res } = this.options;
    if (!res.write(chunk) && !this.waitingForDrain) {
      this.waitingForDrain = true;
      body.pause();
      res.once("drain", () => {
        this.waitingForDrain = false;
        body.resume();
      });
    }
    if (!hadContent && this.tracker.sawContent) this.options.onFirstContent?.();
  }

  private readonly onEnd = () => this.finish("origin_end");
  private readonly onError = () => this.finish("origin_error");
  private readonly onClose = () => this.finish("client_gone");

  private beginClose(end: StreamEnd, now: number) {
    if (this.tracker.atBoundary) return this.finish(end);
    this.closing = { end, deadline: now + this.options.closeGraceMs };
  }

  private finish(end: StreamEnd) {
    if (this.done) return;
    this.done = true;
    const { body, res } = this.options;
    body.off("data", this.onData);
    body.off("end", this.onEnd);
    body.off("error", this.onError);
    res.off("close", this.onClose);
    if (!body.destroyed) {
      body.on("error", () => {}); // undici reports its own abort as an error
      body.destroy();
    }
    if (end !== "client_gone" && !res.destroyed) {
      if (end === "window_ended") res.write(eventTerminator(this.tracker) + paymentRequiredFrame("time_pass_expired"));
      res.end();
    }
    this.resolve({ end, contentSeen: this.tracker.sawContent, bytes: this.bytes });
  }
}

/** Drives every open stream of a gateway from one interval (started while any stream is open). */
export class StreamTicker {
  private readonly relays = new Set<EventStreamRelay>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly clock: () => number,
  ) {}

  /** Open streams right now (tests and the benchmark watch it fall back to zero). */
  get size(): number {
    return this.relays.size;
  }

  /** Ends every open stream at its next event boundary (gateway shutdown); the timer enforces the grace. */
  shutdown(): void {
    const now = this.clock();
    for (const r of this.relays) r.shutdown(now);
  }

  /** Relays a stream under this ticker until it ends. */
  async run(relay: EventStreamRelay): Promise<StreamOutcome> {
    this.relays.add(relay);
    if (!this.timer) {
      this.timer = setInterval(() => {
        const now = this.clock();
        for (const r of this.relays) r.tick(now);
      }, this.intervalMs);
      this.timer.unref();
    }
    try {
      return await relay.run();
    } finally {
      this.relays.delete(relay);
      if (this.relays.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    }
  }
}
