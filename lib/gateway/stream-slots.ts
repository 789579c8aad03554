// How many streams one holder may keep open at once: a time_pass session (GATEWAY_STREAMS_PER_SESSION)
// or a client IP on a tenant's free streaming endpoints (GATEWAY_FREE_STREAMS_PER_IP). Neither pays
// per connection, so without a cap one token or address could hold any number of connections to
// the gateway and the origin. Exact per process (a count in memory, taken before any await) and
// across gateway instances through the store: slot i of a holder is the key `streams:<holder>:<i>`,
// taken with setIfAbsent under a short lease that this process renews while the stream lasts, so
// a gateway that dies frees its slots within one lease. If the store fails, the count of this
// process still holds.
import { randomUUID } from "node:crypto";
import type { Logger } from "@/lib/logging/logger.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";

export type StreamSlotsOptions = {
  store: KeyValueStore;
  log: Logger;
  /** Streams one holder may keep open at once. */
  limit: number;
  /** Lease of a slot in the store; renewed every third of it while the stream is open. */
  leaseMs?: number;
};

/** A held slot; release() frees it (idempotent). */
export type StreamSlot = { release(): void };

export class StreamSlots {
  /** Streams open per holder in this process. */
  private readonly local = new Map<string, number>();
  /** Store keys this process holds, with the value that marks them as ours. */
  private readonly held = new Map<string, string>();
  private renewal: NodeJS.Timeout | null = null;
  private readonly leaseMs: number;

  constructor(private readonly options: StreamSlotsOptions) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  get limit(): number {
    return this.options.limit;
  }

  /** Takes a slot of the holder (`session:<id>`, `free:<tenant>:<ip>`); null when all are taken, here or on another instance. */
  async acquire(holder: string): Promise<StreamSlot | null> {
    const open = this.local.get(holder) ?? 0;
    if (open >= this.options.limit) return null;
    // Counted before the first await, so concurrent acquisitions in this process see each other.
    this.local.set(holder, open + 1);
    let key: string | null = null;
    const owner = randomUUID();
    try {
      for (let i = 0; i < this.options.limit && key === null; i++) {
        const candidate = `streams:${holder}:${i}`;
        if (await this.options.store.setIfAbsent(candidate, owner, this.leaseMs)) key = candidate;
      }
      if (key === null) {
        this.leave(holder);
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
        this.leave(holder);
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

  private leave(holder: string): void {
    const open = (this.local.get(holder) ?? 1) - 1;
    if (open > 0) this.local.set(holder, open);
    else this.local.delete(holder);
  }

  private renew(): void {
    for (const [key, owner] of this.held) {
      this.options.store.set(key, owner, this.leaseMs).catch((err) => this.options.log.warn("stream slot lease not renewed", { key, error: err }));
    }
  }
}
