// The history recorder. Its first tick backfills a year of candles for the five venues and three
// timeframes from the MarketSource, in batches of one INSERT each, oldest first; every later tick
// fetches from the newest stored candle on, so a tick after a crash resumes where the last committed
// batch ended and a repeated tick inserts nothing (the primary keys refuse duplicates anyway). It
// then derives the hourly analog states, snapshots the liquidation heatmap, the confirmed order-book
// walls and the other sources on their intervals, and prunes by the retention policy once an hour.
//
// The origin's scheduler drives it: `start()` ticks now and then every minute, or it calls `tick(now)`
// itself. Ticks never overlap: a tick asked for while one runs is skipped (answers null).
import { DEFAULT_VENUE, TIMEFRAME_MS, VENUES, type Availability, type Candle, type MarketSource, type Venue } from "../model/types.ts";
import { MIN_INDICATOR_CANDLES, indicatorSeries } from "../analytics/indicators.ts";
import { snakeCaseKeys } from "./snake-case.ts";
import {
  DEFAULT_RETENTION,
  HISTORY_TIMEFRAMES,
  SPOT_SYMBOL,
  type HistoryStore,
  type HistoryTimeframe,
  type HourlyState,
  type RetentionPolicy,
  type Trend,
} from "./store.ts";

const HOUR = TIMEFRAME_MS["1h"];
const DAY = TIMEFRAME_MS["1d"];
const MINUTE = 60_000;

/** The source snapshots the recorder takes, by the name `/v1/history/snapshots?source=` uses. */
export const SNAPSHOT_SOURCES = ["derivatives", "options", "cme_basis", "onchain", "mempool", "macro", "stablecoins", "sentiment"] as const;
export type SnapshotSource = (typeof SNAPSHOT_SOURCES)[number];

/** RSI(14) and the trend EMAs (20, 50) at each candle's close; null while an indicator warms up. */
export type HourlyIndicators = (candles: Candle[]) => Array<{ rsi: number | null; emaFast: number | null; emaSlow: number | null }>;

/** The analytics' indicator series (trading-signals), read for the states; too short a series has none yet. */
export const hourlyIndicators: HourlyIndicators = (candles) =>
  candles.length < MIN_INDICATOR_CANDLES
    ? candles.map(() => ({ rsi: null, emaFast: null, emaSlow: null }))
    : indicatorSeries(candles).map((point) => ({ rsi: point.rsi14, emaFast: point.ema20, emaSlow: point.ema50 }));

/** The 1h candles before the first new state that the indicators warm up on (EMA(50) settles well within). */
const WARMUP_CANDLES = 200;
/** |EMA20 / EMA50 − 1| below this is `neutral`. */
export const TREND_BAND = 0.0025;

/** The analog trend of one hour: EMA(20) above EMA(50) by more than the band is bullish, below bearish. */
export function classifyTrend(emaFast: number | null, emaSlow: number | null): Trend {
  if (emaFast === null || emaSlow === null || emaSlow === 0) return "neutral";
  const spread = emaFast / emaSlow - 1;
  return spread > TREND_BAND ? "bullish" : spread < -TREND_BAND ? "bearish" : "neutral";
}

export interface RecorderSchedule {
  /** Heatmap snapshots: every 15 minutes. */
  heatmapMs: number;
  /** Wall snapshots: every 5 minutes (walls appear and get pulled within minutes). */
  wallsMs: number;
  /** Source snapshots: every 15 minutes. */
  sourcesMs: number;
  /** Retention: once an hour. */
  pruneMs: number;
}

export const DEFAULT_SCHEDULE: RecorderSchedule = { heatmapMs: 15 * MINUTE, wallsMs: 5 * MINUTE, sourcesMs: 15 * MINUTE, pruneMs: HOUR };

export interface HistoryRecorderOptions {
  store: HistoryStore;
  source: MarketSource;
  /** RSI and trend EMAs for the hourly states (default: the analytics' series). */
  indicators?: HourlyIndicators;
  /** The recorder's clock (default the source's). */
  clock?: () => number;
  /** How far back the first start fills (days, default 365). */
  backfillDays?: number;
  /** Candles per source call and per INSERT (default 1000). */
  batchSize?: number;
  schedule?: Partial<RecorderSchedule>;
  retention?: RetentionPolicy;
  log?: (line: Record<string, unknown>) => void;
}

export interface TickReport {
  at: number;
  /** New candles per `venue:timeframe`. */
  candles: Record<string, number>;
  states: number;
  heatmap: boolean;
  walls: boolean;
  sources: number;
  pruned: Record<string, number> | null;
  /** What failed this tick (the next tick retries it). */
  errors: string[];
  millis: number;
}

export class HistoryRecorder {
  private readonly store: HistoryStore;
  private readonly source: MarketSource;
  private readonly clock: () => number;
  private readonly schedule: RecorderSchedule;
  private running: Promise<TickReport> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private last: { heatmap: number | null; walls: number | null; sources: number | null; prune: number | null } | null = null;

  constructor(private readonly options: HistoryRecorderOptions) {
    this.store = options.store;
    this.source = options.source;
    this.clock = options.clock ?? (() => options.source.now());
    this.schedule = { ...DEFAULT_SCHEDULE, ...options.schedule };
  }

  /** True while a tick runs. */
  get busy(): boolean {
    return this.running !== null;
  }

  /** One round of recording at `now`; null (and nothing done) when a tick is already running. */
  tick(now: number = this.clock()): Promise<TickReport> | null {
    if (this.running) return null;
    const run = this.record(now).finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  /** Ticks now (the backfill, on a fresh store) and then every `intervalMs`; errors are logged, never thrown. */
  start(intervalMs = MINUTE): void {
    if (this.timer) return;
    const fire = () => {
      const run = this.tick();
      run?.then(
        // Quiet when routine: a line for failures and for long ticks (the backfill, a catch-up).
        (report) => {
          if (report.errors.length || report.millis >= 1000)
            this.options.log?.({ level: report.errors.length ? "warn" : "info", msg: "history tick", ...report });
        },
        (err: unknown) => this.options.log?.({ level: "error", msg: "history tick failed", error: err instanceof Error ? err.message : String(err) }),
      );
    };
    fire();
    this.timer = setInterval(fire, intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and waits for a running tick to end. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => {});
  }

  private async record(now: number): Promise<TickReport> {
    const started = performance.now();
    const report: TickReport = { at: now, candles: {}, states: 0, heatmap: false, walls: false, sources: 0, pruned: null, errors: [], millis: 0 };
    this.last ??= { ...(await this.store.latestSnapshotTimes()), prune: null };
    for (const venue of VENUES)
      for (const timeframe of HISTORY_TIMEFRAMES) {
        try {
          report.candles[`${venue}:${timeframe}`] = await this.recordCandles(venue, timeframe, now);
        } catch (err) {
          report.errors.push(`candles ${venue} ${timeframe}: ${message(err)}`);
        }
      }
    try {
      report.states = await this.recordStates(DEFAULT_VENUE, now);
    } catch (err) {
      report.errors.push(`states: ${message(err)}`);
    }
    const due = (last: number | null, every: number) => last === null || now - last >= every;
    if (due(this.last.heatmap, this.schedule.heatmapMs)) {
      try {
        const heatmap = await this.source.liquidationHeatmap();
        report.heatmap = await this.store.insertHeatmap({
          symbol: heatmap.symbol,
          time: now,
          referencePrice: heatmap.referencePrice,
          bucketSizeUsd: heatmap.bucketSizeUsd,
          buckets: snakeCaseKeys(heatmap.buckets) as unknown[],
        });
        this.last.heatmap = now;
      } catch (err) {
        report.errors.push(`heatmap: ${message(err)}`);
      }
    }
    if (due(this.last.walls, this.schedule.wallsMs)) {
      try {
        const walls = await this.source.orderBookWalls({ includeCandidates: false });
        report.walls = await this.store.insertWallSnapshot({ symbol: SPOT_SYMBOL, time: now, walls: snakeCaseKeys(walls) as unknown[] });
        this.last.walls = now;
      } catch (err) {
        report.errors.push(`walls: ${message(err)}`);
      }
    }
    if (due(this.last.sources, this.schedule.sourcesMs)) {
      for (const name of SNAPSHOT_SOURCES) {
        const reading = await this.readSource(name);
        if (await this.store.insertSourceSnapshot({ source: name, time: now, ...reading })) report.sources++;
      }
      this.last.sources = now;
    }
    // After a backfill (or any large catch-up), retention and VACUUM run at once: fresh statistics
    // and visibility for the queries that follow.
    const caughtUp = Object.values(report.candles).reduce((a, b) => a + b, 0) > 1000;
    if (caughtUp || due(this.last.prune, this.schedule.pruneMs)) {
      try {
        report.pruned = await this.store.prune(now, this.options.retention ?? DEFAULT_RETENTION);
        await this.store.vacuum();
        this.last.prune = now;
      } catch (err) {
        report.errors.push(`retention: ${message(err)}`);
      }
    }
    report.millis = Math.round(performance.now() - started);
    return report;
  }

  /** Closed candles from the newest stored one (or the backfill's start) up to now, batch by batch. */
  private async recordCandles(venue: Venue, timeframe: HistoryTimeframe, now: number): Promise<number> {
    const size = TIMEFRAME_MS[timeframe];
    const closedEnd = Math.floor(now / size) * size;
    const retained = (this.options.retention ?? DEFAULT_RETENTION).candles[timeframe];
    const earliest = Math.ceil((now - Math.min(this.options.backfillDays ?? 365, retained) * DAY) / size) * size;
    const latest = await this.store.latestCandleTime(venue, timeframe);
    let from = latest === null ? earliest : Math.max(latest + size, earliest);
    const batch = (this.options.batchSize ?? 1000) * size;
    let inserted = 0;
    while (from < closedEnd) {
      const to = Math.min(closedEnd, from + batch);
      const candles = (await this.source.candles(venue, timeframe, { start: from, end: to })).filter((c) => c.time >= from && c.time < to);
      inserted += await this.store.insertCandles(venue, timeframe, candles);
      from = to;
    }
    return inserted;
  }

  /** The hourly states for the 1h candles that have none yet. */
  private async recordStates(venue: Venue, now: number): Promise<number> {
    const latestCandle = await this.store.latestCandleTime(venue, "1h");
    if (latestCandle === null) return 0;
    const latestState = await this.store.latestStateTime(venue);
    if (latestState !== null && latestState >= latestCandle) return 0;
    const firstNew = latestState === null ? -Infinity : latestState + HOUR;
    const loadFrom = latestState === null ? undefined : firstNew - WARMUP_CANDLES * HOUR;
    const page = await this.store.candles(venue, "1h", { start: loadFrom, end: latestCandle + HOUR, limit: 1_000_000, offset: 0 });
    const candles = page.items.reverse();
    if (candles.length === 0) return 0;
    const readings = (this.options.indicators ?? hourlyIndicators)(candles);
    const firstDay = Math.floor(Math.max(candles[0].time, firstNew) / DAY) * DAY;
    const fearGreed = await this.fearGreedByDay(Math.ceil((now - firstDay) / DAY) + 1);
    const regime = this.source.regime();
    const states: HourlyState[] = [];
    candles.forEach((candle, i) => {
      if (candle.time < firstNew) return;
      const reading = readings[i];
      states.push({
        venue,
        time: candle.time,
        close: candle.close,
        rsi: reading?.rsi ?? null,
        fearGreed: fearGreed.get(Math.floor(candle.time / DAY) * DAY) ?? null,
        trend: classifyTrend(reading?.emaFast ?? null, reading?.emaSlow ?? null),
        // The source knows only its current regime: the newest hour carries it, backfilled hours none.
        simRegime: regime !== null && candle.time === latestCandle && now - candle.time <= 2 * HOUR ? regime : null,
      });
    });
    let inserted = 0;
    for (let i = 0; i < states.length; i += 1000) inserted += await this.store.insertStates(states.slice(i, i + 1000));
    return inserted;
  }

  /** Fear & greed by UTC day start; empty when the index is unavailable. */
  private async fearGreedByDay(days: number): Promise<Map<number, number>> {
    const answer = await this.source.fearGreed(Math.max(1, days)).catch(() => null);
    const byDay = new Map<number, number>();
    if (answer?.available) for (const point of answer.data) byDay.set(Math.floor(point.time / DAY) * DAY, Math.round(point.value));
    return byDay;
  }

  /** One source's reading in the API's shape; a failure or throttling is stored as unavailable with its reason. */
  private async readSource(name: SnapshotSource): Promise<{ available: boolean; payload: unknown }> {
    const from = (answer: Availability<unknown>) =>
      answer.available ? { available: true, payload: snakeCaseKeys(answer.data) } : { available: false, payload: { reason: answer.reason } };
    try {
      switch (name) {
        case "derivatives": {
          const [funding, openInterest] = await Promise.all([this.source.funding(), this.source.openInterest()]);
          return { available: true, payload: snakeCaseKeys({ funding, openInterest }) };
        }
        case "options":
          return from(await this.source.options());
        case "cme_basis":
          return from(await this.source.cmeBasis());
        case "onchain": {
          const [valuation, reserves] = await Promise.all([this.source.valuation(), this.source.exchangeReserves()]);
          if (!valuation.available && !reserves.available) return { available: false, payload: { reason: valuation.reason } };
          return {
            available: true,
            payload: {
              valuation: valuation.available ? snakeCaseKeys(valuation.data) : { unavailable: valuation.reason },
              exchange_reserves: reserves.available ? snakeCaseKeys(reserves.data) : { unavailable: reserves.reason },
            },
          };
        }
        case "mempool":
          return from(await this.source.mempool());
        case "macro": {
          const series = await this.source.macro(1);
          // The newest point of each series: the snapshot is a reading, not a copy of the series.
          return from(
            series.available
              ? { available: true, data: Object.fromEntries(Object.entries(series.data).map(([k, points]) => [k, points.at(-1) ?? null])) }
              : series,
          );
        }
        case "stablecoins":
          return from(await this.source.stablecoins());
        case "sentiment": {
          const fg = await this.source.fearGreed(1);
          return from(fg.available ? { available: true, data: { fearGreed: fg.data.at(-1) ?? null } } : fg);
        }
      }
    } catch (err) {
      return { available: false, payload: { reason: message(err) } };
    }
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
