// How many streams one time_pass session may hold open at once (GATEWAY_STREAMS_PER_SESSION): a
// pass spends nothing per connection, so without a cap one token could hold any number of
// connections to the gateway and the origin. Exact per process (a count in memory, taken before
// any await) and across gateway instances through the store: slot i of a session is the key
// `streams:<sessionId>:<i>`, taken with setIfAbsent under a short lease that this process renews
// while the stream lasts, so a gateway that dies frees its slots within one lease. If the store
// fails, the count of this process still holds.
import { randomUUID } from "node:crypto";
import type { Logger } from "../logging/logger.ts";
import type { KeyValueStore } from "../store/types.ts";

export type StreamSlotsOptions = {
  store: KeyValueStore;
  log: Logger;
  /** Streams one session may hold at once. */
  perSession: number;
  /** Lease of a slot in the store; renewed every third of it while the stream is open. */
  leaseMs?: number;
};

/** A held slot; release() frees it (idempotent). */
export type StreamSlot = { release(): void };

export class StreamSlots {
  /** Streams open per session in this process. */
  private readonly local = new Map<string, number>();
  /** Store keys this process holds, with the value that marks them as ours. */
  private readonly held = new Map<string, string>();
  private renewal: NodeJS.Timeout | null = null;
  private readonly leaseMs: number;

  constructor(private readonly options: StreamSlotsOptions) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  get perSession(): number {
    return this.options.perSession;
  }

  /** Takes a slot of the session; null when all of them are taken, here or on another instance. */
  async acquire(sessionId: string): Promise<StreamSlot | null> {
    const open = this.local.get(sessionId) ?? 0;
    if (open >= this.options.perSession) return null;
    // Counted before the first await, so concurrent acquisitions in this process see each other.
    this.local.set(sessionId, open + 1);
    let key: string | null = null;
    const owner = randomUUID();
    try {
      for (let i = 0; i < this.options.perSession && key === null; i++) {
        const candidate = `streams:${sessionId}:${i}`;
        if (await this.options.store.setIfAbsent(candidate, owner, this.leaseMs)) key = candidate;
      }
      if (key === null) {
        this.leave(sessionId);
        return null;
      }
      this.held.set(key, owner);
      this.renewal ??= setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseMs / 3))).unref();
    } catch (err) {
      // The store is unreachable: this process's count decides alone (a slot in the store may be left over).
      this.options.log.warn("stream slot store failed; counting this process only", { error: err });
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.leave(sessionId);
        if (key === null) return;
        this.held.delete(key);
        if (this.held.size === 0 && this.renewal) {
          clearInterval(this.renewal);
          this.renewal = null;
        }
        this.options.store.del(key).catch((err) => this.options.log.warn("stream slot not freed; it lapses with its lease", { error: err }));
      },
    };
  }

  /** Stops renewing (shutdown: the streams have ended, their slots lapse or were freed). */
  close(): void {
    if (this.renewal) clearInterval(this.renewal);
    this.renewal = null;
  }

  private leave(sessionId: string): void {
    const open = (this.local.get(sessionId) ?? 1) - 1;
    if (open > 0) this.local.set(sessionId, open);
    else this.local.delete(sessionId);
  }

  private renew(): void {
    for (const [key, owner] of this.held) {
      this.options.store.set(key, owner, this.leaseMs).catch((err) => this.options.log.warn("stream slot lease not renewed", { key, error: err }));
    }
  }
}
