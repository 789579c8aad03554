"use client";
// The API page's verdict card: state, bias, risk, confidence and conviction, the headline, the
// strongest evidence (each with the endpoint behind it) and the last transition, from the API's
// verdict endpoint through the free preview, polled every 30 s (the API computes once a minute).
import type { VerdictPreview } from "@/lib/previews/load-preview.ts";
import { describeTransition } from "@/lib/try-it/market-preview.ts";
import { usePreview } from "./use-preview.ts";

const POLL_MS = 30_000;

const percent = (n: number | null) => (n === null ? "—" : `${Math.round(n * 100)} %`);

function tone(field: "bias" | "risk", value: string): string {
  if (field === "bias") {
    if (value === "bullish") return "bg-emerald-100 text-emerald-900 dark:bg-emerald-400/15 dark:text-emerald-300";
    if (value === "bearish") return "bg-rose-100 text-rose-900 dark:bg-rose-400/15 dark:text-rose-300";
  } else {
    if (value === "HIGH" || value === "ELEVATED") return "bg-rose-100 text-rose-900 dark:bg-rose-400/15 dark:text-rose-300";
    if (value === "MODERATE") return "bg-amber-100 text-amber-900 dark:bg-amber-400/15 dark:text-amber-300";
    if (value === "LOW") return "bg-emerald-100 text-emerald-900 dark:bg-emerald-400/15 dark:text-emerald-300";
  }
  return "bg-surface-subtle text-foreground";
}

export function VerdictCard({ slug, verdictPath }: { slug: string; verdictPath: string }) {
  const preview = usePreview<VerdictPreview>(slug, "verdict", POLL_MS);
  const verdict = preview.data?.verdict ?? null;
  return (
    <section aria-labelledby="verdict-heading" data-testid="verdict-card" className="rounded-2xl border border-line bg-surface p-4 sm:p-5">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id="verdict-heading" className="text-xl font-semibold tracking-tight">
          Market verdict
        </h2>
        <p className="text-xs text-muted">
          From <code className="font-mono">{verdictPath}</code>
          {verdict?.source ? ` · ${verdict.source} data` : ""}
          {verdict?.computedAt ? ` · computed ${new Date(verdict.computedAt).toLocaleTimeString()}` : ""}
        </p>
      </div>
      {preview.loading ? (
        <p role="status" className="mt-4 text-sm text-muted">
          Loading the verdict…
        </p>
      ) : !verdict ? (
        <p
          role="alert"
          className="mt-4 rounded-xl border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-400/30 dark:bg-rose-400/10 dark:text-rose-200"
        >
          The verdict could not be loaded: {preview.error}. It tries again every {POLL_MS / 1000} s.
        </p>
      ) : (
        <div className="mt-4 space-y-4">
          <dl className="grid grid-cols-2 gap-3 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-muted">State</dt>
              <dd data-testid="verdict-state" className="mt-1 font-mono font-semibold break-all">
                {verdict.state}
              </dd>
            </div>
            <div>
              <dt className="text-muted">Bias</dt>
              <dd className="mt-1">
                <span className={`rounded-md px-2 py-0.5 font-semibold ${tone("bias", verdict.bias)}`}>{verdict.bias}</span>
                {verdict.biasScore !== null ? <span className="ml-2 text-xs text-muted tabular-nums">score {verdict.biasScore.toFixed(2)}</span> : null}
              </dd>
            </div>
            <div>
              <dt className="text-muted">Risk</dt>
              <dd className="mt-1">
                <span className={`rounded-md px-2 py-0.5 font-mono text-xs font-semibold ${tone("risk", verdict.risk)}`}>{verdict.risk}</span>
              </dd>
            </div>
            <div>
              <dt className="text-muted">Confidence</dt>
              <dd className="mt-1 font-medium tabular-nums">{percent(verdict.confidence)}</dd>
            </div>
            <div>
              <dt className="text-muted">Conviction</dt>
              <dd className="mt-1 font-medium tabular-nums">{percent(verdict.conviction)}</dd>
            </div>
          </dl>
          {verdict.headline ? <p className="text-base leading-7 text-pretty">{verdict.headline}</p> : null}
          {verdict.evidence.length ? (
            <div>
              <h3 className="text-sm font-semibold">Top evidence</h3>
              <ol className="mt-2 space-y-2 text-sm">
                {verdict.evidence.map((e, i) => (
                  <li key={i} className="rounded-lg border border-line bg-surface-subtle px-3 py-2">
                    <p>{e.summary}</p>
                    <p className="mt-0.5 text-xs text-muted">
                      {e.endpoint ? <code className="font-mono">{e.endpoint}</code> : null}
                      {e.contribution !== null ? ` · contribution ${e.contribution >= 0 ? "+" : "−"}${Math.abs(e.contribution).toFixed(3)}` : ""}
                    </p>
                  </li>
                ))}
              </ol>
            </div>
          ) : null}
          <p data-testid="verdict-changed" className="text-sm text-muted">
            <span className="font-medium text-foreground">Last change: </span>
            {verdict.changed
              ? `${describeTransition(verdict.changed)} at ${new Date(verdict.changed.at).toLocaleString()}`
              : "none since the API started (enums flip only after a new reading holds for 3 computes)."}
          </p>
          {preview.error ? (
            <p role="status" className="text-xs text-amber-800 dark:text-amber-300">
              The last refresh failed ({preview.error}); showing the previous answer.
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
