// Seven days of health as a server-rendered SVG bar chart: one bar per 6 hours, full height and
// green at 100% uptime, shorter and red below, a faint stub where nothing was probed. The summary
// is in the accessible name and in the caption, so the colours are never the only carrier.
import type { HealthBucket } from "@/lib/directory/health-history.ts";

const barWidth = 6;
const gap = 2;
const height = 28;

/** The caption and accessible name: overall uptime across probed buckets, and the worst one. */
export function sparklineSummary(buckets: HealthBucket[]): string {
  const probed = buckets.filter((b) => b.uptimePercentage !== null);
  if (probed.length === 0) return "No health checks in the last 7 days";
  const samples = probed.reduce((n, b) => n + b.samples, 0);
  const ok = probed.reduce((n, b) => n + (b.uptimePercentage! / 100) * b.samples, 0);
  const worst = Math.min(...probed.map((b) => b.uptimePercentage!));
  const overall = Math.round((ok / samples) * 1000) / 10;
  return `${overall}% uptime over 7 days; lowest 6-hour window ${worst}%`;
}

export function HealthSparkline({ buckets }: { buckets: HealthBucket[] }) {
  const summary = sparklineSummary(buckets);
  const width = buckets.length * (barWidth + gap) - gap;
  return (
    <figure className="space-y-2">
      <svg role="img" aria-label={summary} viewBox={`0 0 ${width} ${height}`} width={width} height={height} className="max-w-full">
        <title>{summary}</title>
        {buckets.map((b, i) => {
          const value = b.uptimePercentage;
          const h = value === null ? 3 : Math.max(3, (value / 100) * height);
          const fill = value === null ? "#a1a1aa55" : value >= 99 ? "#10b981" : value >= 90 ? "#f59e0b" : "#f43f5e";
          return (
            <rect key={b.start.toISOString()} x={i * (barWidth + gap)} y={height - h} width={barWidth} height={h} rx={1.5} fill={fill}>
              <title>{`${b.start.toISOString().slice(0, 13).replace("T", " ")}:00 UTC: ${value === null ? "not checked" : `${value}% up`}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="text-xs text-muted">{summary}</figcaption>
    </figure>
  );
}
