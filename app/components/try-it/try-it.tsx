"use client";
// "Try it" on an API page: a form built from the endpoint's parameters and example, the price
// before paying, and a Send button that calls the gateway straight from the browser. A 402 is paid
// with WebLN when the browser has it, else by QR code (settlement learned through
// /api/l402/settlement) or the dev wallet, then retried with `Authorization: L402 mac:preimage`.
// Session tokens and prepaid credit are kept in sessionStorage for the page session and reused.
// Streams are read live (StreamViewer). Rendered only once JavaScript runs: no dead buttons.
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from "react";
import { credentialHeaderValue, parseChallenge } from "@/lib/sdk/client/l402-headers.ts";
import { describePrice, formatSats } from "@/lib/pricing/describe-price.ts";
import type { PricingModel } from "@/lib/pricing/quote.ts";
import { buildTryItForm, buildTryItRequest, type TryItEndpoint, type TryItProblem } from "@/lib/try-it/build-request.ts";
import { pollSettlement } from "@/lib/try-it/poll-settlement.ts";
import { describeStopReason, readEventStream, type ReadEventStreamResult, type ViewerEvent } from "@/lib/try-it/read-event-stream.ts";
import { explainStatus, formatElapsed, formatResponseBody, headersThatMatter } from "@/lib/try-it/response-summary.ts";
import {
  creditBalanceFrom,
  creditKey,
  forget,
  readCredit,
  readSession,
  sessionKey,
  updateSession,
  writeCredit,
  type StoredCredit,
  type StoredSession,
} from "@/lib/try-it/stored-credentials.ts";
import type { Challenge } from "./challenge.ts";
import { InvoicePanel, type PaymentChannel } from "./invoice-panel.tsx";
import { StreamViewer } from "./stream-viewer.tsx";

export type TryItProps = {
  endpoint: TryItEndpoint & {
    title: string;
    pricingModel: PricingModel | null;
    priceSats: number;
    tokenBudget: number | null;
    durationMinutes: number | null;
    unitCostSats: number | null;
    freeTryEnabled: boolean;
    streaming: boolean;
  };
  /** The tenant's gateway base address (gatewayDomain). */
  gatewayBase: string;
  /** The dev Lightning node is on: offer "Pay with dev wallet". */
  devWallet: boolean;
  /** A signed-in visitor may use the free try where the endpoint allows it. */
  signedIn: boolean;
};

type Phase = "idle" | "sending" | "invoice" | "paying" | "loading" | "streaming" | "done" | "error";
type Mode = "call" | "buy_credit" | "free_try";

type Shown = {
  status: number;
  statusText: string;
  headers: [string, string][];
  note: string | null;
  body: ReturnType<typeof formatResponseBody> | null;
  elapsedMs: number;
  totalMs: number;
  paidSats: number | null;
  streaming: boolean;
};

const SESSION_MODELS = new Set<PricingModel>(["token_bucket", "time_pass", "metered", "per_kb"]);

/** Thrown to end a run quietly: the visitor canceled, or a newer run replaced this one. */
class Canceled extends Error {}

const stepLabels: Record<"invoice" | "paying" | "loading", string> = { invoice: "Invoice", paying: "Paying", loading: "Loading" };

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function TryIt({ endpoint, gatewayBase, devWallet, signedIn }: TryItProps) {
  const uid = useId();
  const [mounted, setMounted] = useState(false);
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(() => buildTryItForm(endpoint));
  const [problems, setProblems] = useState<TryItProblem[]>([]);
  const [phase, setPhase] = useState<Phase>("idle");
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [channel, setChannel] = useState<PaymentChannel>({ kind: "waiting" });
  const [shown, setShown] = useState<Shown | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [session, setSession] = useState<StoredSession | null>(null);
  const [credit, setCredit] = useState<StoredCredit | null>(null);
  const [creditAmount, setCreditAmount] = useState(String(Math.max(endpoint.priceSats * 10, 10)));
  const [announcement, setAnnouncement] = useState("");
  const [hasWebln, setHasWebln] = useState(false);
  const [events, setEvents] = useState<ViewerEvent[]>([]);
  const [streamStop, setStreamStop] = useState<ReadEventStreamResult | null>(null);
  const run = useRef<AbortController | null>(null);
  const payment = useRef<{ resolve: (preimage: string) => void; reject: (err: Error) => void } | null>(null);

  const model = endpoint.pricingModel;
  const isSessionModel = model !== null && SESSION_MODELS.has(model);
  const sKey = sessionKey(gatewayBase, endpoint.method, endpoint.path);
  const cKey = creditKey(gatewayBase);

  useEffect(() => {
    setMounted(true);
    setHasWebln(typeof (window as { webln?: unknown }).webln === "object" && (window as { webln?: unknown }).webln !== null);
    const store = storage();
    if (store) {
      setSession(readSession(store, sKey));
      setCredit(model === "per_request" ? readCredit(store, cKey) : null);
    }
    return () => run.current?.abort();
  }, [sKey, cKey, model]);

  const announce = useCallback((text: string) => setAnnouncement(text), []);

  /** Waits for the preimage from whichever channel pays first: WebLN, the dev wallet, the QR code. */
  const awaitPayment = useCallback(
    (c: Challenge, signal: AbortSignal): Promise<string> =>
      new Promise<string>((resolve, reject) => {
        let settled = false;
        const finish = (fn: () => void) => {
          if (settled) return;
          settled = true;
          payment.current = null;
          fn();
        };
        payment.current = { resolve: (p) => finish(() => resolve(p)), reject: (e) => finish(() => reject(e)) };
        signal.addEventListener("abort", () => finish(() => reject(new Canceled())), { once: true });
        // The QR path runs all along: a phone may pay while other options are on screen.
        void pollSettlement({ macaroon: c.macaroon, signal }).then((result) => {
          if (result.ok) finish(() => resolve(result.preimage));
          else if (result.reason !== "aborted") setChannel({ kind: "failed", message: result.message, canPaste: result.reason === "no_preimage" });
        });
      }),
    [],
  );

  async function payWithWebln(c: Challenge) {
    setPhase("paying");
    setChannel({ kind: "webln" });
    announce("Paying with your WebLN wallet");
    try {
      const { requestProvider } = await import("webln");
      const provider = await requestProvider();
      const { preimage } = await provider.sendPayment(c.invoice);
      payment.current?.resolve(preimage.toLowerCase());
    } catch (err) {
      setPhase("invoice");
      const message = err instanceof Error && err.message ? err.message : "the wallet did not pay";
      setChannel({ kind: "failed", message: `Your WebLN wallet did not pay (${message}). Scan the QR code with another wallet, or send again.`, canPaste: false });
      announce("The WebLN payment was rejected");
    }
  }

  async function payWithDevWallet(c: Challenge) {
    setPhase("paying");
    setChannel({ kind: "dev" });
    announce("Paying with the dev wallet");
    try {
      const res = await fetch("/api/dev/lightning/pay", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ invoice: c.invoice }) });
      const body = (await res.json()) as { preimage?: string; error?: { message?: string } };
      if (!res.ok || !body.preimage) throw new Error(body.error?.message ?? `status ${res.status}`);
      payment.current?.resolve(body.preimage);
    } catch (err) {
      setPhase("invoice");
      setChannel({ kind: "failed", message: `The dev wallet could not pay: ${(err as Error).message}`, canPaste: false });
    }
  }

  async function send(mode: Mode) {
    const built = buildTryItRequest(gatewayBase, endpoint, form);
    if (!built.ok) {
      setProblems(built.problems);
      announce(`Fix ${built.problems.length === 1 ? "one field" : `${built.problems.length} fields`} before sending`);
      return;
    }
    setProblems([]);
    run.current?.abort();
    const controller = new AbortController();
    run.current = controller;
    const { signal } = controller;
    const store = storage();
    const startedAt = performance.now();
    setShown(null);
    setError(null);
    setEvents([]);
    setStreamStop(null);
    setChallenge(null);
    setPhase("sending");
    announce("Sending the request");

    const call = async (headers: Record<string, string>) => {
      const t0 = performance.now();
      const res = await fetch(built.request.url, { method: built.request.method, headers, body: built.request.body ?? undefined, signal, cache: "no-store" });
      return { res, t0 };
    };

    try {
      const base = { ...built.request.headers };
      let headers: Record<string, string> = { ...base };
      let sentSession: StoredSession | null = null;
      let sentCredit: StoredCredit | null = null;
      if (mode === "free_try") {
        const tokenRes = await fetch("/api/free-try/token", { cache: "no-store", signal });
        if (!tokenRes.ok) throw new Error(tokenRes.status === 401 ? "Sign in to use the free try." : `Could not get a free-try token (status ${tokenRes.status}).`);
        const { token } = (await tokenRes.json()) as { token: string };
        headers.authorization = `Bearer ${token}`;
      } else if (mode === "buy_credit") {
        headers["x-hub-credit"] = creditAmount.trim();
      } else if (isSessionModel && store) {
        sentSession = readSession(store, sKey);
        if (sentSession) headers["x-session-token"] = sentSession.token;
      } else if (model === "per_request" && store) {
        sentCredit = readCredit(store, cKey);
        if (sentCredit) headers.authorization = credentialHeaderValue(sentCredit.macaroon, sentCredit.preimage);
      }

      let { res, t0 } = await call(headers);
      // A stored token the gateway no longer knows (401) is dropped and the call made without it.
      if (res.status === 401 && (sentSession || sentCredit) && store) {
        forget(store, sentSession ? sKey : cKey);
        sentSession ? setSession(null) : setCredit(null);
        sentSession = null;
        sentCredit = null;
        headers = { ...base };
        ({ res, t0 } = await call(headers));
      }

      let paid: Challenge | null = null;
      if (res.status === 402) {
        // A depleted or expired session or credit: forget it; this 402 is the fresh challenge.
        if (store && sentSession) {
          forget(store, sKey);
          setSession(null);
        }
        if (store && sentCredit) {
          forget(store, cKey);
          setCredit(null);
        }
        const parsed = parseChallenge(res.headers.get("www-authenticate") ?? "");
        const body = (await res.json().catch(() => ({}))) as { amountSats?: number; paymentHash?: string; paymentRequest?: string; creditSats?: number };
        if (!parsed) throw new Error("The gateway answered 402 without a readable L402 challenge (WWW-Authenticate).");
        const c: Challenge = {
          macaroon: parsed.macaroon,
          invoice: parsed.invoice,
          amountSats: typeof body.amountSats === "number" ? body.amountSats : null,
          paymentHash: typeof body.paymentHash === "string" ? body.paymentHash : null,
          creditSats: typeof body.creditSats === "number" ? body.creditSats : null,
        };
        setChallenge(c);
        setChannel({ kind: "waiting" });
        setPhase("invoice");
        announce(`Payment required: an invoice for ${c.amountSats === null ? "the price" : formatSats(c.amountSats)}`);
        const paying = awaitPayment(c, signal);
        if ((window as { webln?: unknown }).webln) void payWithWebln(c);
        const preimage = await paying;
        paid = c;
        setPhase("loading");
        announce("Paid. Loading the response");
        headers = { ...base, authorization: credentialHeaderValue(c.macaroon, preimage) };
        ({ res, t0 } = await call(headers));
        if (mode === "buy_credit" && store && res.status < 500) {
          const bought: StoredCredit = { macaroon: c.macaroon, preimage: preimage.toLowerCase(), boughtSats: c.creditSats ?? c.amountSats ?? 0, balanceSats: creditBalanceFrom(res.headers) };
          writeCredit(store, cKey, bought);
          setCredit(bought);
        }
      }

      if (store && isSessionModel && res.ok) setSession(updateSession(store, sKey, res.headers, sentSession?.token ?? null));
      if (store && sentCredit && res.ok) {
        const updated = { ...sentCredit, balanceSats: creditBalanceFrom(res.headers) ?? sentCredit.balanceSats };
        writeCredit(store, cKey, updated);
        setCredit(updated);
      }

      const isStream = endpoint.streaming && res.ok && (res.headers.get("content-type") ?? "").includes("text/event-stream") && res.body !== null;
      const text = isStream ? null : await res.text();
      const now = performance.now();
      setShown({
        status: res.status,
        statusText: res.statusText,
        headers: headersThatMatter(res.headers),
        note: explainStatus(res.status, res.headers),
        body: text === null ? null : formatResponseBody(text),
        elapsedMs: now - t0,
        totalMs: now - startedAt,
        paidSats: paid ? paid.amountSats : null,
        streaming: isStream,
      });
      setChallenge(null);
      setPhase(isStream ? "streaming" : "done");
      announce(isStream ? `Status ${res.status}. Streaming events` : `Response received: status ${res.status}`);
      if (isStream) {
        // The run's signal also stops the stream (Stop, Cancel, a new Send, leaving the page).
        const result = await readEventStream(res.body!, { signal, onEvent: (event) => setEvents((list) => [...list, event]) });
        // A new Send stopped this stream: the new run owns the panel now.
        if (run.current !== controller) return;
        setStreamStop(result);
        setPhase("done");
        announce(describeStopReason(result.reason));
      }
    } catch (err) {
      if (err instanceof Canceled || signal.aborted) {
        if (run.current === controller) {
          setPhase("idle");
          setChallenge(null);
          announce("Canceled");
        }
        return;
      }
      setChallenge(null);
      setPhase("error");
      const message =
        err instanceof TypeError
          ? `Could not reach the gateway at ${gatewayBase} (network error or blocked by the browser).`
          : err instanceof Error
            ? err.message
            : String(err);
      setError(message);
      announce(`Error: ${message}`);
    }
  }

  function cancel() {
    run.current?.abort();
  }

  if (!mounted) return null;

  const busy = phase === "sending" || phase === "invoice" || phase === "paying" || phase === "loading";
  const price = describePrice(endpoint);
  const problemFor = (key: string) => problems.find((p) => p.key === key)?.message;
  const panelId = `${uid}-panel`;
  const sendLabel =
    model === null
      ? "Send"
      : isSessionModel && session
        ? "Send (session token)"
        : model === "per_request" && credit
          ? "Send (pay from credit)"
          : `Send (pay ${formatSats(endpoint.priceSats)})`;

  return (
    <section aria-label={`Try ${endpoint.method} ${endpoint.path}`} className="rounded-xl border border-line bg-surface-subtle">
      <h4 className="sr-only">Try it</h4>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="flex w-full items-center justify-between gap-3 rounded-xl px-4 py-3 text-left text-sm font-semibold hover:bg-surface focus-visible:outline-2 focus-visible:outline-accent-ring"
      >
        <span>Try it</span>
        <span className="font-normal text-muted">{open ? "Hide" : price}</span>
      </button>
      <div id={panelId} hidden={!open} className="space-y-4 border-t border-line px-4 py-4">
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void send("call");
          }}
          className="space-y-3"
        >
          {form.fields.map((field) => {
            const id = `${uid}-${field.key}`;
            const problem = problemFor(field.key);
            return (
              <div key={field.key}>
                <label htmlFor={id} className="flex flex-wrap items-baseline gap-x-2 text-sm">
                  <code className="font-mono text-[13px] font-medium">{field.name}</code>
                  <span className="text-xs text-muted">
                    {field.in} · {field.type}
                    {field.required ? " · required" : ""}
                  </span>
                </label>
                <input
                  id={id}
                  name={field.name}
                  value={form.values[field.key] ?? ""}
                  required={field.required}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? `${id}-problem` : field.description ? `${id}-hint` : undefined}
                  onChange={(e) => setForm((f) => ({ ...f, values: { ...f.values, [field.key]: e.target.value } }))}
                  className="mt-1 w-full rounded-lg border border-line-strong bg-surface px-3 py-2 font-mono text-sm focus-visible:outline-2 focus-visible:outline-accent-ring"
                />
                {problem ? (
                  <p id={`${id}-problem`} className="mt-1 text-xs text-rose-700 dark:text-rose-300">
                    {problem}
                  </p>
                ) : field.description ? (
                  <p id={`${id}-hint`} className="mt-1 text-xs text-muted">
                    {field.description}
                  </p>
                ) : null}
              </div>
            );
          })}
          {form.body !== null ? (
            <div>
              <label htmlFor={`${uid}-body`} className="text-sm font-medium">
                JSON body
              </label>
              <textarea
                id={`${uid}-body`}
                value={form.body}
                rows={Math.min(12, Math.max(3, form.body.split("\n").length))}
                aria-invalid={problemFor("body") ? true : undefined}
                aria-describedby={problemFor("body") ? `${uid}-body-problem` : undefined}
                onChange={(e) => setForm((f) => ({ ...f, body: e.target.value }))}
                className="mt-1 w-full rounded-lg border border-line-strong bg-surface px-3 py-2 font-mono text-sm focus-visible:outline-2 focus-visible:outline-accent-ring"
              />
              {problemFor("body") ? (
                <p id={`${uid}-body-problem`} className="mt-1 text-xs text-rose-700 dark:text-rose-300">
                  {problemFor("body")}
                </p>
              ) : null}
            </div>
          ) : null}
          {form.fields.length === 0 && form.body === null ? <p className="text-sm text-muted">This endpoint takes no parameters.</p> : null}

          <p className="text-sm">
            <span className="text-muted">Price: </span>
            <span className="font-medium">{price}</span>
            {isSessionModel && session ? (
              <span className="text-muted">
                {" "}
                · session active{session.balance !== null ? `, balance ${session.balance}` : ""}
                {session.expiresAt ? `, until ${new Date(session.expiresAt).toLocaleTimeString()}` : ""}
              </span>
            ) : null}
            {model === "per_request" && credit ? (
              <span className="text-muted"> · credit {credit.balanceSats === null ? `of ${formatSats(credit.boughtSats)}` : `left: ${formatSats(credit.balanceSats)}`}</span>
            ) : null}
          </p>

          <div className="flex flex-wrap items-center gap-2">
            <button
              type="submit"
              disabled={busy}
              className="rounded-lg bg-accent px-4 py-2 text-sm font-semibold text-white hover:opacity-90 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-ring disabled:opacity-50 dark:text-zinc-950"
            >
              {sendLabel}
            </button>
            {endpoint.freeTryEnabled && signedIn && model !== null ? (
              <button
                type="button"
                disabled={busy}
                onClick={() => void send("free_try")}
                className="rounded-lg border border-line-strong px-3 py-2 text-sm font-medium hover:bg-surface disabled:opacity-50"
              >
                Free try
              </button>
            ) : null}
            {busy || phase === "streaming" ? null : session && isSessionModel ? (
              <button
                type="button"
                onClick={() => {
                  const store = storage();
                  if (store) forget(store, sKey);
                  setSession(null);
                }}
                className="rounded-lg px-3 py-2 text-sm text-muted hover:text-foreground"
              >
                Forget session
              </button>
            ) : null}
            {busy ? (
              <button type="button" onClick={cancel} className="rounded-lg px-3 py-2 text-sm font-medium text-muted hover:text-foreground">
                Cancel
              </button>
            ) : null}
          </div>
        </form>

        {model === "per_request" ? (
          <details className="rounded-lg border border-line bg-surface px-3 py-2 text-sm">
            <summary className="cursor-pointer font-medium">Buy prepaid credit</summary>
            <p className="mt-2 text-muted">
              Pay once and spend it on this API&apos;s per-request endpoints during this visit; each call burns its own price. Unused credit is
              not refunded.
            </p>
            <div className="mt-2 flex flex-wrap items-end gap-2">
              <div>
                <label htmlFor={`${uid}-credit`} className="block text-xs text-muted">
                  Credit in sats
                </label>
                <input
                  id={`${uid}-credit`}
                  inputMode="numeric"
                  value={creditAmount}
                  onChange={(e) => setCreditAmount(e.target.value)}
                  className="mt-1 w-32 rounded-lg border border-line-strong bg-surface px-3 py-1.5 font-mono text-sm"
                />
              </div>
              <button
                type="button"
                disabled={busy || !/^[1-9][0-9]*$/.test(creditAmount.trim())}
                onClick={() => void send("buy_credit")}
                className="rounded-lg border border-line-strong px-3 py-1.5 text-sm font-medium hover:bg-surface-subtle disabled:opacity-50"
              >
                Buy credit and send
              </button>
            </div>
          </details>
        ) : null}

        <p aria-live="polite" role="status" className="sr-only">
          {announcement}
        </p>

        {phase === "sending" ? <p className="text-sm text-muted">Sending…</p> : null}

        {challenge && (phase === "invoice" || phase === "paying" || phase === "loading") ? (
          <div className="space-y-3">
            <ol aria-label="Payment steps" className="flex flex-wrap gap-2 text-xs">
              {(["invoice", "paying", "loading"] as const).map((step, i) => {
                const order = ["invoice", "paying", "loading"];
                const current = order.indexOf(phase);
                const state = i < current ? "done" : i === current ? "current" : "next";
                return (
                  <li
                    key={step}
                    aria-current={state === "current" ? "step" : undefined}
                    className={`rounded-full px-2.5 py-1 font-medium ${
                      state === "current" ? "bg-accent-soft text-accent" : state === "done" ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-400/10 dark:text-emerald-300" : "text-muted"
                    }`}
                  >
                    {i + 1}. {stepLabels[step]}
                    {state === "done" ? " ✓" : ""}
                  </li>
                );
              })}
            </ol>
            {phase === "loading" ? (
              <p className="text-sm text-muted">Paid. Calling the API with the proof…</p>
            ) : (
              <InvoicePanel
                challenge={challenge}
                channel={channel}
                hasWebln={hasWebln}
                devWallet={devWallet}
                onPayWithWebln={() => void payWithWebln(challenge)}
                onPayWithDevWallet={() => void payWithDevWallet(challenge)}
                onPreimage={(preimage) => payment.current?.resolve(preimage)}
                onCancel={cancel}
              />
            )}
          </div>
        ) : null}

        {phase === "error" && error ? (
          <p role="alert" className="rounded-lg border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-400/30 dark:bg-rose-400/10 dark:text-rose-200">
            {error}
          </p>
        ) : null}

        {shown ? (
          <ResponseView shown={shown}>
            {shown.streaming ? <StreamViewer events={events} stop={streamStop} running={phase === "streaming"} onStop={cancel} /> : null}
          </ResponseView>
        ) : null}
      </div>
    </section>
  );
}

function ResponseView({ shown, children }: { shown: Shown; children?: ReactNode }) {
  const ok = shown.status < 400;
  return (
    <div aria-label="Response" role="region" className="space-y-3">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <span
          className={`rounded-md px-2 py-0.5 font-mono text-xs font-semibold ${
            ok ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-400/15 dark:text-emerald-300" : "bg-rose-100 text-rose-900 dark:bg-rose-400/15 dark:text-rose-300"
          }`}
        >
          {shown.status} {shown.statusText}
        </span>
        <span className="text-muted">
          Took {formatElapsed(shown.elapsedMs)}
          {shown.paidSats !== null ? ` (${formatElapsed(shown.totalMs)} with paying ${formatSats(shown.paidSats)})` : ""}
        </span>
      </div>
      {shown.note ? <p className="text-sm text-muted">{shown.note}</p> : null}
      {shown.headers.length ? (
        <dl aria-label="Response headers" className="grid grid-cols-1 gap-x-4 gap-y-1 rounded-lg border border-line bg-surface px-3 py-2 font-mono text-xs sm:grid-cols-[max-content_minmax(0,1fr)]">
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
    </div>
  );
}
