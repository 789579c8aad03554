// How the dashboard words analytics (pure, browser-safe): bucket labels for chart axes and tables,
// and the one-paragraph summary screen readers get instead of a chart.
import type { AnalyticsResponse, Granularity } from "./schemas.ts";

const monthDay = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
const monthYear = new Intl.DateTimeFormat("en-US", { month: "short", year: "numeric", timeZone: "UTC" });

/** A bucket's name: "Nov 21" (day), "Week of Nov 16" (week, ISO weeks start on Monday), "Nov 2026" (month). UTC, as the buckets are. */
export function bucketLabel(start: string, granularity: Granularity): string {
  const date = new Date(start);
  if (granularity === "month") return monthYear.format(date);
  const day = monthDay.format(date);
  return granularity === "week" ? `Week of ${day}` : day;
}

/** The shorter label the chart's axis has room for. */
export function axisLabel(start: string, granularity: Granularity): string {
  return granularity === "month" ? monthYear.format(new Date(start)) : monthDay.format(new Date(start));
}

/** A count with grouped thousands: "12,500". */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** "1 request" / "2 requests". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** True when the range saw any request or any earning. */
export function hasTraffic(analytics: Pick<AnalyticsResponse, "totals">): boolean {
  return analytics.totals.requests > 0 || analytics.totals.earningsSats > 0;
}

/**
 * What the charts show, in words: the totals, and the busiest and best-earning buckets (the earliest
 * one on ties). Charts are hidden from assistive technology; this and the data table stand in.
 */
export function analyticsSummary(analytics: Pick<AnalyticsResponse, "granularity" | "series" | "totals">): string {
  const { granularity: g, series, totals } = analytics;
  if (series.length === 0) return "No data in this range.";
  const range = `${bucketLabel(series[0]!.start, g)} to ${bucketLabel(series[series.length - 1]!.start, g)}`;
  if (!hasTraffic(analytics)) return `No requests and no earnings from ${range}.`;
  const best = (pick: (b: AnalyticsResponse["series"][number]) => number) => series.reduce((top, b) => (pick(b) > pick(top) ? b : top));
  const busiest = best((b) => b.requests);
  const richest = best((b) => b.earningsSats);
  const parts = [
    `From ${range}: ${plural(totals.requests, "request")}, ${plural(totals.paidRequests, "paid request")}, ${plural(totals.earningsSats, "sat")} earned.`,
  ];
  if (busiest.requests > 0)
    parts.push(`Most requests: ${bucketLabel(busiest.start, g)} (${plural(busiest.requests, "request")}, ${formatCount(busiest.paidRequests)} paid).`);
  if (richest.earningsSats > 0) parts.push(`Highest earnings: ${bucketLabel(richest.start, g)} (${plural(richest.earningsSats, "sat")}).`);
  return parts.join(" ");
}
