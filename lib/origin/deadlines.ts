// Whole-call origin timeouts without a timer per request: one interval sweeps the calls in flight
// and aborts the late ones' controllers with a recognisable reason. AbortSignal.timeout plus
// AbortSignal.any cost three signals and a DOMException per call; this costs a Map entry.
// A call's abort switch is a CallAbort, not an AbortController, for the same reason.
import { EventEmitter } from "node:events";

/** The abort reason of a call that ran past its deadline (compared by identity). */
export const originDeadlineReason = Object.freeze({ name: "OriginDeadline", message: "The origin did not answer in time" });

/**
 * One call's abort switch: `aborted`, `reason` and an "abort" event, which is what undici accepts
 * as a request's signal (an EventEmitter). Lighter than an AbortController (an EventTarget, a
 * signal, a DOMException on abort), and the gateway makes one for every request.
 */
export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  /** Aborts once; later calls do nothing. Without a reason undici reports its RequestAbortedError. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit("abort");
  }
}

/** What a deadline aborts. */
type Abortable = { abort(reason?: unknown): void };

export class DeadlineSweeper {
  private readonly entries = new Map<Abortable, number>();
  private readonly timer: NodeJS.Timeout;

  /** `resolutionMs`: how late, at most, a deadline is noticed. */
  constructor(resolutionMs: number) {
    this.timer = setInterval(() => this.sweep(), resolutionMs);
    this.timer.unref();
  }

  /** Aborts `controller` with originDeadlineReason once `ms` have passed, unless removed first. */
  add(controller: Abortable, ms: number): void {
    this.entries.set(controller, Date.now() + ms);
  }

  delete(controller: Abortable): void {
    this.entries.delete(controller);
  }

  get size(): number {
    return this.entries.size;
  }

  close(): void {
    clearInterval(this.timer);
    this.entries.clear();
  }

  private sweep() {
    const now = Date.now();
    for (const [controller, deadline] of this.entries) {
      if (deadline > now) continue;
      this.entries.delete(controller);
      controller.abort(originDeadlineReason);
    }
  }
}
