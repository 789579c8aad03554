// The verdict's inputs: one read of the market per compute (derivatives, spot, on-chain, sentiment,
// risk), turned into evidence items. Each item is a signal from −1 (bearish) to 1 (bullish) with a
// weight, and/or a risk component from 0 to 1, and cites the endpoint that shows the figure behind it.
// A figure the source cannot give makes its item unavailable, which lowers `data_completeness`.
// Thresholds and formulas: docs/market-verdict.md ("Evidence").
import { DEFAULT_VENUE, type MarketSource, type Venue } from "../../model/types.ts";
import { anomalyReport, manipulationReport, type RiskLevel } from "../risk.ts";
import { INDICATOR_TIMEFRAME, recentCandles, venueIndicators, venueTrend } from "../technical.ts";

export type EvidenceCategory = "derivatives" | "spot" | "onchain" | "sentiment" | "risk";

export interface Evidence {
  id: string;
  category: EvidenceCategory;
  /** The endpoint whose answer shows the figure (spec 2 §2.2: each item cites the endpoint behind it). */
  endpoint: string;
  available: boolean;
  /** −1 (bearish) … 1 (bullish); 0 for items that only speak to risk. */
  signal: number;
  weight: number;
  /** This item's signed share of bias_score: weight × signal / the available items' total weight. */
  contribution: number;
  /** 0 (calm) … 1 (dangerous), or null when the item does not speak to risk. */
  risk: number | null;
  /** The figures read, in the endpoint's units. */
  value: Record<string, number | string | null>;
  summary: string;
}

/** The figures the state rules read (docs/market-verdict.md, "States"); null when unavailable. */
export interface MarketFeatures {
  price: number | null;
  return1hPct: number | null;
  return24hPct: number | null;
  atrPct: number | null;
  trendScore: number | null;
  trendDirection: string | null;
  fundingRate: number | null;
  openInterestBtc: number | null;
  oiChangePct: number | null;
  oiWindowMinutes: number | null;
  longLiquidationsUsd: number | null;
  shortLiquidationsUsd: number | null;
  basisAnnualizedPct: number | null;
  coinbasePremiumBps: number | null;
  wallImbalance: number | null;
  exchangeNetflowBtc: number | null;
  whaleNetflowBtc: number | null;
  mvrv: number | null;
  fearGreed: number | null;
  manipulationRisk: RiskLevel | null;
  manipulationScore: number | null;
  highAnomalies: number | null;
}

/** Open-interest samples the engine keeps between computes (the source gives only the current figure). */
export interface OpenInterestSample {
  time: number;
  size: number;
}

/** OI change is measured against the oldest sample at least this old, within the hour. */
export const OI_MIN_WINDOW_MS = 10 * 60_000;
export const OI_WINDOW_MS = 60 * 60_000;
/** Liquidations are summed over the last hour. */
export const LIQUIDATION_WINDOW_MS = 60 * 60_000;
/** The spot venue whose candles give price, returns and volatility. */
export const VERDICT_VENUE: Venue = DEFAULT_VENUE;

type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

async function read<T>(run: () => Promise<T>): Promise<Read<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

const clamp = (value: number) => Math.max(-1, Math.min(1, value));
const unit = (value: number) => Math.max(0, Math.min(1, value));
const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

interface Draft {
  id: string;
  category: EvidenceCategory;
  endpoint: string;
  weight: number;
  signal?: number;
  risk?: number | null;
  value?: Evidence["value"];
  summary: string;
  unavailable?: string;
}

/** Reads the market once and returns the features and the evidence (not yet ranked, contributions unset). */
export async function gatherEvidence(
  source: MarketSource,
  now: number,
  oiHistory: OpenInterestSample[],
): Promise<{ features: MarketFeatures; drafts: Draft[] }> {
  const [candles, trend, funding, openInterest, liquidations, basis, anomalies, walls, reserves, whales, valuation, fearGreed, manipulation] =
    await Promise.all([
      read(() => recentCandles(source, VERDICT_VENUE, INDICATOR_TIMEFRAME)),
      read(() => venueTrend(source, VERDICT_VENUE)),
      read(() => source.funding()),
      read(() => source.openInterest()),
      read(() => source.liquidations(now - LIQUIDATION_WINDOW_MS, now + 1)),
      read(() => source.cmeBasis()),
      read(() => anomalyReport(source, "coinbase")),
      read(() => source.orderBookWalls()),
      read(() => source.exchangeReserves()),
      read(() => source.whaleTransfers(now - 24 * 3_600_000)),
      read(() => source.valuation()),
      read(() => source.fearGreed(1)),
      read(() => manipulationReport(source, VERDICT_VENUE)),
    ]);
  const features: MarketFeatures = {
    price: null,
    return1hPct: null,
    return24hPct: null,
    atrPct: null,
    trendScore: null,
    trendDirection: null,
    fundingRate: null,
    openInterestBtc: null,
    oiChangePct: null,
    oiWindowMinutes: null,
    longLiquidationsUsd: null,
    shortLiquidationsUsd: null,
    basisAnnualizedPct: null,
    coinbasePremiumBps: null,
    wallImbalance: null,
    exchangeNetflowBtc: null,
    whaleNetflowBtc: null,
    mvrv: null,
    fearGreed: null,
    manipulationRisk: null,
    manipulationScore: null,
    highAnomalies: null,
  };
  const drafts: Draft[] = [];
  const missing = (draft: Omit<Draft, "summary">, reason: string) => drafts.push({ ...draft, summary: `unavailable: ${reason}`, unavailable: reason });

  // ---- spot: price path and volatility, trend, cross-venue premium, walls
  if (candles.ok && candles.value.length >= 25) {
    const series = candles.value;
    const last = series[series.length - 1];
    features.price = last.close;
    features.return1hPct = ((last.close - series[series.length - 2].close) / series[series.length - 2].close) * 100;
    features.return24hPct = ((last.close - series[series.length - 25].close) / series[series.length - 25].close) * 100;
    const atr = venueIndicators(source, VERDICT_VENUE, INDICATOR_TIMEFRAME, series).at(-1)!.atr14;
    features.atrPct = atr === null ? null : (atr / last.close) * 100;
    drafts.push({
      id: "volatility",
      category: "spot",
      endpoint: "/v1/technical/indicators",
      weight: 0,
      risk: features.atrPct === null ? null : unit((features.atrPct - 0.3) / 1.2),
      value: {
        atr14_pct: features.atrPct === null ? null : round(features.atrPct),
        return_1h_pct: round(features.return1hPct),
        return_24h_pct: round(features.return24hPct),
      },
      summary: `BTC ${signed(features.return24hPct, 2)} % in 24 h; hourly ATR ${features.atrPct?.toFixed(2) ?? "n/a"} % of price`,
    });
  } else
    missing(
      { id: "volatility", category: "spot", endpoint: "/v1/technical/indicators", weight: 0 },
      candles.ok ? "fewer than 25 hourly candles" : candles.reason,
    );

  if (trend.ok) {
    features.trendScore = trend.value.score;
    features.trendDirection = trend.value.direction;
    drafts.push({
      id: "spot_trend",
      category: "spot",
      endpoint: "/v1/technical/trend",
      weight: 1.5,
      signal: trend.value.score,
      value: { direction: trend.value.direction, strength: trend.value.strength, score: trend.value.score },
      summary: `${trend.value.strength} ${trend.value.direction} trend across 1h/4h/1d (score ${signed(trend.value.score, 2)})`,
    });
  } else missing({ id: "spot_trend", category: "spot", endpoint: "/v1/technical/trend", weight: 1.5 }, trend.reason);

  if (anomalies.ok && anomalies.value.focus.deviation_bps !== null) {
    features.coinbasePremiumBps = anomalies.value.focus.deviation_bps;
    features.highAnomalies = anomalies.value.anomalies.filter((anomaly) => anomaly.severity === "high").length;
    drafts.push({
      id: "cross_venue",
      category: "spot",
      endpoint: "/v1/risk/anomalies",
      weight: 0.4,
      signal: clamp(features.coinbasePremiumBps / 20),
      risk: unit(features.highAnomalies / 3),
      value: { coinbase_premium_bps: features.coinbasePremiumBps, high_anomalies: features.highAnomalies },
      summary: `Coinbase ${signed(features.coinbasePremiumBps, 1)} bps against the other venues; ${features.highAnomalies} high-severity anomalies`,
    });
  } else
    missing(
      { id: "cross_venue", category: "spot", endpoint: "/v1/risk/anomalies", weight: 0.4 },
      anomalies.ok ? "Coinbase's price unavailable" : anomalies.reason,
    );

  if (walls.ok) {
    const active = walls.value.filter((wall) => wall.confirmed && wall.endedAt === undefined);
    const bid = active.filter((wall) => wall.side === "bid").reduce((sum, wall) => sum + wall.valueUsd, 0);
    const ask = active.filter((wall) => wall.side === "ask").reduce((sum, wall) => sum + wall.valueUsd, 0);
    features.wallImbalance = bid + ask > 0 ? (bid - ask) / (bid + ask) : 0;
    drafts.push({
      id: "walls",
      category: "spot",
      endpoint: "/v1/market/order-book-walls",
      weight: 0.5,
      signal: features.wallImbalance,
      value: { bid_walls_usd: Math.round(bid), ask_walls_usd: Math.round(ask) },
      summary: active.length ? `confirmed walls: $${millions(bid)}M bid against $${millions(ask)}M ask` : "no confirmed walls resting",
    });
  } else missing({ id: "walls", category: "spot", endpoint: "/v1/market/order-book-walls", weight: 0.5 }, walls.reason);

  // ---- derivatives: funding, open interest, liquidations, basis
  if (funding.ok) {
    const rate = funding.value.rate;
    features.fundingRate = rate;
    drafts.push({
      id: "funding",
      category: "derivatives",
      endpoint: "/v1/derivatives/overview",
      weight: 1,
      // Above the 0.01 % baseline longs pay: crowded longs lean bearish; below it, crowded shorts lean bullish.
      signal: clamp(-(rate - 0.0001) / 0.0004),
      risk: unit((Math.abs(rate) - 0.0001) / 0.0007),
      value: { rate_8h: rate, rate_8h_pct: round(rate * 100, 4) },
      summary: `funding ${signed(rate * 100, 4)} % per 8 h`,
    });
  } else missing({ id: "funding", category: "derivatives", endpoint: "/v1/derivatives/overview", weight: 1 }, funding.reason);

  if (openInterest.ok) {
    features.openInterestBtc = openInterest.value.size;
    const base = oiHistory.find((sample) => sample.time >= now - OI_WINDOW_MS && sample.time <= now - OI_MIN_WINDOW_MS);
    if (base) {
      features.oiChangePct = ((openInterest.value.size - base.size) / base.size) * 100;
      features.oiWindowMinutes = Math.round((now - base.time) / 60_000);
      const direction = features.return1hPct === null ? 0 : Math.sign(features.return1hPct);
      drafts.push({
        id: "open_interest",
        category: "derivatives",
        endpoint: "/v1/derivatives/overview",
        weight: 0.8,
        // Rising OI confirms the move it rides; falling OI unwinds it.
        signal: clamp(features.oiChangePct / 2) * direction,
        risk: unit(Math.abs(features.oiChangePct) / 5),
        value: { open_interest_btc: openInterest.value.size, change_pct: round(features.oiChangePct, 3), window_minutes: features.oiWindowMinutes },
        summary: `open interest ${signed(features.oiChangePct, 2)} % in ${features.oiWindowMinutes} min`,
      });
    } else
      missing(
        { id: "open_interest", category: "derivatives", endpoint: "/v1/derivatives/overview", weight: 0.8 },
        "no open-interest sample 10–60 minutes old yet",
      );
  } else missing({ id: "open_interest", category: "derivatives", endpoint: "/v1/derivatives/overview", weight: 0.8 }, openInterest.reason);

  if (liquidations.ok) {
    const longs = liquidations.value.filter((event) => event.side === "SELL").reduce((sum, event) => sum + event.valueUsd, 0);
    const shorts = liquidations.value.filter((event) => event.side === "BUY").reduce((sum, event) => sum + event.valueUsd, 0);
    features.longLiquidationsUsd = longs;
    features.shortLiquidationsUsd = shorts;
    const total = longs + shorts;
    drafts.push({
      id: "liquidations",
      category: "derivatives",
      endpoint: "/v1/derivatives/liquidations",
      weight: 0.8,
      // Shorts squeezed lean bullish, longs flushed bearish; scaled in by size up to $10M.
      signal: total > 0 ? ((shorts - longs) / total) * Math.min(1, total / 10_000_000) : 0,
      risk: unit(total / 50_000_000),
      value: { long_liquidations_usd: Math.round(longs), short_liquidations_usd: Math.round(shorts), window_hours: 1 },
      summary: `$${millions(longs)}M longs and $${millions(shorts)}M shorts liquidated in the last hour`,
    });
  } else missing({ id: "liquidations", category: "derivatives", endpoint: "/v1/derivatives/liquidations", weight: 0.8 }, liquidations.reason);

  if (basis.ok && basis.value.available) {
    const annualized = basis.value.data.annualizedBasisPct;
    features.basisAnnualizedPct = annualized;
    drafts.push({
      id: "basis",
      category: "derivatives",
      endpoint: "/v1/derivatives/cme-basis",
      weight: 0.5,
      signal: clamp((annualized - 6) / 6),
      value: { annualized_basis_pct: annualized },
      summary: `CME basis ${annualized.toFixed(1)} % annualised`,
    });
  } else missing({ id: "basis", category: "derivatives", endpoint: "/v1/derivatives/cme-basis", weight: 0.5 }, reasonOf(basis));

  // ---- on-chain: exchange netflows, whales, valuation
  if (reserves.ok && reserves.value.available) {
    const netflow = reserves.value.data.reduce((sum, reserve) => sum + reserve.netflow24hBtc, 0);
    features.exchangeNetflowBtc = netflow;
    drafts.push({
      id: "exchange_netflows",
      category: "onchain",
      endpoint: "/v1/onchain/exchange-reserves",
      weight: 0.8,
      signal: clamp(-netflow / 5_000),
      value: { netflow_24h_btc: Math.round(netflow) },
      summary: `${Math.abs(Math.round(netflow)).toLocaleString("en-US")} BTC ${netflow <= 0 ? "left" : "entered"} exchanges in 24 h`,
    });
  } else missing({ id: "exchange_netflows", category: "onchain", endpoint: "/v1/onchain/exchange-reserves", weight: 0.8 }, reasonOf(reserves));

  if (whales.ok && whales.value.available) {
    const inflow = whales.value.data.filter((transfer) => transfer.kind === "exchange_inflow").reduce((sum, transfer) => sum + transfer.amountBtc, 0);
    const outflow = whales.value.data.filter((transfer) => transfer.kind === "exchange_outflow").reduce((sum, transfer) => sum + transfer.amountBtc, 0);
    features.whaleNetflowBtc = inflow - outflow;
    drafts.push({
      id: "whales",
      category: "onchain",
      endpoint: "/v1/onchain/metrics",
      weight: 0.5,
      signal: clamp((outflow - inflow) / 5_000),
      value: { whale_inflow_btc: Math.round(inflow), whale_outflow_btc: Math.round(outflow), transfers: whales.value.data.length },
      summary: `whales moved ${Math.round(inflow)} BTC onto and ${Math.round(outflow)} BTC off exchanges in 24 h`,
    });
  } else missing({ id: "whales", category: "onchain", endpoint: "/v1/onchain/metrics", weight: 0.5 }, reasonOf(whales));

  if (valuation.ok && valuation.value.available) {
    const mvrv = valuation.value.data.mvrv;
    features.mvrv = mvrv;
    drafts.push({
      id: "mvrv",
      category: "onchain",
      endpoint: "/v1/onchain/valuation",
      weight: 0.4,
      signal: clamp((2 - mvrv) / 1.5),
      value: { mvrv },
      summary: `MVRV ${mvrv.toFixed(2)}`,
    });
  } else missing({ id: "mvrv", category: "onchain", endpoint: "/v1/onchain/valuation", weight: 0.4 }, reasonOf(valuation));

  // ---- sentiment: fear & greed, read contrarian
  if (fearGreed.ok && fearGreed.value.available && fearGreed.value.data.length) {
    const latest = fearGreed.value.data[fearGreed.value.data.length - 1];
    features.fearGreed = latest.value;
    drafts.push({
      id: "fear_greed",
      category: "sentiment",
      endpoint: "/v1/sentiment/overview",
      weight: 0.6,
      signal: clamp((50 - latest.value) / 40),
      value: { value: latest.value, classification: latest.classification },
      summary: `fear & greed ${latest.value} (${latest.classification})`,
    });
  } else
    missing(
      { id: "fear_greed", category: "sentiment", endpoint: "/v1/sentiment/overview", weight: 0.6 },
      fearGreed.ok && fearGreed.value.available ? "no reading" : reasonOf(fearGreed),
    );

  // ---- risk: manipulation on the verdict's venue
  if (manipulation.ok && manipulation.value.risk_level !== "UNKNOWN") {
    features.manipulationRisk = manipulation.value.risk_level;
    features.manipulationScore = manipulation.value.score;
    drafts.push({
      id: "manipulation",
      category: "risk",
      endpoint: "/v1/risk/manipulation",
      weight: 0,
      risk: manipulation.value.score,
      value: { risk_level: manipulation.value.risk_level, score: manipulation.value.score, data_completeness: manipulation.value.data_completeness },
      summary: `manipulation risk ${manipulation.value.risk_level.toLowerCase()} on ${VERDICT_VENUE}`,
    });
  } else
    missing(
      { id: "manipulation", category: "risk", endpoint: "/v1/risk/manipulation", weight: 0 },
      manipulation.ok ? "too few inputs (risk_level UNKNOWN)" : manipulation.reason,
    );

  return { features, drafts };
}

/** Sets each available item's contribution (its signed share of bias_score) and ranks by |contribution|, then risk. */
export function rankEvidence(drafts: Draft[]): { evidence: Evidence[]; biasScore: number; agreement: number } {
  const available = drafts.filter((draft) => !draft.unavailable);
  const totalWeight = available.reduce((sum, draft) => sum + draft.weight, 0);
  const signed = available.reduce((sum, draft) => sum + draft.weight * (draft.signal ?? 0), 0);
  const absolute = available.reduce((sum, draft) => sum + draft.weight * Math.abs(draft.signal ?? 0), 0);
  const evidence: Evidence[] = drafts.map((draft) => ({
    id: draft.id,
    category: draft.category,
    endpoint: draft.endpoint,
    available: !draft.unavailable,
    signal: draft.unavailable ? 0 : round(draft.signal ?? 0, 3),
    weight: draft.weight,
    contribution: draft.unavailable || totalWeight === 0 ? 0 : round((draft.weight * (draft.signal ?? 0)) / totalWeight, 4),
    risk: draft.unavailable || draft.risk === undefined || draft.risk === null ? null : round(draft.risk, 3),
    value: draft.value ?? {},
    summary: draft.summary,
  }));
  evidence.sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution) || (b.risk ?? -1) - (a.risk ?? -1) || Number(b.available) - Number(a.available));
  return { evidence, biasScore: totalWeight ? signed / totalWeight : 0, agreement: absolute ? Math.abs(signed) / absolute : 0 };
}

/** Share of the evidence items whose figures could be read. */
export function completenessOf(evidence: Evidence[]): number {
  return evidence.length ? evidence.filter((item) => item.available).length / evidence.length : 0;
}

function reasonOf(value: Read<{ available: true } | { available: false; reason: string }>): string {
  if (!value.ok) return value.reason;
  return value.value.available ? "no data" : value.value.reason;
}

function signed(value: number | null, digits: number): string {
  if (value === null) return "n/a";
  return `${value >= 0 ? "+" : "−"}${Math.abs(value).toFixed(digits)}`;
}

function millions(usd: number): string {
  return (usd / 1_000_000).toFixed(1);
}
