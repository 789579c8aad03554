"use client";
// "Try it" on an API page: a form built from the endpoint's parameters and example, the price
// before paying, and a Send button that calls the gateway straight from the browser through the
// SDK's L402 client (useTryIt). A 402 is paid with WebLN when the browser has it, else by QR code
// (settlement learned through /api/l402/settlement) or the dev wallet. Session tokens and prepaid
// credit are kept in sessionStorage for the page session and reused. Streams are read live
// (StreamViewer). A JSON answer holding geometry is drawn on a map (ResponseMap) over the API's
// basemap when it documents one. Rendered only once JavaScript runs: no dead buttons.
import { useId, useState } from "react";
import { describePrice, formatSats } from "@/lib/pricing/describe-price.ts";
import { isSessionModel, type PricingModel } from "@/lib/pricing/quote.ts";
import { buildTryItForm, buildTryItRequest, type TryItEndpoint, type TryItProblem } from "@/lib/try-it/build-request.ts";
import { isBusy, paymentStep } from "@/lib/try-it/try-it-run.ts";
import { CreditPurchase } from "./credit-purchase.tsx";
import { InvoicePanel } from "@/app/components/invoice-panel.tsx";
import { PaymentSteps } from "./payment-steps.tsx";
import { RequestFields } from "./request-fields.tsx";
import { ResponseMap } from "./response-map.tsx";
import { ResponseView } from "./response-view.tsx";
import { StreamViewer } from "./stream-viewer.tsx";
import { useTryIt, type TryItMode } from "./use-try-it.ts";

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
  /** The API's free basemap endpoint (findBasemapPath): the background of answers drawn on a map. */
  basemapPath?: string | null;
};

export function TryIt({ endpoint, gatewayBase, devWallet, signedIn, basemapPath = null }: TryItProps) {
  const uid = useId();
  const [open, setOpen] = useState(false);
  const [form, setForm] = useState(() => buildTryItForm(endpoint));
  const [problems, setProblems] = useState<TryItProblem[]>([]);
  const tryIt = useTryIt({ endpoint, gatewayBase, devWallet });
  const { run, held, wallet } = tryIt;

  // The wallet exists once the page has mounted in a browser.
  if (!wallet) return null;

  function submit(mode: TryItMode, creditSats?: number) {
    const built = buildTryItRequest(gatewayBase, endpoint, form);
    if (!built.ok) {
      setProblems(built.problems);
      tryIt.announce(`Fix ${built.problems.length === 1 ? "one field" : `${built.problems.length} fields`} before sending`);
      return;
    }
    setProblems([]);
    void tryIt.send({ mode, request: built.request, creditSats });
  }

  const model = endpoint.pricingModel;
  const session = isSessionModel(model) ? held.session : null;
  const credit = model === "per_request" ? held.credit : null;
  const busy = isBusy(run);
  const price = describePrice(endpoint);
  const panelId = `${uid}-panel`;
  const geometry = run.shown?.geometry ?? null;
  const sendLabel =
    model === null ? "Send" : session ? "Send (session token)" : credit ? "Send (pay from credit)" : `Send (pay ${formatSats(endpoint.priceSats)})`;

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
            submit("call");
          }}
          className="space-y-3"
        >
          <RequestFields uid={uid} form={form} problems={problems} onChange={setForm} />

          <p className="text-sm">
            <span className="text-muted">Price: </span>
            <span className="font-medium">{price}</span>
            {session ? (
              <span className="text-muted">
                {" "}
                · session active{session.balance !== null ? `, balance ${session.balance}` : ""}
                {session.expiresAt ? `, until ${new Date(session.expiresAt).toLocaleTimeString()}` : ""}
              </span>
            ) : null}
            {credit ? <span className="text-muted"> · credit {credit.balanceSats === null ? "bought" : `left: ${formatSats(credit.balanceSats)}`}</span> : null}
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
                onClick={() => submit("free_try")}
                className="rounded-lg border border-line-strong px-3 py-2 text-sm font-medium hover:bg-surface disabled:opacity-50"
              >
                Free try
              </button>
            ) : null}
            {busy || run.phase === "streaming" ? null : session ? (
              <button type="button" onClick={tryIt.forgetSession} className="rounded-lg px-3 py-2 text-sm text-muted hover:text-foreground">
                Forget session
              </button>
            ) : null}
            {busy ? (
              <button type="button" onClick={tryIt.cancel} className="rounded-lg px-3 py-2 text-sm font-medium text-muted hover:text-foreground">
                Cancel
              </button>
            ) : null}
          </div>
        </form>

        {model === "per_request" ? (
          <CreditPurchase uid={uid} initialSats={Math.max(endpoint.priceSats * 10, 10)} disabled={busy} onBuy={(sats) => submit("buy_credit", sats)} />
        ) : null}

        <p aria-live="polite" role="status" className="sr-only">
          {tryIt.announcement}
        </p>

        {run.phase === "sending" ? <p className="text-sm text-muted">Sending…</p> : null}

        {run.payment ? (
          <div className="space-y-3">
            <PaymentSteps current={paymentStep(run.payment)} />
            {paymentStep(run.payment) === "loading" ? (
              <p className="text-sm text-muted">Paid. Calling the API with the proof…</p>
            ) : (
              <InvoicePanel
                payment={run.payment}
                hasWebln={tryIt.hasWebln}
                devWallet={devWallet}
                onPayWithWebln={wallet.payWithWebln}
                onPayWithDevWallet={wallet.payWithDevWallet}
                onPreimage={wallet.acceptPreimage}
                onCancel={tryIt.cancel}
              />
            )}
          </div>
        ) : null}

        {run.phase === "error" && run.error ? (
          <p
            role="alert"
            className="rounded-lg border border-rose-300 bg-rose-50 px-3 py-2 text-sm text-rose-900 dark:border-rose-400/30 dark:bg-rose-400/10 dark:text-rose-200"
          >
            {run.error}
          </p>
        ) : null}

        {run.shown ? (
          <ResponseView
            shown={run.shown}
            map={
              geometry ? (
                <ResponseMap
                  geometry={geometry}
                  gatewayBase={gatewayBase}
                  // The basemap's own answer is drawn as it is, not over a second copy of itself.
                  basemapPath={basemapPath !== endpoint.path ? basemapPath : null}
                />
              ) : null
            }
          >
            {run.shown.streaming ? (
              <StreamViewer events={run.events} keepAlives={run.keepAlives} stop={run.streamStop} running={run.phase === "streaming"} onStop={tryIt.cancel} />
            ) : null}
          </ResponseView>
        ) : null}
      </div>
    </section>
  );
}
