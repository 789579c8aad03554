// The alert bus behind /v1/alerts/stream: one per process. Producers publish (the alert producer
// below watching the market; the verdict engine its transitions), every open stream is a
// subscriber, and publishing costs one loop over the subscribers: no per-subscriber work upstream.
import { z } from "zod";
import type { Liquidation, MarketSource } from "../model/types.ts";
import { iso, isoSchema, round } from "./format.ts";

/** The alert event names (the SSE `event:` field), documented in docs/market-intelligence.md. */
export const ALERT_TYPES = ["liquidation_cascade", "funding_extreme", "whale_transfer", "wall_appeared", "verdict"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export const alertSchema = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES),
  severity: z.enum(["info", "warning", "critical"]),
  title: z.string().describe("One line for people"),
  time: isoSchema,
  data: z.record(z.string(), z.unknown()).describe("The figures behind the alert; fields by type in docs/market-intelligence.md"),
});
export type Alert = z.output<typeof alertSchema>;

export class AlertBus {
  private readonly subscribers = new Set<(alert: Alert) => void>();
  /** The last alerts, newest last: a new subscriber may be shown what just happened. */
  readonly recent: Alert[] = [];

  /** Publishes one alert to every subscriber (the verdict engine calls this on a transition). */
  publish(alert: Alert): void {
    this.recent.push(alert);
    if (this.recent.length > 50) this.recent.shift();
    for (const subscriber of this.subscribers) subscriber(alert);
  }

  subscribe(subscriber: (alert: Alert) => void): () => void {
    this.subscribers.add(subscriber);
    return () => void this.subscribers.delete(subscriber);
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }
}

/** Thresholds of the built-in alerts. */
export const ALERT_RULES = {
  /** Liquidations of one side within 60 s at or above this form a cascade. */
  cascadeUsd: 2_000_000,
  /** |funding rate| per 8 h at or above this is extreme (0.05 %). */
  fundingExtreme: 0.0005,
  /** Whale transfers at or above this many BTC. */
  whaleBtc: 1_000,
  /** Confirmed walls at or above this value. */
  wallUsd: 5_000_000,
  /** How often the producer looks at funding, whales and walls. */
  checkMs: 15_000,
} as const;

/**
 * Watches the market and publishes the built-in alerts: liquidation cascades (from the liquidation
 * feed), funding extremes (on entering the extreme band), large whale transfers and newly
 * confirmed walls. `check()` runs on a timer; tests with an injected clock call it directly.
 */
export class AlertProducer {
  private readonly window: Liquidation[] = [];
  private readonly cascadeUntil = { BUY: 0, SELL: 0 };
  private fundingExtreme: boolean | null = null;
  private whalesSince: number;
  private readonly seenWalls = new Set<string>();
  private wallsPrimed = false;
  private readonly unsubscribe: () => void;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly source: MarketSource,
    private readonly bus: AlertBus,
    options: { autoCheck?: boolean } = {},
  ) {
    this.whalesSince = source.now();
    this.unsubscribe = source.onLiquidation((event) => this.onLiquidation(event));
    if (options.autoCheck !== false) {
      this.timer = setInterval(() => void this.check().catch(() => undefined), ALERT_RULES.checkMs);
      this.timer.unref();
    }
  }

  private onLiquidation(event: Liquidation) {
    this.window.push(event);
    while (this.window.length && this.window[0].time < event.time - 60_000) this.window.shift();
    if (event.time < this.cascadeUntil[event.side]) return;
    const sideEvents = this.window.filter((e) => e.side === event.side);
    const total = sideEvents.reduce((s, e) => s + e.valueUsd, 0);
    if (total < ALERT_RULES.cascadeUsd) return;
    // One alert per side per 5 minutes: a cascade is one event, however many orders it has.
    this.cascadeUntil[event.side] = event.time + 300_000;
    const longs = event.side === "SELL";
    this.bus.publish({
      id: `cascade-${event.id}`,
      type: "liquidation_cascade",
      severity: total >= 4 * ALERT_RULES.cascadeUsd ? "critical" : "warning",
      title: `${longs ? "Long" : "Short"} liquidation cascade: $${(total / 1e6).toFixed(1)}M in 60 s near $${Math.round(event.price).toLocaleString("en-US")}`,
      time: iso(event.time),
      data: {
        side: event.side,
        liquidated: longs ? "longs" : "shorts",
        value_usd: Math.round(total),
        count: sideEvents.length,
        price: event.price,
        window_seconds: 60,
      },
    });
  }

  /** Looks at funding, whale transfers and walls once. */
  async check(): Promise<void> {
    const now = this.source.now();
    const funding = await this.source.funding();
    const extreme = Math.abs(funding.rate) >= ALERT_RULES.fundingExtreme;
    if (extreme && this.fundingExtreme === false) {
      this.bus.publish({
        id: `funding-${funding.time}`,
        type: "funding_extreme",
        severity: "warning",
        title: `Funding ${funding.rate > 0 ? "extremely positive" : "extremely negative"}: ${(funding.rate * 100).toFixed(4)} % per 8 h`,
        time: iso(now),
        data: {
          rate: funding.rate,
          rate_pct: round(funding.rate * 100, 4),
          threshold: ALERT_RULES.fundingExtreme,
          crowded: funding.rate > 0 ? "longs" : "shorts",
        },
      });
    }
    this.fundingExtreme = extreme;
    const whales = await this.source.whaleTransfers(this.whalesSince);
    if (whales.available) {
      for (const t of whales.data.filter((w) => w.amountBtc >= ALERT_RULES.whaleBtc)) {
        this.bus.publish({
          id: `whale-${t.txid}`,
          type: "whale_transfer",
          severity: t.amountBtc >= 5 * ALERT_RULES.whaleBtc ? "critical" : "info",
          title: `${Math.round(t.amountBtc).toLocaleString("en-US")} BTC ${t.kind.replace("_", " ")}: ${t.from.entity?.entity ?? "unknown"} → ${t.to.entity?.entity ?? "unknown"}`,
          time: iso(t.time),
          data: {
            txid: t.txid,
            amount_btc: t.amountBtc,
            value_usd: t.valueUsd,
            kind: t.kind,
            from: t.from.entity?.entity ?? null,
            to: t.to.entity?.entity ?? null,
          },
        });
      }
      this.whalesSince = now;
    }
    const walls = await this.source.orderBookWalls();
    for (const w of walls) {
      if (this.seenWalls.has(w.id)) continue;
      this.seenWalls.add(w.id);
      // The first look only learns what is already resting: those are not appearances.
      if (!this.wallsPrimed || w.valueUsd < ALERT_RULES.wallUsd) continue;
      this.bus.publish({
        id: `wall-${w.id}`,
        type: "wall_appeared",
        severity: "info",
        title: `${w.side === "bid" ? "Bid" : "Ask"} wall of ${Math.round(w.size)} BTC at $${w.price.toLocaleString("en-US")} on ${w.venue}`,
        time: iso(now),
        data: { wall_id: w.id, exchange: w.venue, side: w.side, price: w.price, size_btc: w.size, value_usd: Math.round(w.valueUsd) },
      });
    }
    if (this.seenWalls.size > 5_000) for (const id of [...this.seenWalls].slice(0, 2_500)) this.seenWalls.delete(id);
    this.wallsPrimed = true;
  }

  close() {
    clearInterval(this.timer);
    this.unsubscribe();
  }
}
