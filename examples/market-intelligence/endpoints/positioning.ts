// Positioning (spec 2 §2.2): derived figures, not an exchange's own long/short accounts, refreshed
// in the background every 5 minutes and served from that snapshot. A read in a later 5-minute slot
// than the snapshot (the timer not yet run, or a test clock) refreshes first, so the answer is
// always the one of the current slot.
import type { MarketSource } from "../model/types.ts";
import { iso, round } from "./format.ts";

export const POSITIONING_REFRESH_MS = 300_000;

export interface PositioningSnapshot {
  slot: number;
  refreshed_at: string;
  next_refresh_at: string;
  long_short_ratio: number;
  long_pct: number;
  short_pct: number;
  top_trader_long_short_ratio: number;
  taker_buy_sell_ratio: number;
  /** Open interest over exchange reserves (BTC/BTC), the usual estimated leverage ratio; null without reserves. */
  leverage_ratio: number | null;
  open_interest_change_24h_pct: number;
  funding_rate: number;
  crowding: "longs_crowded" | "shorts_crowded" | "balanced";
}

export class PositioningService {
  private snapshot?: PositioningSnapshot;
  private refreshing?: Promise<PositioningSnapshot>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly source: MarketSource,
    options: { background?: boolean } = {},
  ) {
    if (options.background !== false) {
      this.timer = setInterval(() => void this.refresh().catch(() => undefined), POSITIONING_REFRESH_MS);
      this.timer.unref();
    }
  }

  async current(): Promise<PositioningSnapshot> {
    const slot = Math.floor(this.source.now() / POSITIONING_REFRESH_MS);
    if (this.snapshot && this.snapshot.slot === slot) return this.snapshot;
    return this.refresh();
  }

  async refresh(): Promise<PositioningSnapshot> {
    this.refreshing ??= this.compute().finally(() => (this.refreshing = undefined));
    this.snapshot = await this.refreshing;
    return this.snapshot;
  }

  /** From funding, open interest, and the taker flow of the last hour of 1m candles on the default venue. */
  private async compute(): Promise<PositioningSnapshot> {
    const now = this.source.now();
    const slot = Math.floor(now / POSITIONING_REFRESH_MS);
    const [funding, oi, candles, reserves] = await Promise.all([
      this.source.funding(),
      this.source.openInterest(),
      this.source.candles("binance", "1m", { limit: 60 }),
      this.source.exchangeReserves(),
    ]);
    const oiDayAgo = await this.openInterestDayAgo(oi.size);
    let up = 0;
    let down = 0;
    for (const c of candles) {
      if (c.close >= c.open) up += c.volume;
      else down += c.volume;
    }
    const taker = down > 0 ? up / down : 1;
    // Positive funding means longs pay: the crowd leans long in proportion.
    const lean = Math.max(-0.25, Math.min(0.25, funding.rate * 400 + (taker - 1) * 0.05));
    const longShare = 0.5 + lean;
    const ratio = longShare / (1 - longShare);
    return {
      slot,
      refreshed_at: iso(slot * POSITIONING_REFRESH_MS),
      next_refresh_at: iso((slot + 1) * POSITIONING_REFRESH_MS),
      long_short_ratio: round(ratio, 3),
      long_pct: round(longShare * 100, 2),
      short_pct: round((1 - longShare) * 100, 2),
      top_trader_long_short_ratio: round(1 + (ratio - 1) * 0.6, 3),
      taker_buy_sell_ratio: round(taker, 3),
      leverage_ratio: reserves.available ? round(oi.size / reserves.data.reduce((sum, r) => sum + r.reserveBtc, 0), 5) : null,
      open_interest_change_24h_pct: round((oi.size / oiDayAgo - 1) * 100, 2),
      funding_rate: funding.rate,
      crowding: lean > 0.08 ? "longs_crowded" : lean < -0.08 ? "shorts_crowded" : "balanced",
    };
  }

  /** Open interest a day ago when the source can tell (the simulation can), else today's. */
  private async openInterestDayAgo(fallback: number): Promise<number> {
    const source = this.source as MarketSource & { openInterestAt?: (time: number) => { size: number } };
    return source.openInterestAt ? source.openInterestAt(this.source.now() - 86_400_000).size : fallback;
  }

  close() {
    clearInterval(this.timer);
  }
}
