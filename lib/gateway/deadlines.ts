// Whole-call origin timeouts without a timer per request: one interval sweeps the calls in flight
// and aborts the late ones' controllers with a recognisable reason. AbortSignal.timeout plus
// AbortSignal.any cost three signals and a DOMException per call; this costs a Map entry.

/** The abort reason of a call that ran past its deadline (compared by identity). */
export const originDeadlineReason = Object.freeze({ name: "OriginDeadline", message: "The origin did not answer in time" });

export class DeadlineSweeper {
  private readonly entries = new Map<AbortController, number>();
  private readonly timer: NodeJS.Timeout;

  /** `resolutionMs`: how late, at most, a deadline is noticed. */
  constructor(resolutionMs: number) {
    this.timer = setInterval(() => this.sweep(), resolutionMs);
    this.timer.unref();
  }

  /** Aborts `controller` with originDeadlineReason once `ms` have passed, unless removed first. */
  add(controller: AbortController, ms: number): void {
    this.entries.set(controller, Date.now() + ms);
  }

  delete(controller: AbortController): void {
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
