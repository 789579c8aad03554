// Leverage clusters and the liquidations they produce. Every hour, traders open perpetual positions
// at that hour's price with 10x to 100x leverage, sized by open interest and the market's leverage;
// each cluster has a liquidation price (entry ∓ 1/leverage, less maintenance margin). The heatmap
// shows the clusters still open; when a minute's low (high) trades through a long (short) cluster,
// it is liquidated in a few forced orders inside that minute. Small stray liquidations follow the
// minute's move. Clusters not hit within 7 days are closed by their owners.
//
// The walk starts 10 days back on an hour boundary: any minute at least 7 days after the walk's start
// has every cluster that can be alive in it, so its liquidations do not depend on when the process
// started. Events are served for the last 72 hours (the window_hours maximum).
import { DERIVATIVES_VENUE, PERP_SYMBOL, type Liquidation, type LiquidationHeatmap, type LiquidationTotals } from "../types.ts";
import { HOUR_MS, type MarketPath, minuteStart, REGIME_PARAMS } from "./market-path.ts";
import { STREAM, gaussian, hash32, seededRandom } from "./random.ts";

const LEVERAGE_TIERS = [
  { leverage: 10, weight: 0.4 },
  { leverage: 25, weight: 0.3 },
  { leverage: 50, weight: 0.2 },
  { leverage: 100, weight: 0.1 },
];
const MAINTENANCE_MARGIN = 0.004;
const CLUSTER_LIFE_HOURS = 168;
const WALK_BACK_HOURS = 240;
/** Events older than this are dropped (72 h window plus slack). */
const KEEP_MS = 80 * HOUR_MS;

interface Cluster {
  hour: number;
  side: "long" | "short";
  leverage: number;
  entry: number;
  liquidationPrice: number;
  notionalUsd: number;
}

export class LiquidationEngine {
  private readonly open: Cluster[] = [];
  readonly events: Liquidation[] = [];
  /** The last minute walked (minute index since SIM_EPOCH). */
  private walked = -1;

  constructor(
    private readonly path: MarketPath,
    private readonly seed: number,
    /** Open interest in USD at an instant: sizes the clusters. */
    private readonly openInterestUsd: (time: number) => number,
  ) {}

  /** Walks minute by minute up to `minute`, firing the liquidations of every minute passed. */
  advanceTo(minute: number) {
    if (this.walked < 0) this.walked = (Math.floor(minute / 60) - WALK_BACK_HOURS) * 60 - 1;
    for (let m = this.walked + 1; m <= minute; m++) {
      if (m % 60 === 0) this.openClusters(m / 60);
      this.fire(m);
    }
    this.walked = Math.max(this.walked, minute);
    const cutoff = minuteStart(minute) - KEEP_MS;
    let drop = 0;
    while (drop < this.events.length && this.events[drop].time < cutoff) drop++;
    if (drop) this.events.splice(0, drop);
  }

  /** The clusters opened at the start of an hour, at the previous hour's close. */
  private openClusters(hour: number) {
    for (let i = this.open.length - 1; i >= 0; i--) if (this.open[i].hour <= hour - CLUSTER_LIFE_HOURS) this.open.splice(i, 1);
    const time = minuteStart(hour * 60);
    const entry = this.path.price(hour * 60 - 1);
    const leverage = this.path.leverageAt(time);
    const regime = this.path.regimeAt(time);
    const random = seededRandom(hash32(this.seed, STREAM.liquidations, hour));
    const longShare = regime === "leveraged_rally" ? 0.65 : regime === "trending_up" ? 0.57 : regime === "quiet" ? 0.52 : 0.45;
    const total = this.openInterestUsd(time) * 0.006 * (0.4 + leverage) * Math.exp(0.3 * gaussian(random));
    for (const tier of LEVERAGE_TIERS) {
      for (const side of ["long", "short"] as const) {
        const share = side === "long" ? longShare : 1 - longShare;
        const distance = 1 / tier.leverage - MAINTENANCE_MARGIN;
        this.open.push({
          hour,
          side,
          leverage: tier.leverage,
          entry,
          liquidationPrice: side === "long" ? entry * (1 - distance) : entry * (1 + distance),
          notionalUsd: total * tier.weight * share,
        });
      }
    }
  }

  private fire(minute: number) {
    const bar = this.path.minuteBar(minute);
    const start = minuteStart(minute);
    const random = seededRandom(hash32(this.seed, STREAM.liquidations, 1_000_000_000 + minute));
    const fired: Array<Omit<Liquidation, "id">> = [];
    for (let i = this.open.length - 1; i >= 0; i--) {
      const c = this.open[i];
      const hit = c.side === "long" ? bar.low <= c.liquidationPrice : bar.high >= c.liquidationPrice;
      if (!hit) continue;
      this.open.splice(i, 1);
      // One cluster is liquidated in a few forced orders of uneven size.
      const parts = 1 + Math.floor(random() * 4);
      const weights = Array.from({ length: parts }, () => 0.2 + random());
      const sum = weights.reduce((a, b) => a + b, 0);
      for (const w of weights) {
        const price = c.liquidationPrice * (1 + (c.side === "long" ? -1 : 1) * 0.0004 * random());
        const valueUsd = (c.notionalUsd * w) / sum;
        fired.push({
          venue: DERIVATIVES_VENUE,
          symbol: PERP_SYMBOL,
          side: c.side === "long" ? "SELL" : "BUY",
          size: valueUsd / price,
          price,
          valueUsd,
          time: start + Math.floor(random() * 60_000),
        });
      }
    }
    // Stray liquidations of over-levered retail: more when the minute moves hard and leverage is high.
    const { sigma } = REGIME_PARAMS[this.path.regimeAt(start)];
    const move = Math.log(bar.close / bar.open);
    // A few a minute in calm markets (as on a real perpetual), many more when it moves.
    const strays = 1 + Math.floor(random() * (4 + 8 * this.path.leverageAt(start) * Math.min(4, Math.abs(move) / sigma)));
    for (let i = 0; i < strays; i++) {
      const side = random() < (move < 0 ? 0.8 : 0.2) ? "SELL" : "BUY";
      const size = Math.round(0.002 * Math.exp(2.2 * random() + 1.2 * random()) * 1e3) / 1e3 + 0.001;
      const price = side === "SELL" ? bar.low + (bar.close - bar.low) * random() : bar.close + (bar.high - bar.close) * random();
      fired.push({ venue: DERIVATIVES_VENUE, symbol: PERP_SYMBOL, side, size, price, valueUsd: size * price, time: start + Math.floor(random() * 60_000) });
    }
    fired.sort((a, b) => a.time - b.time);
    fired.forEach((event, j) =>
      this.events.push({
        ...event,
        id: `liq-${minute}-${j}`,
        size: Math.round(event.size * 1e4) / 1e4,
        price: Math.round(event.price * 10) / 10,
        valueUsd: Math.round(event.valueUsd * 100) / 100,
      }),
    );
  }

  /** The index of the first event at or after `time`. */
  private firstAtOrAfter(time: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid].time < time) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Events in [since, until), oldest first (the walk must have reached `until`). */
  between(since: number, until: number): Liquidation[] {
    const out: Liquidation[] = [];
    for (let i = this.firstAtOrAfter(since); i < this.events.length && this.events[i].time < until; i++) out.push(this.events[i]);
    return out;
  }

  /**
   * `totalLiquidations(between(since, until))` without copying the window (a day holds thousands of
   * events): the same additions in the same order, so the same floats.
   */
  totals(since: number, until: number): LiquidationTotals {
    let longUsd = 0;
    let shortUsd = 0;
    const first = this.firstAtOrAfter(since);
    let i = first;
    for (; i < this.events.length && this.events[i].time < until; i++) {
      const e = this.events[i];
      if (e.side === "SELL") longUsd += e.valueUsd;
      else shortUsd += e.valueUsd;
    }
    return { longUsd, shortUsd, count: i - first };
  }

  /** The open clusters by price band around the reference price (±12 %), in USD to be liquidated. */
  heatmap(referencePrice: number, time: number): LiquidationHeatmap {
    const bucketSizeUsd = Math.max(50, Math.round((referencePrice * 0.0025) / 50) * 50);
    const low = Math.floor((referencePrice * 0.88) / bucketSizeUsd) * bucketSizeUsd;
    const count = Math.ceil((referencePrice * 1.12 - low) / bucketSizeUsd);
    const buckets = Array.from({ length: count }, (_, i) => ({
      priceLow: low + i * bucketSizeUsd,
      priceHigh: low + (i + 1) * bucketSizeUsd,
      longLiquidationUsd: 0,
      shortLiquidationUsd: 0,
    }));
    for (const c of this.open) {
      const i = Math.floor((c.liquidationPrice - low) / bucketSizeUsd);
      if (i < 0 || i >= count) continue;
      if (c.side === "long") buckets[i].longLiquidationUsd += c.notionalUsd;
      else buckets[i].shortLiquidationUsd += c.notionalUsd;
    }
    for (const b of buckets) {
      b.longLiquidationUsd = Math.round(b.longLiquidationUsd);
      b.shortLiquidationUsd = Math.round(b.shortLiquidationUsd);
    }
    return { symbol: PERP_SYMBOL, time, referencePrice, bucketSizeUsd, buckets };
  }
}
