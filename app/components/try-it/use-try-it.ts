// The try-it run behind the API page's panel: the SDK's L402 client (@l402-hub/sdk/client) makes the
// call and pays any 402 through the visitor wallet (WebLN, QR code + settlement polling, dev
// wallet, pasted preimage); session tokens and credit stay in sessionStorage for the page session.
// The component gets one state (lib/try-it/try-it-run.ts) and the actions.
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import {
  memoryCredentialStore,
  webStorageCredentialStore,
  type L402CredentialStore,
  L402EventStream,
  createL402Client,
  type L402Client,
} from "@l402-hub/sdk/client";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import type { PricingModel } from "@/lib/pricing/quote.ts";
import type { TryItRequest } from "@/lib/try-it/build-request.ts";
import { conditionalHeaders, rememberEtag, type RememberedEtags } from "@/lib/try-it/conditional-request.ts";
import { readHeldCredentials, TRY_IT_STORAGE_PREFIX, tryItCreditProvider, tryItSessionScope, type HeldCredentials } from "@/lib/try-it/held-credentials.ts";
import { describeStopReason, LIVE_VIEWER_LIMITS, watchLiveStream } from "@/lib/try-it/live-viewer.ts";
import { responseGeometryFromText } from "@/lib/try-it/response-geometry.ts";
import { explainStatus, formatResponseBody, headersThatMatter } from "@/lib/try-it/response-summary.ts";
import { idleTryItRun, tryItRunReducer, type TryItRun } from "@/lib/try-it/try-it-run.ts";
import { createVisitorWallet, type VisitorPayment, type VisitorWallet } from "@/lib/try-it/visitor-wallet.ts";

/** What Send does: an ordinary call, a call that buys prepaid credit first, or the free try. */
export type TryItMode = "call" | "buy_credit" | "free_try";

export type UseTryItOptions = {
  endpoint: { method: string; path: string; pricingModel: PricingModel | null; streaming: boolean };
  /** The tenant's gateway base address. */
  gatewayBase: string;
  /** The dev Lightning node is on: the visitor wallet may pay through it. */
  devWallet: boolean;
};

export type TryItSend = { mode: TryItMode; request: TryItRequest; creditSats?: number };

export type TryIt = {
  run: TryItRun;
  /** The screen-reader announcement of the latest step. */
  announcement: string;
  announce: (text: string) => void;
  /** The session and credit the next call would present. */
  held: HeldCredentials;
  /** The page has a WebLN provider (offer "Pay with WebLN wallet"). */
  hasWebln: boolean;
  /** The open invoice's ways to pay; null before the page has mounted. */
  wallet: VisitorWallet | null;
  send: (what: TryItSend) => Promise<void>;
  /** Stops the run: the payment, the call or the stream. */
  cancel: () => void;
  forgetSession: () => void;
};

/** The page's browser-side pieces, made once when it mounts. */
type Tools = { client: L402Client; wallet: VisitorWallet; store: L402CredentialStore };

const noneHeld: HeldCredentials = { session: null, credit: null };

function sessionStorageOrNull(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** What the screen reader hears as the payment moves on; null when nothing new is worth saying. */
function paymentAnnouncement(payment: VisitorPayment): string | null {
  switch (payment.channel.kind) {
    case "waiting":
      return `Payment required: an invoice for ${formatSats(payment.invoice.amountSats)}`;
    case "webln":
      return "Paying with your WebLN wallet";
    case "dev":
      return "Paying with the dev wallet";
    case "paid":
      return "Paid. Loading the response";
    case "failed":
      return payment.channel.via === "webln" ? "The WebLN payment was rejected" : null;
  }
}

async function freeTryToken(signal: AbortSignal): Promise<string> {
  const res = await fetch("/api/free-try/token", { cache: "no-store", signal });
  if (!res.ok) throw new Error(res.status === 401 ? "Sign in to use the free try." : `Could not get a free-try token (status ${res.status}).`);
  return ((await res.json()) as { token: string }).token;
}

/** The try-it run of one endpoint: state for the panel and the actions its buttons take. */
export function useTryIt({ endpoint, gatewayBase, devWallet }: UseTryItOptions): TryIt {
  const [run, dispatch] = useReducer(tryItRunReducer, idleTryItRun);
  const [announcement, announce] = useState("");
  const [held, setHeld] = useState<HeldCredentials>(noneHeld);
  const [hasWebln, setHasWebln] = useState(false);
  const [tools, setTools] = useState<Tools | null>(null);
  const current = useRef<AbortController | null>(null);
  /** When the call that answered started (the client retries after paying; the last one counts). */
  const attemptStartedAt = useRef(0);
  /** ETags of earlier answers by URL: a repeat sends If-None-Match (conditional-request.ts). */
  const etags = useRef<RememberedEtags>(new Map());

  const model = endpoint.pricingModel;
  const scope = tryItSessionScope(gatewayBase, endpoint.method, endpoint.path);
  const provider = model === "per_request" ? tryItCreditProvider(gatewayBase) : null;

  const refreshHeld = useCallback((store: L402CredentialStore) => setHeld(readHeldCredentials(store, { scope, provider })), [scope, provider]);

  useEffect(() => {
    const storage = sessionStorageOrNull();
    const store = storage ? webStorageCredentialStore({ storage, prefix: TRY_IT_STORAGE_PREFIX }) : memoryCredentialStore();
    const wallet = createVisitorWallet({
      devPayUrl: devWallet ? "/api/dev/lightning/pay" : null,
      onChange: (payment) => {
        dispatch({ type: "payment", payment });
        const text = payment && paymentAnnouncement(payment);
        if (text) announce(text);
      },
    });
    const client = createL402Client({
      wallet,
      credentials: store,
      // The visitor approves each invoice (or their wallet asks them): no budget of our own.
      budgetSats: Number.MAX_SAFE_INTEGER,
      // Show what the gateway answered rather than retrying behind the visitor's back.
      upstreamRetries: 0,
      rateLimitRetries: 0,
      returnRateLimited: true,
      fetch: (input, init) => {
        attemptStartedAt.current = performance.now();
        return fetch(input, init);
      },
      // A held token the gateway refused is gone before its fresh 402 is paid: stop offering it.
      onEvent: (event) => {
        if (event.type === "credential_dropped") setHeld(readHeldCredentials(store, { scope, provider }));
      },
    });
    setTools({ client, wallet, store });
    setHeld(readHeldCredentials(store, { scope, provider }));
    setHasWebln(typeof (window as { webln?: unknown }).webln === "object" && (window as { webln?: unknown }).webln !== null);
    return () => current.current?.abort();
  }, [devWallet, scope, provider]);

  async function send({ mode, request, creditSats }: TryItSend): Promise<void> {
    if (!tools) return;
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    const { signal } = controller;
    const startedAt = performance.now();
    dispatch({ type: "started" });
    announce("Sending the request");
    try {
      // The form's own If-None-Match wins over the remembered one.
      const revalidate = Object.keys(request.headers).some((h) => h.toLowerCase() === "if-none-match")
        ? {}
        : conditionalHeaders(etags.current, request.method, request.url);
      const headers = { ...revalidate, ...request.headers };
      if (mode === "free_try") headers.authorization = `Bearer ${await freeTryToken(signal)}`;
      const { response, paidSats } = await tools.client.request(request.url, {
        method: request.method,
        headers,
        body: request.body ?? undefined,
        signal,
        cache: "no-store",
        l402: {
          sessionScope: scope,
          pricingModel: model ?? undefined,
          creditSats: mode === "buy_credit" ? creditSats : undefined,
          // The free try and a credit purchase never spend what is held; a plain call does.
          reuseCredentials: mode === "call",
        },
      });
      refreshHeld(tools.store);
      const isStream =
        endpoint.streaming && response.ok && (response.headers.get("content-type") ?? "").includes("text/event-stream") && response.body !== null;
      const text = isStream ? null : await response.text();
      if (current.current !== controller) return;
      etags.current = rememberEtag(etags.current, request.url, response.status, response.headers.get("etag"));
      const now = performance.now();
      dispatch({
        type: "answered",
        shown: {
          status: response.status,
          statusText: response.statusText,
          headers: headersThatMatter(response.headers),
          note: explainStatus(response.status, response.headers),
          sentIfNoneMatch: revalidate["if-none-match"] ?? null,
          body: text === null ? null : formatResponseBody(text),
          // From the whole text, not the shown (possibly cut) one; the request adds the asked-about points.
          geometry: text !== null && response.ok ? responseGeometryFromText(text, request.body) : null,
          elapsedMs: now - attemptStartedAt.current,
          totalMs: now - startedAt,
          paidSats: paidSats > 0 ? paidSats : null,
          streaming: isStream,
        },
      });
      announce(isStream ? `Status ${response.status}. Streaming events` : `Response received: status ${response.status}`);
      if (!isStream) return;
      // The run's signal also stops the stream (Stop, Cancel, a new Send, leaving the page).
      const openedAt = performance.now();
      const stream = new L402EventStream(
        response,
        { ...LIVE_VIEWER_LIMITS, signal, onComment: () => dispatch({ type: "keep_alive", atMs: performance.now() - openedAt }) },
        paidSats,
      );
      const stop = await watchLiveStream(stream, { onEvent: (event) => dispatch({ type: "event", event }) });
      // A new Send stopped this stream: the new run owns the panel now.
      if (current.current !== controller) return;
      dispatch({ type: "stream_ended", stop });
      announce(describeStopReason(stop.reason));
    } catch (err) {
      // A stored token the gateway refused may have been dropped on the way.
      refreshHeld(tools.store);
      if (current.current !== controller) return;
      if (signal.aborted) {
        dispatch({ type: "canceled" });
        announce("Canceled");
        return;
      }
      const message =
        err instanceof TypeError
          ? `Could not reach the gateway at ${gatewayBase} (network error or blocked by the browser).`
          : err instanceof Error
            ? err.message
            : String(err);
      dispatch({ type: "failed", message });
      announce(`Error: ${message}`);
    }
  }

  return {
    run,
    announcement,
    announce,
    held,
    hasWebln,
    wallet: tools?.wallet ?? null,
    send,
    cancel: () => current.current?.abort(),
    forgetSession: () => {
      if (!tools) return;
      tools.store.deleteSession(scope);
      refreshHeld(tools.store);
    },
  };
}
