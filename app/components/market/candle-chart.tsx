"use client";
// The API page's live candle chart (lightweight-charts, loaded in the browser only): the API's last
// 72 hourly candles from the free preview, polled every 15 s, with the hour still forming drawn
// from the API's live price. Loading, empty and error states; the figures a screen reader needs
// (last price, change, range) are text beside the canvas, which is hidden from assistive technology.
import { useEffect, useMemo, useRef, useState } from "react";
import type { CandlestickData, IChartApi, ISeriesApi, UTCTimestamp } from "lightweight-charts";
import type { ChartPreview } from "@/lib/previews/load-preview.ts";
import { describeChart, formingCandle, type ChartCandle } from "@/lib/try-it/market-preview.ts";
import { usePreview } from "./use-preview.ts";

const POLL_MS = 15_000;
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 2 });
const formatUsd = (n: number) => usd.format(n);

function bar(c: ChartCandle): CandlestickData<UTCTimestamp> {
  return { time: c.time as UTCTimestamp, open: c.open, high: c.high, low: c.low, close: c.close };
}

export function CandleChart({ slug, apiName }: { slug: string; apiName: string }) {
  const preview = usePreview<ChartPreview>(slug, "chart", POLL_MS);
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<{ api: IChartApi; series: ISeriesApi<"Candlestick"> } | null>(null);
  const [chartError, setChartError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const fitted = useRef(false);
  const data = preview.data;
  const candles = useMemo(() => data?.candles ?? [], [data]);

  // The forming bar keeps the highs and lows seen across polls of the same hour: each new answer
  // extends the bar drawn from the previous one (state derived while rendering, no effect).
  const [seen, setSeen] = useState<{ data: ChartPreview | null; forming: ChartCandle | null }>({ data: null, forming: null });
  if (data !== seen.data) setSeen({ data, forming: data ? formingCandle(data.candles, data.live, seen.forming) : null });
  const forming = data === seen.data ? seen.forming : null;

  const hasCandles = candles.length > 0;
  useEffect(() => {
    if (!hasCandles || !container.current || chart.current) return;
    let disposed = false;
    import("lightweight-charts")
      .then(({ createChart, CandlestickSeries, ColorType }) => {
        if (disposed || !container.current) return;
        const style = getComputedStyle(container.current);
        const api = createChart(container.current, {
          autoSize: true,
          layout: { background: { type: ColorType.Solid, color: "transparent" }, textColor: style.color, attributionLogo: true },
          grid: { vertLines: { visible: false }, horzLines: { color: "rgba(128,128,128,0.15)" } },
          timeScale: { timeVisible: true, secondsVisible: false },
          rightPriceScale: { borderVisible: false },
          handleScroll: { vertTouchDrag: false },
        });
        const series = api.addSeries(CandlestickSeries, {
          upColor: "#16a34a",
          downColor: "#e11d48",
          borderVisible: false,
          wickUpColor: "#16a34a",
          wickDownColor: "#e11d48",
        });
        chart.current = { api, series };
        setReady(true);
      })
      .catch((err: unknown) => setChartError(err instanceof Error ? err.message : String(err)));
    // The container goes when the candles do (an empty or failed answer, or leaving the page): the
    // chart goes with it, and the next candles get a new one on the new container.
    return () => {
      disposed = true;
      chart.current?.api.remove();
      chart.current = null;
      fitted.current = false;
      setReady(false);
    };
  }, [hasCandles]);

  // Every poll redraws the closed candles (the history may have closed a new hour) and the forming one.
  useEffect(() => {
    const c = chart.current;
    if (!ready || !c || !hasCandles) return;
    c.series.setData(candles.map(bar));
    if (forming) c.series.update(bar(forming));
    if (!fitted.current) c.api.timeScale().fitContent();
    fitted.current = true;
  }, [candles, forming, hasCandles, ready]);

  const summary = data ? describeChart({ candles, forming, exchange: data.exchange }, formatUsd) : null;

  return (
    <section aria-labelledby="chart-heading" className="rounded-2xl border border-line bg-surface p-4 sm:p-5">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id="chart-heading" className="text-xl font-semibold tracking-tight">
          Live chart
        </h2>
        <p className="text-xs text-muted">
          {data ? `BTC-USD${data.exchange ? ` · ${data.exchange}` : ""} · ${data.timeframe ?? "1h"} candles` : "BTC-USD"}
          {preview.updatedAt ? ` · updated ${new Date(preview.updatedAt).toLocaleTimeString()}` : ""}
        </p>
      </div>
      <p className="mt-1 text-sm text-muted">
        From this API&apos;s own candle and snapshot endpoints, shown here for free and refreshed every {POLL_MS / 1000} s; the newest bar is the hour still
        forming.
      </p>
      {preview.loading ? (
        <p role="status" className="mt-4 flex h-72 items-center justify-center rounded-xl bg-surface-subtle text-sm text-muted sm:h-80">
          Loading candles…
        </p>
      ) : !data ? (
        <p
          role="alert"
          className="mt-4 rounded-xl border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-400/30 dark:bg-rose-400/10 dark:text-rose-200"
        >
          The chart could not be loaded: {preview.error}. It tries again every {POLL_MS / 1000} s.
        </p>
      ) : !hasCandles ? (
        <p role="status" className="mt-4 flex h-40 items-center justify-center rounded-xl bg-surface-subtle px-4 text-center text-sm text-muted">
          No candles recorded yet: the API is still collecting its history. This chart fills in by itself.
        </p>
      ) : (
        <>
          <div
            ref={container}
            aria-hidden="true"
            data-testid="candle-chart"
            data-candles={candles.length + (forming ? 1 : 0)}
            className="mt-4 h-72 w-full text-foreground sm:h-80"
          />
          {chartError ? (
            <p role="alert" className="mt-2 text-sm text-rose-700 dark:text-rose-300">
              The chart could not be drawn ({chartError}); the figures below are current.
            </p>
          ) : null}
          {preview.error ? (
            <p role="status" className="mt-2 text-xs text-amber-800 dark:text-amber-300">
              The last refresh failed ({preview.error}); showing the previous answer.
            </p>
          ) : null}
          <p data-testid="chart-summary" aria-live="polite" className="mt-3 text-sm tabular-nums">
            <span className="sr-only">{apiName} price chart: </span>
            {summary}
          </p>
        </>
      )}
    </section>
  );
}
