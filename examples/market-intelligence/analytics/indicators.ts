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
import { TIMEFRAME_MS, type Candle } from "../model/types";

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
  const rsi = new RSI(14);
  const macd = new MACD(new EMA(12), new EMA(26), new EMA(9));
  const bollinger = new BollingerBands(20, 2);
  const atr = new ATR(14);
  const adx = new ADX(14);
  const ema20 = new EMA(20);
  const ema50 = new EMA(50);
  const ema200 = new EMA(200);
  const intraday = candles.length > 1 && candles[1].time - candles[0].time < TIMEFRAME_MS["1d"];
  let vwap = new VWAP();
  let session = utcDay(candles[0].time);

  return candles.map((candle) => {
    if (intraday && utcDay(candle.time) !== session) {
      session = utcDay(candle.time);
      vwap = new VWAP();
    }
    const hlc = { high: candle.high, low: candle.low, close: candle.close };
    rsi.add(candle.close);
    const macdValue = macd.add(candle.close);
    const bands = bollinger.add(candle.close);
    atr.add(hlc);
    adx.add(hlc);
    ema20.add(candle.close);
    ema50.add(candle.close);
    ema200.add(candle.close);
    vwap.add({ ...hlc, volume: candle.volume });
    return {
      time: candle.time,
      close: candle.close,
      rsi14: stable(rsi),
      macd: macdValue && macd.signal.isStable ? { macd: macdValue.macd, signal: macdValue.signal, histogram: macdValue.histogram } : null,
      bollinger: bollinger.isStable && bands ? { upper: bands.upper, middle: bands.middle, lower: bands.lower } : null,
      atr14: stable(atr),
      ema20: stable(ema20),
      ema50: stable(ema50),
      ema200: stable(ema200),
      vwap: vwap.getResult(),
      adx14: stable(adx),
      plusDi14: adx.isStable && typeof adx.pdi === "number" ? adx.pdi * 100 : null,
      minusDi14: adx.isStable && typeof adx.mdi === "number" ? adx.mdi * 100 : null,
    };
  });
}

function stable(indicator: { isStable: boolean; getResult(): number | null }): number | null {
  return indicator.isStable ? indicator.getResult() : null;
}

function utcDay(time: number): number {
  return Math.floor(time / TIMEFRAME_MS["1d"]);
}
