// Candle windows shared by the venue adapters: how many candles a query wants, the [start, end)
// filter and the newest-`limit` cut (oldest first out), and the 4h aggregation for a venue whose
// API has no 4-hour granularity (Coinbase Exchange), from 1h candles aligned to UTC.
import { TIMEFRAME_MS, type Candle, type CandleQuery, type Timeframe } from "../types.ts";

/** Candles returned when a query names neither `limit` nor `start`. */
export const DEFAULT_CANDLE_LIMIT = 300;

/** How many candles the adapter should fetch (the newest ending before `end`), capped by the venue's per-request maximum. */
export function wantedCandles(timeframe: Timeframe, query: CandleQuery, now: number, venueMax: number): number {
  const span = TIMEFRAME_MS[timeframe];
  let wanted = query.limit ?? DEFAULT_CANDLE_LIMIT;
  if (query.start !== undefined && query.limit === undefined) wanted = Math.ceil(((query.end ?? now + span) - query.start) / span);
  return Math.max(1, Math.min(venueMax, wanted));
}

/** Sorts oldest first, drops duplicates, keeps [start, end) and the newest `limit`. */
export function windowCandles(candles: Candle[], query: CandleQuery): Candle[] {
  const byTime = new Map<number, Candle>();
  for (const candle of candles) byTime.set(candle.time, candle);
  let out = [...byTime.values()].sort((a, b) => a.time - b.time);
  if (query.start !== undefined) out = out.filter((candle) => candle.time >= query.start!);
  if (query.end !== undefined) out = out.filter((candle) => candle.time < query.end!);
  if (query.limit !== undefined && out.length > query.limit) out = out.slice(out.length - query.limit);
  return out;
}

/**
 * Aggregates oldest-first candles into `spanMs` buckets aligned to the epoch (UTC): open of the
 * first, close of the last, extreme high/low, summed volume. A leading bucket missing its first
 * member is dropped (it would be a truncated candle); the trailing one is the current, open candle.
 */
export function aggregateCandles(candles: Candle[], spanMs: number): Candle[] {
  const out: Candle[] = [];
  for (const candle of candles) {
    const bucket = Math.floor(candle.time / spanMs) * spanMs;
    const last = out[out.length - 1];
    if (last && last.time === bucket) {
      last.high = Math.max(last.high, candle.high);
      last.low = Math.min(last.low, candle.low);
      last.close = candle.close;
      last.volume += candle.volume;
    } else if (candle.time === bucket) {
      out.push({ ...candle, time: bucket });
    }
  }
  return out;
}
