// The analog search's working set, in memory: one venue's hourly closes, highs and lows and its
// hourly states (RSI, fear & greed, trend) as typed arrays, about 250 KB for a year. The search then
// scans arrays instead of moving thousands of rows out of the database per request. Before each use
// it reads the store's candle generation (one row, bumped by a trigger on every change); when that
// moved, it fingerprints the tables (count, first and last hour): new hours at the end are appended,
// anything else (retention, a gap filled, another writer) reloads the series.
import { TIMEFRAME_MS, type Venue } from "../model/types.ts";
import { TRENDS, type AnalogFingerprint, type AnalogRows, type HistoryStore, type Trend } from "./store.ts";

const HOUR = TIMEFRAME_MS["1h"];

type Fingerprint = AnalogFingerprint;

/** Columns of one series, oldest first. */
class Columns {
  length = 0;
  readonly data: Record<string, Float64Array> = {};
  constructor(readonly names: string[]) {
    for (const name of names) this.data[name] = new Float64Array(1024);
  }
  push(row: Record<string, number>) {
    if (this.length === this.data[this.names[0]].length)
      for (const name of this.names) {
        const grown = new Float64Array(this.length * 2);
        grown.set(this.data[name]);
        this.data[name] = grown;
      }
    for (const name of this.names) this.data[name][this.length] = row[name];
    this.length++;
  }
}

export interface AnalogQuery {
  trend: Trend | null;
  rsiMin?: number;
  rsiMax?: number;
  fgMin?: number;
  fgMax?: number;
  horizonHours: number;
}

export interface AnalogHour {
  time: number;
  close: number;
  rsi: number | null;
  fearGreed: number | null;
  trend: Trend;
}

export interface AnalogOutcomeRow {
  time: number;
  entryClose: number;
  exitClose: number;
  maxHigh: number;
  minLow: number;
}

export class AnalogSeries {
  private fingerprint: Fingerprint | null = null;
  private candles = new Columns(["time", "close", "high", "low"]);
  private states = new Columns(["time", "rsi", "fearGreed", "trend"]);
  /** Candle index by open time. */
  private index = new Map<number, number>();

  constructor(
    private readonly store: HistoryStore,
    readonly venue: Venue,
  ) {}

  private pending: Promise<void> | null = null;

  /** Brings the arrays up to date with the store (one small query when nothing changed); concurrent callers share one refresh. */
  refresh(): Promise<void> {
    this.pending ??= this.update().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private generation: number | null = null;

  private async update(): Promise<void> {
    // One row says whether anything changed; only then are the tables fingerprinted.
    const generation = await this.store.candleGeneration();
    if (generation === this.generation) return;
    const now = await this.store.analogFingerprint(this.venue);
    const was = this.fingerprint;
    // Same counts and ends: the change was another venue's (rows are never updated in place).
    if (was && now.candles === was.candles && now.states === was.states && now.candleLast === was.candleLast && now.stateLast === was.stateLast) {
      this.generation = generation;
      return;
    }
    const appendOnly = was !== null && now.candleFirst === was.candleFirst && now.stateFirst === was.stateFirst;
    const candlesAfter = appendOnly ? was.candleLast : null;
    const statesAfter = appendOnly ? was.stateLast : null;
    const rows = await this.store.analogRows(this.venue, candlesAfter, statesAfter);
    const consistent = appendOnly && this.candles.length + rows.candles.length === now.candles && this.states.length + rows.states.length === now.states;
    if (!consistent && appendOnly) {
      // Rows changed somewhere in the middle: start over from the whole series.
      await this.reload(now);
      this.generation = generation;
      return;
    }
    if (!appendOnly) await this.reload(now, rows);
    else {
      this.append(rows);
      this.fingerprint = now;
    }
    this.generation = generation;
  }

  private async reload(now: Fingerprint, rows?: AnalogRows): Promise<void> {
    this.candles = new Columns(["time", "close", "high", "low"]);
    this.states = new Columns(["time", "rsi", "fearGreed", "trend"]);
    this.index.clear();
    this.append(rows ?? (await this.store.analogRows(this.venue, null, null)));
    this.fingerprint = now;
  }

  private append(rows: AnalogRows) {
    for (const c of rows.candles) {
      this.index.set(c.time, this.candles.length);
      this.candles.push(c);
    }
    for (const s of rows.states) this.states.push({ time: s.time, rsi: s.rsi ?? NaN, fearGreed: s.fearGreed ?? NaN, trend: TRENDS.indexOf(s.trend) });
  }

  /** The newest hourly candle's open time, or null. */
  get latestCandle(): number | null {
    return this.candles.length ? this.candles.data.time[this.candles.length - 1] : null;
  }

  /** Hours whose state matches, oldest first, among those whose horizon has passed. */
  matchingHours(query: AnalogQuery): AnalogHour[] {
    const latest = this.latestCandle;
    if (latest === null) return [];
    const last = latest - query.horizonHours * HOUR;
    const { time, rsi, fearGreed, trend } = this.states.data;
    const want = query.trend === null ? -1 : TRENDS.indexOf(query.trend);
    const out: AnalogHour[] = [];
    for (let i = 0; i < this.states.length && time[i] <= last; i++) {
      if (want >= 0 && trend[i] !== want) continue;
      // A bound on a reading excludes hours without that reading (NaN fails every comparison).
      if (query.rsiMin !== undefined && !(rsi[i] >= query.rsiMin)) continue;
      if (query.rsiMax !== undefined && !(rsi[i] <= query.rsiMax)) continue;
      if (query.fgMin !== undefined && !(fearGreed[i] >= query.fgMin)) continue;
      if (query.fgMax !== undefined && !(fearGreed[i] <= query.fgMax)) continue;
      const at = this.index.get(time[i]);
      if (at === undefined) continue;
      out.push({
        time: time[i],
        close: this.candles.data.close[at],
        rsi: Number.isNaN(rsi[i]) ? null : rsi[i],
        fearGreed: Number.isNaN(fearGreed[i]) ? null : fearGreed[i],
        trend: TRENDS[trend[i]],
      });
    }
    return out;
  }

  /** What followed the hour over the horizon, or null when a candle of it is missing. */
  outcome(time: number, horizonHours: number): AnalogOutcomeRow | null {
    const at = this.index.get(time);
    if (at === undefined) return null;
    const end = at + horizonHours;
    const { time: times, close, high, low } = this.candles.data;
    // Contiguous hours only: the candle `horizonHours` places on must open exactly that many hours later.
    if (end >= this.candles.length || times[end] !== time + horizonHours * HOUR) return null;
    let maxHigh = -Infinity;
    let minLow = Infinity;
    for (let i = at + 1; i <= end; i++) {
      if (high[i] > maxHigh) maxHigh = high[i];
      if (low[i] < minLow) minLow = low[i];
    }
    return { time, entryClose: close[at], exitClose: close[end], maxHigh, minLow };
  }
}
