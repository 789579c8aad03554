// Hash-based randomness: every draw of the simulation is a pure function of (seed, what, when), so
// the same seed and the same instant give the same market however long the process has run, and a
// minute, an hour or a wall can be computed without stepping through the ones before it.

/** A 32-bit hash of integers (murmur3's finalizer over a running mix): stable, fast, well spread. */
export function hash32(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    // Split values beyond 32 bits (minute and hour indices) into two words.
    const lo = part >>> 0;
    const hi = Math.floor(part / 4294967296) >>> 0;
    for (const word of [lo, hi]) {
      h = Math.imul(h ^ word, 0x85ebca6b);
      h = (h ^ (h >>> 13)) >>> 0;
      h = Math.imul(h, 0xc2b2ae35);
      h = (h ^ (h >>> 16)) >>> 0;
    }
  }
  return h >>> 0;
}

/** A uniform number in [0, 1) for (seed, parts...). */
export function unit(...parts: number[]): number {
  return hash32(...parts) / 4294967296;
}

/** mulberry32, for the draws of one block, hour or minute. */
export { seededRandom } from "../../../shared/seeded-random.ts";

/** A standard normal draw (Box–Muller) from a uniform generator. */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A seed from MARKET_SEED: a number as is, any other text hashed. */
export function seedFrom(value: string | number | undefined, fallback = 21): number {
  if (value === undefined || value === "") return fallback;
  const asNumber = Number(value);
  if (Number.isInteger(asNumber)) return asNumber >>> 0;
  let h = 0;
  for (const char of String(value)) h = (Math.imul(h, 31) + char.charCodeAt(0)) >>> 0;
  return h;
}

/** Purposes of the draws, so two draws of one period never share a stream. */
export const STREAM = {
  regime: 1,
  anchor: 2,
  minutes: 3,
  venue: 4,
  walls: 5,
  book: 6,
  liquidations: 7,
  whales: 8,
  mempool: 9,
  macro: 10,
  stablecoins: 11,
  sentiment: 12,
  ecosystem: 13,
  options: 14,
  flows: 15,
} as const;
