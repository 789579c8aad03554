// The analog search's arithmetic (pure): which matching hours count as separate analogs, what followed
// each over the horizon, and the aggregates over them. The analog series finds the hours and the candles.
import type { AnalogOutcomeRow } from "./analog-series.ts";

/** At most this many analogs (the newest) feed the aggregates: a bounded query however loose the filters. */
export const MAX_ANALOG_SAMPLE = 500;

/**
 * Non-overlapping matches, newest first: walking forward from the oldest matching hour, an hour is
 * taken when it starts at or after the end of the last one taken's horizon, so a streak of matching
 * hours counts once, from its first hour, and no two analogs share an hour of what followed them.
 * Input oldest first (as the store answers); output newest first, the newest `max` of them.
 */
export function pickNonOverlapping(timesOldestFirst: number[], horizonMs: number, max = MAX_ANALOG_SAMPLE): number[] {
  const picked: number[] = [];
  let free = -Infinity;
  for (const time of timesOldestFirst) {
    if (time < free) continue;
    picked.push(time);
    free = time + horizonMs;
  }
  return picked.slice(-max).reverse();
}

export interface AnalogMatch {
  time: number;
  entryClose: number;
  exitClose: number;
  /** Close at the horizon vs the close of the matching hour, percent. */
  returnPct: number;
  /** Lowest low over the horizon vs the entry close, percent (≤ 0). */
  maxDrawdownPct: number;
  /** Highest high over the horizon vs the entry close, percent (≥ 0). */
  maxRunupPct: number;
}

const pct = (to: number, from: number) => (to / from - 1) * 100;
const round = (value: number, digits = 4) => Number(value.toFixed(digits));

/** One analog's outcome in percent of its entry close. */
export function analogMatch(outcome: AnalogOutcomeRow): AnalogMatch {
  return {
    time: outcome.time,
    entryClose: outcome.entryClose,
    exitClose: outcome.exitClose,
    returnPct: round(pct(outcome.exitClose, outcome.entryClose)),
    maxDrawdownPct: round(Math.min(0, pct(outcome.minLow, outcome.entryClose))),
    maxRunupPct: round(Math.max(0, pct(outcome.maxHigh, outcome.entryClose))),
  };
}

export interface AnalogAggregates {
  count: number;
  medianReturnPct: number | null;
  meanReturnPct: number | null;
  /** Share of analogs whose return was positive, 0–1. */
  hitRate: number | null;
  bestReturnPct: number | null;
  worstReturnPct: number | null;
  medianMaxDrawdownPct: number | null;
  medianMaxRunupPct: number | null;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function aggregateAnalogs(matches: AnalogMatch[]): AnalogAggregates {
  const returns = matches.map((m) => m.returnPct);
  const maybe = (value: number | null) => (value === null ? null : round(value));
  return {
    count: matches.length,
    medianReturnPct: maybe(median(returns)),
    meanReturnPct: matches.length ? round(returns.reduce((a, b) => a + b, 0) / matches.length) : null,
    hitRate: matches.length ? round(returns.filter((r) => r > 0).length / matches.length) : null,
    bestReturnPct: matches.length ? Math.max(...returns) : null,
    worstReturnPct: matches.length ? Math.min(...returns) : null,
    medianMaxDrawdownPct: maybe(median(matches.map((m) => m.maxDrawdownPct))),
    medianMaxRunupPct: maybe(median(matches.map((m) => m.maxRunupPct))),
  };
}
