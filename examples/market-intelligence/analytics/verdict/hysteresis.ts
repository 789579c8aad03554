// The verdict's debounce: a published enum follows a new reading only once that reading has come
// out of `persistence` consecutive computes (spec 2 §3: about 3). A reading that returns to the
// published value, or turns into a third value, starts the count again. Pure and clock-free: the
// engine feeds it one reading per compute.

export interface Pending<T> {
  reading: T;
  /** Consecutive computes the reading has persisted so far (1 … persistence − 1). */
  computes: number;
}

export class Debounced<T> {
  private published: T | undefined;
  private pending: Pending<T> | null = null;

  constructor(readonly persistence: number) {
    if (!Number.isInteger(persistence) || persistence < 1) throw new RangeError("persistence must be a positive integer");
  }

  /** The published value (undefined before the first reading). */
  get value(): T | undefined {
    return this.published;
  }

  get candidate(): Pending<T> | null {
    return this.pending;
  }

  /**
   * Feeds one compute's reading; returns the previous value when the published value flips on this
   * compute, otherwise null. The very first reading is adopted at once: there is nothing to debounce from.
   */
  feed(reading: T): { from: T | undefined; after: number } | null {
    if (this.published === undefined) {
      this.published = reading;
      return null;
    }
    if (reading === this.published) {
      this.pending = null;
      return null;
    }
    this.pending = this.pending && this.pending.reading === reading ? { reading, computes: this.pending.computes + 1 } : { reading, computes: 1 };
    if (this.pending.computes < this.persistence) return null;
    const from = this.published;
    const after = this.pending.computes;
    this.published = reading;
    this.pending = null;
    return { from, after };
  }
}
