// The technical indicators every market helper reads (the technical endpoints, the history store's
// /v1/history/indicators, the verdict's spot evidence), computed by `trading-signals` so no indicator
// math is written here: RSI(14) with Wilder's smoothing, MACD(12, 26, 9) on EMAs, Bollinger(20, 2σ,
// population deviation), ATR(14) with Wilder's smoothing, EMA 20/50/200, VWAP and ADX(14).
//
// Warm-up: each indicator is null until the library calls it stable: RSI from the 15th candle, MACD
// with its signal from the 34th, Bollinger from the 20th, ATR from the 14th (the library takes the
// first candle's true range as its high − low), EMA n from the n-th, ADX from the 27th, VWAP from the
// first candle with volume. The library seeds an EMA with the first price rather than
// an SMA, so MACD and the EMAs converge to the textbook values a few periods after their warm-up.
//
// VWAP is a session VWAP: for intraday candles it restarts at each UTC midnight (the crypto market's
// conventional session), for daily candles it is anchored at the first candle of the series.
import { ADX, ATR, BollingerBands, EMA, MACD, RSI, VWAP } from "trading-signals";
import { TIMEFRAME_MS, type Candle } from "../model/types.ts";

/** Spec 2 §4.2 rule 5: fewer candles than this is an error answer, not a series of nulls. */
export const MIN_INDICATOR_CANDLES = 14;

export interface IndicatorPoint {
  time: number;
  close: number;
  rsi14: number | null;
  macd: { macd: number; signal: number; histogram: number } | null;
  bollinger: { upper: number; middle: number; lower: number } | null;
  atr14: number | null;
  ema20: number | null;
  ema50: number | null;
  ema200: number | null;
  vwap: number | null;
}

/** An indicator point with the directional readings the trend endpoint reads: ADX(14), +DI and −DI, all 0–100. */
export interface TrendPoint extends IndicatorPoint {
  adx14: number | null;
  plusDi14: number | null;
  minusDi14: number | null;
}

/** Thrown when a series is too short to compute indicators on (spec 2 §7 rule 2: an error answer). */
export class InsufficientCandlesError extends Error {
  readonly candles: number;
  constructor(candles: number) {
    super(`Indicators need at least ${MIN_INDICATOR_CANDLES} candles; the requested window holds ${candles}`);
    this.name = "InsufficientCandlesError";
    this.candles = candles;
  }
}

/** One point per candle (oldest first), null until each indicator has warmed up. Throws InsufficientCandlesError below MIN_INDICATOR_CANDLES. */
export function indicatorSeries(candles: Candle[]): IndicatorPoint[] {
  return trendSeries(candles).map(({ adx14: _adx, plusDi14: _plus, minusDi14: _minus, ...point }) => point);
}

/** `indicatorSeries` plus ADX(14) and the directional indices, for trend classification. */
export function trendSeries(candles: Candle[]): TrendPoint[] {
  if (candles.length < MIN_INDICATOR_CANDLES) throw new InsufficientCandlesError(candles.length);
  const stepper = new IndicatorStepper(isIntraday(candles));
  return candles.map((candle) => stepper.add(candle));
}

/**
 * The indicators of one series, fed a candle at a time. `replaceLast` swaps the newest candle for a
 * newer reading of the same candle (the forming candle whose close moved) using the library's own
 * replace, so a request costs one update instead of the whole series.
 */
class IndicatorStepper {
  private readonly rsi = new RSI(14);
  private readonly macd = new MACD(new EMA(12), new EMA(26), new EMA(9));
  private readonly bollinger = new BollingerBands(20, 2);
  private readonly atr = new ATR(14);
  private readonly adx = new ADX(14);
  private readonly ema20 = new EMA(20);
  private readonly ema50 = new EMA(50);
  private readonly ema200 = new EMA(200);
  private vwap = new VWAP();
  private session: number | null = null;
  private inputs = 0;
  private macdResults = 0;
  private lastHadMacd = false;

  constructor(private readonly intraday: boolean) {}

  add(candle: Candle): TrendPoint {
    if (this.session === null || (this.intraday && utcDay(candle.time) !== this.session)) {
      this.session = utcDay(candle.time);
      this.vwap = new VWAP();
    }
    this.inputs += 1;
    return this.update(candle, false);
  }

  replaceLast(candle: Candle): TrendPoint {
    return this.update(candle, true);
  }

  private update(candle: Candle, replace: boolean): TrendPoint {
    const hlc = { high: candle.high, low: candle.low, close: candle.close };
    this.rsi.update(candle.close, replace);
    const macdValue = this.macd.update(candle.close, replace);
    if (replace && this.lastHadMacd) this.macdResults -= 1;
    this.lastHadMacd = macdValue !== null;
    if (macdValue) this.macdResults += 1;
    const bands = this.bollinger.update(candle.close, replace);
    this.atr.update(hlc, replace);
    this.adx.update(hlc, replace);
    const ema20 = this.ema20.update(candle.close, replace);
    const ema50 = this.ema50.update(candle.close, replace);
    const ema200 = this.ema200.update(candle.close, replace);
    this.vwap.update({ ...hlc, volume: candle.volume }, replace);
    const adx = this.adx.getResult();
    return {
      time: candle.time,
      close: candle.close,
      rsi14: this.rsi.getResult(),
      // The signal line is an EMA(9) of MACD values: stable once it has 9 of them.
      macd:
        macdValue && this.macdResults >= this.macd.signal.interval ? { macd: macdValue.macd, signal: macdValue.signal, histogram: macdValue.histogram } : null,
      bollinger: bands ? { upper: bands.upper, middle: bands.middle, lower: bands.lower } : null,
      atr14: this.atr.getResult(),
      // An EMA answers from its first input and is stable after `interval` inputs. Counting them
      // here spares EMA.isStable, which throws (and catches) an error on every call before then.
      ema20: this.inputs >= this.ema20.interval ? ema20 : null,
      ema50: this.inputs >= this.ema50.interval ? ema50 : null,
      ema200: this.inputs >= this.ema200.interval ? ema200 : null,
      vwap: this.vwap.getResult(),
      adx14: adx,
      plusDi14: adx !== null && typeof this.adx.pdi === "number" ? this.adx.pdi * 100 : null,
      minusDi14: adx !== null && typeof this.adx.mdi === "number" ? this.adx.mdi * 100 : null,
    };
  }
}

/**
 * Keeps, per slot (say venue and timeframe), the indicators over a series' closed candles, so a
 * repeated request replaces only the forming candle instead of recomputing ~250 candles (about
 * 10 ms). The closed part is recognised by its length, first and last candle; anything else
 * recomputes the series. Results equal `trendSeries` (indicators.test.ts holds it).
 */
export class IndicatorCache {
  private readonly slots = new Map<string, { key: string; closed: TrendPoint[]; stepper: IndicatorStepper; lastTime: number }>();

  constructor(private readonly maxSlots = 64) {}

  series(slot: string, candles: Candle[]): TrendPoint[] {
    if (candles.length < MIN_INDICATOR_CANDLES) throw new InsufficientCandlesError(candles.length);
    const key = closedKey(candles);
    const last = candles[candles.length - 1];
    const entry = this.slots.get(slot);
    if (entry && entry.key === key && entry.lastTime === last.time) return [...entry.closed, entry.stepper.replaceLast(last)];
    const stepper = new IndicatorStepper(isIntraday(candles));
    const closed = candles.slice(0, -1).map((candle) => stepper.add(candle));
    const point = stepper.add(last);
    this.slots.delete(slot);
    this.slots.set(slot, { key, closed, stepper, lastTime: last.time });
    if (this.slots.size > this.maxSlots) this.slots.delete(this.slots.keys().next().value!);
    return [...closed, point];
  }
}

function closedKey(candles: Candle[]): string {
  const first = candles[0];
  const lastClosed = candles[candles.length - 2];
  return `${candles.length}|${first.time}|${first.close}|${lastClosed.time}|${lastClosed.open}|${lastClosed.high}|${lastClosed.low}|${lastClosed.close}|${lastClosed.volume}`;
}

function isIntraday(candles: Candle[]): boolean {
  return candles.length > 1 && candles[1].time - candles[0].time < TIMEFRAME_MS["1d"];
}

function utcDay(time: number): number {
  return Math.floor(time / TIMEFRAME_MS["1d"]);
}
