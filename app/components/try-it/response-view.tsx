"use client";
// The answer in try-it: status, how long the call took (and with paying), the If-None-Match a
// repeat sent, what a failing status (or a 304) means, the headers that matter, and the body (pretty JSON), or the live viewer for a stream;
// under a JSON body, the map of what it holds (ResponseMap), when the try-it passes one.
import type { ReactNode } from "react";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import { formatElapsed } from "@/lib/try-it/response-summary.ts";
import type { ShownResponse } from "@/lib/try-it/try-it-run.ts";

/**
 * `children` is the live viewer, shown instead of the body when the answer is a stream; `map` is
 * shown under the body.
 */
export function ResponseView({ shown, children, map }: { shown: ShownResponse; children?: ReactNode; map?: ReactNode }) {
  const ok = shown.status < 400;
  return (
    <div aria-label="Response" role="region" className="space-y-3">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <span
          className={`rounded-md px-2 py-0.5 font-mono text-xs font-semibold ${
            ok
              ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-400/15 dark:text-emerald-300"
              : "bg-rose-100 text-rose-900 dark:bg-rose-400/15 dark:text-rose-300"
          }`}
        >
          {shown.status} {shown.statusText}
        </span>
        <span className="text-muted">
          Took {formatElapsed(shown.elapsedMs)}
          {shown.paidSats !== null ? ` (${formatElapsed(shown.totalMs)} with paying ${formatSats(shown.paidSats)})` : ""}
        </span>
      </div>
      {shown.sentIfNoneMatch ? (
        <p className="text-sm text-muted">
          Repeat of an answer with an ETag: sent <code className="font-mono text-xs">If-None-Match: {shown.sentIfNoneMatch}</code>
        </p>
      ) : null}
      {shown.note ? <p className="text-sm text-muted">{shown.note}</p> : null}
      {shown.headers.length ? (
        <dl
          aria-label="Response headers"
          className="grid grid-cols-1 gap-x-4 gap-y-1 rounded-lg border border-line bg-surface px-3 py-2 font-mono text-xs sm:grid-cols-[max-content_minmax(0,1fr)]"
        >
          {shown.headers.map(([name, value]) => (
            <div key={name} className="contents">
              <dt className="text-muted">{name}</dt>
              <dd className="break-all">{value}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      {shown.streaming ? (
        children
      ) : shown.body ? (
        <figure className="overflow-hidden rounded-xl border border-code-line bg-code-bg text-code-fg">
          <figcaption className="border-b border-code-line px-3 py-1.5 text-xs text-code-muted">Body{shown.body.json ? " (JSON)" : ""}</figcaption>
          <pre tabIndex={0} aria-label="Response body" className="max-h-96 overflow-auto px-4 py-3 font-mono text-[13px] leading-relaxed">
            <code>{shown.body.text || "(empty)"}</code>
          </pre>
          {shown.body.truncated ? <p className="border-t border-code-line px-3 py-1.5 text-xs text-code-muted">Cut at 100,000 characters.</p> : null}
        </figure>
      ) : null}
      {shown.streaming ? null : map}
    </div>
  );
}
