// What an API page previews for free above its endpoints: a candle chart and a verdict card. The
// page finds the endpoints behind them by their documented shape, never by the API's slug (a GET
// without path parameters ending in /candles with `timeframe` and `limit`, one ending in /snapshot,
// one ending in /verdict with `view`), and turns their answers into what the chart and the card draw.
// Pure and browser-safe; the server side that fetches them is lib/previews (docs/api-pages.md).

/** What the page knows of an endpoint (a subset of the directory's EndpointDetail). */
export type PreviewCandidate = {
  method: string;
  path: string;
  parameters: { name: string; in: string }[];
};

/** The endpoints an API page previews, each a path or null. */
export type PreviewPaths = { candles: string | null; snapshot: string | null; verdict: string | null };

function isPlainGet(e: PreviewCandidate, suffix: RegExp, queryParams: string[]): boolean {
  return (
    e.method.toUpperCase() === "GET" &&
    suffix.test(e.path) &&
    !e.path.includes("{") &&
    queryParams.every((name) => e.parameters.some((p) => p.name === name && p.in === "query"))
  );
}

/** Which of an API's endpoints feed the chart and the verdict card; a chart needs a candles endpoint. */
export function findPreviewPaths(endpoints: PreviewCandidate[]): PreviewPaths {
  const candles = endpoints.find((e) => isPlainGet(e, /\/candles$/, ["timeframe", "limit"]))?.path ?? null;
  return {
    candles,
    // A live price only matters beside candles.
    snapshot: candles ? (endpoints.find((e) => isPlainGet(e, /\/snapshot$/, []))?.path ?? null) : null,
    verdict: endpoints.find((e) => isPlainGet(e, /\/verdict$/, ["view"]))?.path ?? null,
  };
}

/** One OHLC bar; `time` in UTC seconds (what lightweight-charts takes). */
export type ChartCandle = { time: number; open: number; high: number; low: number; close: number };

/** The newest traded price and when (a snapshot's in-progress 1m candle). */
export type LivePrice = { price: number; time: number };

/** The chart's data: closed candles oldest first, the bar still forming (null without a live price), the venue. */
export type ChartData = { candles: ChartCandle[]; forming: ChartCandle | null; exchange: string | null; live: LivePrice | null };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function seconds(value: unknown): number | null {
  const ms = typeof value === "string" ? Date.parse(value) : typeof value === "number" ? value : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/**
 * The candles of a `{candles: [{time, open, high, low, close}]}` answer in any order, oldest first,
 * one per time (the last one read wins), bars with a missing or inconsistent figure dropped.
 */
export function parseCandles(body: unknown): ChartCandle[] {
  const list = isRecord(body) && Array.isArray(body.candles) ? body.candles : [];
  const byTime = new Map<number, ChartCandle>();
  for (const item of list) {
    if (!isRecord(item)) continue;
    const time = seconds(item.time);
    const [open, high, low, close] = [item.open, item.high, item.low, item.close].map(finite);
    if (time === null || open === null || high === null || low === null || close === null) continue;
    if (high < Math.max(open, close, low) || low > Math.min(open, close)) continue;
    byTime.set(time, { time, open, high, low, close });
  }
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

/** The live price of a snapshot answer (`last_candle.close` at `last_candle.time`, else `price` now); null when it has none. */
export function parseLivePrice(body: unknown, nowMs: number): LivePrice | null {
  if (!isRecord(body)) return null;
  const last = isRecord(body.last_candle) ? body.last_candle : null;
  const price = finite(last?.close) ?? finite(body.price);
  if (price === null || price <= 0) return null;
  return { price, time: (last && seconds(last.time)) ?? Math.floor(nowMs / 1000) };
}

/** The bar spacing of a series (its most common gap), seconds; null under two bars. */
export function barSeconds(candles: ChartCandle[]): number | null {
  const counts = new Map<number, number>();
  for (let i = 1; i < candles.length; i++) {
    const gap = candles[i].time - candles[i - 1].time;
    if (gap > 0) counts.set(gap, (counts.get(gap) ?? 0) + 1);
  }
  let best: number | null = null;
  for (const [gap, n] of counts) if (best === null || n > counts.get(best)! || (n === counts.get(best)! && gap < best)) best = gap;
  return best;
}

/**
 * The bar forming after the last closed candle, from the live price: it opens at the last close
 * and spans every live price seen in it (`previous`, the forming bar drawn so far, when it is the
 * same bar). Null when there is no live price, or it falls outside the next bar's interval (the
 * history lags or the price is stale): the chart then shows closed candles only.
 */
export function formingCandle(candles: ChartCandle[], live: LivePrice | null, previous: ChartCandle | null = null): ChartCandle | null {
  const last = candles.at(-1);
  const step = barSeconds(candles);
  if (!live || !last || step === null) return null;
  const time = last.time + step;
  if (live.time < time || live.time >= time + step) return null;
  const base = previous && previous.time === time ? previous : { time, open: last.close, high: last.close, low: last.close, close: last.close };
  return { time, open: base.open, high: Math.max(base.high, live.price), low: Math.min(base.low, live.price), close: live.price };
}

/** The chart's text alternative: last close, change over the shown bars, range; null without candles. */
export function describeChart(data: Pick<ChartData, "candles" | "forming" | "exchange">, formatUsd: (n: number) => string): string | null {
  const bars = data.forming ? [...data.candles, data.forming] : data.candles;
  if (bars.length === 0) return null;
  const first = bars[0];
  const last = bars.at(-1)!;
  const change = last.close - first.open;
  const pct = first.open === 0 ? 0 : (change / first.open) * 100;
  const high = Math.max(...bars.map((b) => b.high));
  const low = Math.min(...bars.map((b) => b.low));
  const direction = change > 0 ? "up" : change < 0 ? "down" : "unchanged";
  const hours = Math.round((last.time - first.time) / 3600) || 1;
  const where = data.exchange ? ` on ${data.exchange}` : "";
  return (
    `${data.forming ? "Last price" : "Last close"}${where} ${formatUsd(last.close)}, ${direction} ` +
    `${formatUsd(Math.abs(change))} (${pct >= 0 ? "+" : "−"}${Math.abs(pct).toFixed(2)} %) over ${bars.length} bars (about ${hours} h); ` +
    `range ${formatUsd(low)} to ${formatUsd(high)}.`
  );
}

/** The verdict card's fields, from a `/verdict` answer (full or summary view); null when it is not one. */
export type VerdictCard = {
  state: string;
  bias: string;
  risk: string;
  biasScore: number | null;
  confidence: number | null;
  conviction: number | null;
  headline: string | null;
  evidence: { summary: string; endpoint: string | null; contribution: number | null }[];
  changed: { fields: string[]; from: Record<string, string>; to: Record<string, string>; at: string } | null;
  computedAt: string | null;
  source: string | null;
};

function strings(value: unknown): Record<string, string> {
  return isRecord(value) ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string")) : {};
}

/** The verdict card of an answer, with the `evidenceShown` strongest items (the API ranks them by contribution). */
export function parseVerdict(body: unknown, evidenceShown = 3): VerdictCard | null {
  if (!isRecord(body) || typeof body.state !== "string" || typeof body.bias !== "string" || typeof body.risk !== "string") return null;
  const evidence = (Array.isArray(body.evidence) ? body.evidence : [])
    .filter(isRecord)
    .filter((e) => typeof e.summary === "string" && e.available !== false)
    .slice(0, evidenceShown)
    .map((e) => ({ summary: e.summary as string, endpoint: typeof e.endpoint === "string" ? e.endpoint : null, contribution: finite(e.contribution) }));
  const changed = isRecord(body.changed) && typeof body.changed.at === "string" ? body.changed : null;
  const meta = isRecord(body.meta) ? body.meta : {};
  return {
    state: body.state,
    bias: body.bias,
    risk: body.risk,
    biasScore: finite(body.bias_score),
    confidence: finite(body.confidence),
    conviction: finite(body.conviction),
    headline: typeof body.headline === "string" ? body.headline : null,
    evidence,
    changed: changed
      ? {
          fields: Array.isArray(changed.fields) ? changed.fields.filter((f): f is string => typeof f === "string") : [],
          from: strings(changed.from),
          to: strings(changed.to),
          at: changed.at as string,
        }
      : null,
    computedAt: typeof body.computed_at === "string" ? body.computed_at : null,
    source: typeof meta.source === "string" ? meta.source : null,
  };
}

/** The last transition in words: "state QUIET → LEVERAGED_RALLY, bias neutral → bullish". */
export function describeTransition(changed: NonNullable<VerdictCard["changed"]>): string {
  const parts = changed.fields.map((field) => `${field} ${changed.from[field] ?? "?"} → ${changed.to[field] ?? "?"}`);
  return parts.length ? parts.join(", ") : "no enum changed";
}
