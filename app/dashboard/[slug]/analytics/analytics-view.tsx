"use client";
// The analytics view: granularity switch and endpoint filter (both in the URL query of the API call,
// the previous numbers kept on screen while the next load), totals, two charts with a data table
// and a spoken summary beside them, the per-endpoint table, and next steps when nothing happened yet.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { analyticsSummary, axisLabel, bucketLabel, formatCount, hasTraffic, plural } from "@/lib/analytics/present.ts";
import type { AnalyticsResponse, Granularity } from "@/lib/analytics/schemas.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { StatCard } from "@/app/dashboard/_components/stat-card.tsx";

/** An endpoint the filter offers. */
export type EndpointOption = { id: string; label: string };

/** What a provider without traffic still has to do, and where. Hrefs are null until that page exists. */
export type NextSteps = {
  walletConnected: boolean;
  hasActiveEndpoint: boolean;
  listed: boolean;
  walletHref: string | null;
  endpointsHref: string | null;
  directoryHref: string;
  gatewayUrl: string;
};

type Props = { tenantId: string; initial: AnalyticsResponse; endpoints: EndpointOption[]; nextSteps: NextSteps };

const granularityLabels: Record<Granularity, string> = { day: "Daily", week: "Weekly", month: "Monthly" };
const rangeLabels: Record<Granularity, string> = { day: "last 30 days", week: "last 12 weeks", month: "last 12 months" };

export function AnalyticsView({ tenantId, initial, endpoints, nextSteps }: Props) {
  const [granularity, setGranularity] = useState<Granularity>(initial.granularity);
  const [endpointId, setEndpointId] = useState("");
  const isInitial = granularity === initial.granularity && endpointId === "";
  const query = useQuery({
    queryKey: ["analytics", tenantId, granularity, endpointId],
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ granularity });
      if (endpointId) params.set("endpointId", endpointId);
      return apiFetch<AnalyticsResponse>(`/tenants/${tenantId}/analytics?${params}`, { signal });
    },
    initialData: isInitial ? initial : undefined,
    placeholderData: keepPreviousData,
  });
  const data = query.data ?? initial;
  const g = data.granularity;
  const traffic = hasTraffic(data);

  return (
    <div className="flex flex-col gap-6" aria-busy={query.isFetching}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div role="radiogroup" aria-label="Granularity" className="inline-flex rounded-lg border border-line-strong p-0.5">
          {(Object.keys(granularityLabels) as Granularity[]).map((value) => (
            <button
              key={value}
              type="button"
              role="radio"
              aria-checked={granularity === value}
              onClick={() => setGranularity(value)}
              className="rounded-md px-3 py-1.5 text-sm font-medium text-muted aria-checked:bg-surface-subtle aria-checked:text-foreground"
            >
              {granularityLabels[value]}
            </button>
          ))}
        </div>
        {endpoints.length > 0 ? (
          <div className="flex flex-col gap-1.5">
            <label htmlFor="analytics-endpoint" className="text-sm font-medium">
              Endpoint
            </label>
            <select id="analytics-endpoint" className="input-field w-auto max-w-xs" value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
              <option value="">All endpoints</option>
              {endpoints.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.label}
                </option>
              ))}
            </select>
          </div>
        ) : null}
      </div>
      <p className="text-sm text-muted" role="status">
        {query.isFetching
          ? "Loading…"
          : `${granularityLabels[g]}, ${rangeLabels[g]} (${bucketLabel(data.series[0]?.start ?? data.from, g)} to ${bucketLabel(data.series.at(-1)?.start ?? data.to, g)}, UTC)`}
        {query.isError ? <span className="text-danger"> · Could not load: {query.error.message}</span> : null}
      </p>

      <section aria-label="Totals">
        <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
          <StatCard label="Requests" value={formatCount(data.totals.requests)} />
          <StatCard label="Paid requests" value={formatCount(data.totals.paidRequests)} />
          <StatCard label="Earnings" value={plural(data.totals.earningsSats, "sat")} />
          <StatCard label="Refunds" value={formatCount(data.totals.refunds)} hint="Payments given back after an origin failure" />
          <StatCard label="Origin errors" value={formatCount(data.totals.upstreamErrors)} hint="5xx, timeouts and unreachable" />
        </dl>
      </section>

      {traffic ? (
        <>
          <p className="sr-only">{analyticsSummary(data)}</p>
          <ChartCard title="Requests and paid requests" data={data}>
            <LineChart data={data.series} margin={{ top: 8, right: 12, bottom: 0, left: -12 }}>
              <CartesianGrid stroke="var(--line)" vertical={false} />
              <XAxis dataKey="start" tickFormatter={(s: string) => axisLabel(s, g)} tick={{ fontSize: 12, fill: "var(--muted)" }} minTickGap={16} />
              <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: "var(--muted)" }} />
              <Tooltip labelFormatter={(s) => bucketLabel(String(s), g)} contentStyle={tooltipStyle} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Line type="monotone" dataKey="requests" name="Requests" stroke="var(--foreground)" strokeWidth={2} dot={false} isAnimationActive={false} />
              <Line type="monotone" dataKey="paidRequests" name="Paid requests" stroke="var(--accent)" strokeWidth={2} dot={false} isAnimationActive={false} />
            </LineChart>
          </ChartCard>
          <ChartCard title="Earnings in sats" data={data}>
            <BarChart data={data.series} margin={{ top: 8, right: 12, bottom: 0, left: -12 }}>
              <CartesianGrid stroke="var(--line)" vertical={false} />
              <XAxis dataKey="start" tickFormatter={(s: string) => axisLabel(s, g)} tick={{ fontSize: 12, fill: "var(--muted)" }} minTickGap={16} />
              <YAxis allowDecimals={false} tick={{ fontSize: 12, fill: "var(--muted)" }} />
              <Tooltip
                labelFormatter={(s) => bucketLabel(String(s), g)}
                formatter={(v) => [plural(Number(v), "sat"), "Earnings"]}
                contentStyle={tooltipStyle}
                cursor={{ fill: "var(--surface-subtle)" }}
              />
              <Bar dataKey="earningsSats" name="Earnings (sats)" fill="var(--success)" radius={[3, 3, 0, 0]} isAnimationActive={false} />
            </BarChart>
          </ChartCard>
          <EndpointTable rows={data.endpoints} />
        </>
      ) : (
        <NoTraffic steps={nextSteps} filtered={endpointId !== ""} />
      )}
    </div>
  );
}

const tooltipStyle = { background: "var(--surface)", border: "1px solid var(--line)", borderRadius: 8, fontSize: 12, color: "var(--foreground)" };

/** A chart (hidden from assistive technology) with its numbers as a table one click away. */
function ChartCard({ title, data, children }: { title: string; data: AnalyticsResponse; children: React.ReactElement }) {
  const headingId = useId();
  const [asTable, setAsTable] = useState(false);
  const g = data.granularity;
  return (
    <section aria-labelledby={headingId} className="card flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={headingId} className="text-lg font-semibold">
          {title}
        </h2>
        <button type="button" className="text-sm text-accent underline" aria-pressed={asTable} onClick={() => setAsTable((v) => !v)}>
          {asTable ? "Show chart" : "Show as table"}
        </button>
      </div>
      {asTable ? (
        <div className="max-h-80 overflow-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">
              {title} per {g}
            </caption>
            <thead className="sticky top-0 bg-surface text-xs text-muted">
              <tr className="border-b border-line">
                <th scope="col" className="py-2 pr-3 font-medium">
                  {g === "day" ? "Day" : g === "week" ? "Week" : "Month"}
                </th>
                <th scope="col" className="py-2 pr-3 text-right font-medium">
                  Requests
                </th>
                <th scope="col" className="py-2 pr-3 text-right font-medium">
                  Paid
                </th>
                <th scope="col" className="py-2 text-right font-medium">
                  Earnings (sats)
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-line tabular-nums">
              {data.series.map((b) => (
                <tr key={b.start}>
                  <th scope="row" className="py-1.5 pr-3 font-normal">
                    {bucketLabel(b.start, g)}
                  </th>
                  <td className="py-1.5 pr-3 text-right">{formatCount(b.requests)}</td>
                  <td className="py-1.5 pr-3 text-right">{formatCount(b.paidRequests)}</td>
                  <td className="py-1.5 text-right">{formatCount(b.earningsSats)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <div className="h-60 w-full" aria-hidden>
          <ResponsiveContainer width="100%" height="100%">
            {children}
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}

function EndpointTable({ rows }: { rows: AnalyticsResponse["endpoints"] }) {
  return (
    <section aria-labelledby="per-endpoint-heading" className="flex flex-col gap-3">
      <h2 id="per-endpoint-heading" className="text-lg font-semibold">
        Per endpoint
      </h2>
      <div className="card overflow-x-auto p-0">
        <table className="w-full min-w-[40rem] text-left text-sm">
          <caption className="sr-only">Per endpoint over the whole range, most earning first</caption>
          <thead className="text-xs text-muted">
            <tr className="border-b border-line">
              <th scope="col" className="px-4 py-2 font-medium">
                Endpoint
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Requests
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Paid
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Earnings (sats)
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Refunds
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Origin errors
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line tabular-nums">
            {rows.map((r) => (
              <tr key={r.endpointId ?? "deleted"}>
                <th scope="row" className="px-4 py-2 font-normal">
                  {r.endpointId ? (
                    <>
                      <span className="font-mono text-xs">
                        {r.method} {r.path}
                      </span>
                      {r.title ? <span className="block text-xs text-muted">{r.title}</span> : null}
                    </>
                  ) : (
                    <span className="text-muted">Deleted endpoints</span>
                  )}
                </th>
                <td className="px-4 py-2 text-right">{formatCount(r.requests)}</td>
                <td className="px-4 py-2 text-right">{formatCount(r.paidRequests)}</td>
                <td className="px-4 py-2 text-right">{formatCount(r.earningsSats)}</td>
                <td className="px-4 py-2 text-right">{formatCount(r.refunds)}</td>
                <td className="px-4 py-2 text-right">{formatCount(r.upstreamErrors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** No requests in the range: what to do next, in order, each step linked where it is done. */
function NoTraffic({ steps, filtered }: { steps: NextSteps; filtered: boolean }) {
  if (filtered) {
    return (
      <section aria-labelledby="no-traffic-heading" className="card">
        <h2 id="no-traffic-heading" className="text-lg font-semibold">
          No traffic for this endpoint yet
        </h2>
        <p className="mt-1 text-sm text-muted">Pick “All endpoints”, or a longer granularity, to see more.</p>
      </section>
    );
  }
  const items = [
    { done: steps.walletConnected, title: "Connect a wallet", text: "Payments go straight to your Lightning wallet.", href: steps.walletHref },
    { done: steps.hasActiveEndpoint, title: "Add an endpoint", text: "A method, a path and a price.", href: steps.endpointsHref },
  ];
  return (
    <section aria-labelledby="no-traffic-heading" className="card flex flex-col gap-4">
      <div>
        <h2 id="no-traffic-heading" className="text-lg font-semibold">
          No traffic yet
        </h2>
        <p className="mt-1 text-sm text-muted">Charts appear here after the first call through your gateway. To get there:</p>
      </div>
      <ol className="flex flex-col gap-3">
        {items.map((item, i) => (
          <li key={item.title} className="flex items-start gap-3" aria-label={`${item.title}: ${item.done ? "done" : "to do"}`}>
            <StepMark done={item.done} index={i + 1} />
            <div>
              <p className={`font-medium ${item.done ? "text-muted line-through" : ""}`}>
                {!item.done && item.href ? (
                  <Link href={item.href} className="text-accent underline">
                    {item.title}
                  </Link>
                ) : (
                  item.title
                )}
              </p>
              <p className="text-sm text-muted">{item.text}</p>
            </div>
          </li>
        ))}
        <li className="flex items-start gap-3">
          <StepMark done={false} index={3} />
          <div className="flex min-w-0 flex-1 flex-col gap-2">
            <p className="font-medium">Make a first call</p>
            {steps.listed ? (
              <p className="text-sm text-muted">
                Your API page has a try-it for every endpoint, paid with a real (or dev) wallet:{" "}
                <Link href={`${steps.directoryHref}#endpoints-heading`} className="text-accent underline">
                  open your API page and try it
                </Link>
                .
              </p>
            ) : (
              <p className="text-sm text-muted">
                Once listed, your API page in the directory offers a try-it. Until then, call your gateway address; it answers 402 with an invoice:
              </p>
            )}
            {!steps.listed ? <CodeBlock code={`curl -i ${steps.gatewayUrl}/<your endpoint path>`} copyLabel="Copy curl command" wrap /> : null}
          </div>
        </li>
      </ol>
    </section>
  );
}

function StepMark({ done, index }: { done: boolean; index: number }) {
  return (
    <span
      aria-hidden
      className={`mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full border text-xs font-semibold ${
        done ? "border-success bg-success-soft text-success" : "border-line-strong text-muted"
      }`}
    >
      {done ? "✓" : index}
    </span>
  );
}
