// One try-it run as the page shows it (send → maybe pay → response → maybe a live stream), as a
// pure reducer: the hook dispatches what happened, the components read one state.
import type { LiveViewerStop, ViewerEvent } from "./live-viewer.ts";
import type { ResponseGeometry } from "./response-geometry.ts";
import type { formatResponseBody } from "./response-summary.ts";
import type { VisitorPayment } from "./visitor-wallet.ts";

/** Where the run is; "paying" lasts from the invoice until the paid call answers. */
export type TryItPhase = "idle" | "sending" | "paying" | "streaming" | "done" | "error";

/** The answer as shown: status, the headers that matter, the body, and how long it took. */
export type ShownResponse = {
  status: number;
  statusText: string;
  headers: [string, string][];
  /** What a failing status means for the visitor (explainStatus). */
  note: string | null;
  /** The ETag this call sent back in If-None-Match (a repeat of an answer that had one); null when none. */
  sentIfNoneMatch: string | null;
  /** null for a stream, which the live viewer shows instead. */
  body: ReturnType<typeof formatResponseBody> | null;
  /** What a successful JSON answer holds to draw on a map (findResponseGeometry); null for none. */
  geometry: ResponseGeometry | null;
  /** The answering call alone. */
  elapsedMs: number;
  /** From Send, paying included. */
  totalMs: number;
  /** Sats this run paid; null when nothing was paid. */
  paidSats: number | null;
  streaming: boolean;
};

export type TryItRun = {
  phase: TryItPhase;
  /** The invoice being paid and how; null outside "paying". */
  payment: VisitorPayment | null;
  shown: ShownResponse | null;
  error: string | null;
  events: ViewerEvent[];
  /** SSE comments (keep-alives) the stream sent, and when the last came (ms since it opened); they are not events. */
  keepAlives: { count: number; lastAtMs: number | null };
  streamStop: LiveViewerStop | null;
};

export type TryItRunAction =
  | { type: "started" }
  | { type: "payment"; payment: VisitorPayment | null }
  | { type: "answered"; shown: ShownResponse }
  | { type: "event"; event: ViewerEvent }
  | { type: "keep_alive"; atMs: number }
  | { type: "stream_ended"; stop: LiveViewerStop }
  | { type: "failed"; message: string }
  | { type: "canceled" };

export const idleTryItRun: TryItRun = {
  phase: "idle",
  payment: null,
  shown: null,
  error: null,
  events: [],
  keepAlives: { count: 0, lastAtMs: null },
  streamStop: null,
};

/** The next state of the run. A payment update outside sending/paying is a stale run's and ignored. */
export function tryItRunReducer(run: TryItRun, action: TryItRunAction): TryItRun {
  switch (action.type) {
    case "started":
      return { ...idleTryItRun, phase: "sending" };
    case "payment":
      if (run.phase !== "sending" && run.phase !== "paying") return run;
      return action.payment ? { ...run, phase: "paying", payment: action.payment } : { ...run, payment: null };
    case "answered":
      return { ...run, phase: action.shown.streaming ? "streaming" : "done", payment: null, shown: action.shown };
    case "event":
      return run.phase === "streaming" ? { ...run, events: [...run.events, action.event] } : run;
    case "keep_alive":
      return run.phase === "streaming" ? { ...run, keepAlives: { count: run.keepAlives.count + 1, lastAtMs: action.atMs } } : run;
    case "stream_ended":
      return { ...run, phase: "done", streamStop: action.stop };
    case "failed":
      return { ...run, phase: "error", payment: null, error: action.message };
    case "canceled":
      return { ...run, phase: "idle", payment: null };
  }
}

/** The payment step to highlight: 1. Invoice, 2. Paying (a wallet is at work), 3. Loading (paid, calling again). */
export type PaymentStep = "invoice" | "paying" | "loading";

export function paymentStep(payment: VisitorPayment): PaymentStep {
  const kind = payment.channel.kind;
  return kind === "paid" ? "loading" : kind === "webln" || kind === "dev" ? "paying" : "invoice";
}

/** True while a run holds the form: sending, or paying until the paid call answers. */
export function isBusy(run: TryItRun): boolean {
  return run.phase === "sending" || run.phase === "paying";
}
