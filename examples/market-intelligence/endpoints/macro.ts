// GET /v1/macro/correlations and /v1/macro/stablecoins: bitcoin against the dollar, equities, gold
// and rates (Pearson correlation of daily log returns, weekdays only: the other markets close at
// weekends), and the stablecoin supply that funds crypto buying.
import { z } from "zod";
import { jsonEndpoint } from "../endpoint.ts";
import type { MacroPoint } from "../model/types.ts";
import { availabilityBody, availabilitySchema, noParams, ok, round, type CoreDeps } from "./common.ts";

/** Pearson correlation of two equal-length series; null when either is flat or too short. */
export function pearson(a: number[], b: number[]): number | null {
  const n = Math.min(a.length, b.length);
  if (n < 3) return null;
  const ma = a.slice(0, n).reduce((s, x) => s + x, 0) / n;
  const mb = b.slice(0, n).reduce((s, x) => s + x, 0) / n;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    cov += (a[i] - ma) * (b[i] - mb);
    va += (a[i] - ma) ** 2;
    vb += (b[i] - mb) ** 2;
  }
  return va > 0 && vb > 0 ? cov / Math.sqrt(va * vb) : null;
}

/** Daily log returns on weekdays (a Monday's return spans the weekend). */
function weekdayReturns(points: MacroPoint[]): Map<number, number> {
  const out = new Map<number, number>();
  let previous: MacroPoint | undefined;
  for (const p of points) {
    const day = new Date(p.time).getUTCDay();
    if (day === 0 || day === 6) continue;
    if (previous) out.set(p.time, Math.log(p.value / previous.value));
    previous = p;
  }
  return out;
}

function correlation(btc: MacroPoint[], other: MacroPoint[], days: number): number | null {
  const a = weekdayReturns(btc.slice(-days - 1));
  const b = weekdayReturns(other.slice(-days - 1));
  const keys = [...a.keys()].filter((k) => b.has(k));
  const r = pearson(
    keys.map((k) => a.get(k)!),
    keys.map((k) => b.get(k)!),
  );
  return r === null ? null : round(r, 3);
}

const correlations = jsonEndpoint({
  path: "/v1/macro/correlations",
  price: 3,
  summary: "Bitcoin's correlation with the dollar, equities, gold and rates",
  description:
    "30- and 90-day Pearson correlations of daily log returns (weekdays) between BTC and DXY, SPX, NDX, GOLD and US10Y, with each series' latest value and 30-day change.",
  params: noParams,
  response: availabilitySchema({
    btc_price: z.number(),
    method: z.string(),
    correlations: z.array(
      z.object({
        series: z.string(),
        latest: z.number(),
        change_30d_pct: z.number(),
        correlation_30d: z.number().nullable(),
        correlation_90d: z.number().nullable(),
        regime: z.enum(["risk_on", "inverse", "decoupled"]).describe("From the 30-day correlation: ≥ 0.3 risk_on, ≤ −0.3 inverse, else decoupled"),
      }),
    ),
  }),
  example: {},
  handle: async (deps: CoreDeps) =>
    ok(
      availabilityBody(await deps.source.macro(120), (series) => {
        const btc = series.BTC ?? [];
        return {
          btc_price: btc.at(-1)?.value ?? 0,
          method: "Pearson correlation of daily log returns on weekdays; BTC at 00:00 UTC",
          correlations: Object.entries(series)
            .filter(([name]) => name !== "BTC")
            .map(([name, points]) => {
              const c30 = correlation(btc, points, 30);
              const monthAgo = points.at(-31) ?? points[0];
              return {
                series: name,
                latest: points.at(-1)!.value,
                change_30d_pct: round((points.at(-1)!.value / monthAgo.value - 1) * 100, 2),
                correlation_30d: c30,
                correlation_90d: correlation(btc, points, 90),
                regime: c30 === null ? ("decoupled" as const) : c30 >= 0.3 ? ("risk_on" as const) : c30 <= -0.3 ? ("inverse" as const) : ("decoupled" as const),
              };
            }),
        };
      }),
    ),
});

const stablecoins = jsonEndpoint({
  path: "/v1/macro/stablecoins",
  price: 3,
  summary: "Stablecoin supply",
  description: "Circulating supply of the main USD stablecoins and its 7-day change: growing supply is dry powder for crypto buying.",
  params: noParams,
  response: availabilitySchema({
    stablecoins: z.array(z.object({ symbol: z.string(), supply_usd: z.number(), change_7d_pct: z.number(), share_pct: z.number() })),
    total_supply_usd: z.number(),
    total_change_7d_pct: z.number(),
  }),
  example: {},
  handle: async (deps: CoreDeps) =>
    ok(
      availabilityBody(await deps.source.stablecoins(), (coins) => {
        const total = coins.reduce((s, c) => s + c.supplyUsd, 0);
        const weekAgo = coins.reduce((s, c) => s + c.supplyUsd / (1 + c.change7dPct / 100), 0);
        return {
          stablecoins: coins.map((c) => ({
            symbol: c.symbol,
            supply_usd: c.supplyUsd,
            change_7d_pct: c.change7dPct,
            share_pct: round((c.supplyUsd / total) * 100, 2),
          })),
          total_supply_usd: total,
          total_change_7d_pct: round((total / weekAgo - 1) * 100, 3),
        };
      }),
    ),
});

export const macroEndpoints = [correlations, stablecoins];
export { correlations as correlationsEndpoint };
