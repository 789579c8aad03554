"use client";
// The live viewer of a paid stream (spec 4.7, 8): each event with its name, time and data as it
// arrives, and how many keep-alive comments came (the last one's time); stops at 100 events or 60
// seconds and says why. payment_required frames stand out.
import { describeStopReason, LIVE_VIEWER_LIMITS, type LiveViewerStop, type ViewerEvent } from "@/lib/try-it/live-viewer.ts";
import { formatElapsed } from "@/lib/try-it/response-summary.ts";

type StreamViewerProps = {
  events: ViewerEvent[];
  keepAlives: { count: number; lastAtMs: number | null };
  stop: LiveViewerStop | null;
  running: boolean;
  onStop: () => void;
};

/** Event data as shown: pretty JSON when it parses, else as sent. */
function shownData(data: string): string {
  try {
    return JSON.stringify(JSON.parse(data), null, 2);
  } catch {
    return data;
  }
}

export function StreamViewer({ events, keepAlives, stop, running, onStop }: StreamViewerProps) {
  const last = events.at(-1);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <p className="text-muted">
          <span className="font-medium text-foreground">{events.length}</span> of at most {LIVE_VIEWER_LIMITS.maxEvents} events
          {last ? ` · ${formatElapsed(last.atMs)}` : ""}
          {running ? " · live" : ""}
          <span data-testid="keep-alives">
            {" · "}
            {keepAlives.count === 1 ? "1 keep-alive" : `${keepAlives.count} keep-alives`}
            {keepAlives.lastAtMs !== null ? `, last at +${formatElapsed(keepAlives.lastAtMs)}` : ""}
          </span>
        </p>
        {running ? (
          <button type="button" onClick={onStop} className="rounded-lg border border-line-strong px-3 py-1.5 text-sm font-medium hover:bg-surface">
            Stop stream
          </button>
        ) : null}
      </div>
      {stop ? (
        <p role="status" data-stop-reason={stop.reason} className="rounded-lg border border-line bg-surface px-3 py-2 text-sm">
          {describeStopReason(stop.reason)}
          {stop.error ? ` (${stop.error})` : ""}
        </p>
      ) : null}
      <ol role="log" aria-label="Stream events" className="max-h-96 space-y-1.5 overflow-auto rounded-xl border border-code-line bg-code-bg p-2 text-code-fg">
        {events.length === 0 ? <li className="px-2 py-1 text-xs text-code-muted">{running ? "Waiting for the first event…" : "No events."}</li> : null}
        {events.map((event) => {
          const paymentRequired = event.event === "payment_required";
          return (
            <li key={event.index} className={`rounded-lg px-2 py-1.5 font-mono text-xs ${paymentRequired ? "border border-amber-400/60 bg-amber-400/10" : ""}`}>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-code-muted">
                <span className="tabular-nums">#{event.index}</span>
                <span className="tabular-nums">+{formatElapsed(event.atMs)}</span>
                <span className={`rounded px-1.5 py-0.5 font-semibold ${paymentRequired ? "bg-amber-400 text-zinc-950" : "bg-white/10 text-code-fg"}`}>
                  {event.event}
                </span>
                {paymentRequired ? <span className="text-amber-300">payment required: the paid window ended</span> : null}
                {event.id ? <span>id {event.id}</span> : null}
              </div>
              <pre className="mt-1 break-all whitespace-pre-wrap">{shownData(event.data)}</pre>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
