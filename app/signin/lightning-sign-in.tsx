"use client";
// "Sign in with Lightning" (LNURL-auth, LUD-04): a QR code of the LNURL for a phone wallet, a
// WebLN `lnurl()` button for a browser wallet, and on dev installs a "dev wallet" button. The page
// polls until the k1 is signed; the poll then sets the session cookie and we go on.
import { QRCodeSVG } from "qrcode.react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useBrowserValue } from "@/app/components/use-browser-value.ts";

type Challenge = { k1: string; lnurl: string; expiresAt: string };
type WebLN = { enable(): Promise<void>; lnurl(lnurl: string): Promise<unknown> };

const POLL_MS = 1_500;

async function postJson<T>(url: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(json?.error?.message ?? `Request failed (${res.status})`);
  return json as T;
}

export function LightningSignIn({ callbackUrl, devWallet }: { callbackUrl: string; devWallet: boolean }) {
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [message, setMessage] = useState<{ kind: "info" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const hasWebln = useBrowserValue(() => "webln" in window, false);
  const done = useRef(false);

  const fresh = useCallback(async () => {
    try {
      setChallenge(await postJson<Challenge>("/api/lnurl-auth/challenge"));
    } catch (err) {
      setMessage({ kind: "error", text: (err as Error).message });
    }
  }, []);

  useEffect(() => {
    // The first challenge, fetched once on mount: `fresh` sets state only after its request answers.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void fresh();
  }, [fresh]);

  useEffect(() => {
    if (!challenge) return;
    let timer: ReturnType<typeof setTimeout>;
    let stopped = false;
    const poll = async () => {
      try {
        const res = await fetch(`/api/lnurl-auth/status?k1=${challenge.k1}`, { cache: "no-store" });
        const { status } = (await res.json()) as { status: string };
        if (stopped) return;
        if (status === "signed") {
          done.current = true;
          setMessage({ kind: "info", text: "Signed in. Opening your dashboard…" });
          window.location.assign(callbackUrl);
          return;
        }
        if (status === "expired" || status === "unknown") {
          void fresh();
          return;
        }
      } catch {
        // A missed poll is retried on the next tick.
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [challenge, callbackUrl, fresh]);

  async function withWebln() {
    if (!challenge) return;
    const webln = (window as unknown as { webln?: WebLN }).webln;
    if (!webln) return;
    setBusy(true);
    setMessage(null);
    try {
      await webln.enable();
      await webln.lnurl(challenge.lnurl);
      setMessage({ kind: "info", text: "Waiting for your wallet to sign…" });
    } catch (err) {
      setMessage({ kind: "error", text: `Your wallet did not sign: ${(err as Error).message}` });
    } finally {
      setBusy(false);
    }
  }

  async function withDevWallet() {
    if (!challenge) return;
    setBusy(true);
    setMessage(null);
    try {
      await postJson("/api/dev/lnurl-auth", { k1: challenge.k1 });
      setMessage({ kind: "info", text: "Dev wallet signed. Signing you in…" });
    } catch (err) {
      setMessage({ kind: "error", text: (err as Error).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="lightning-heading" className="card flex flex-col gap-4">
      <div>
        <h2 id="lightning-heading" className="font-semibold">
          Sign in with Lightning
        </h2>
        <p className="mt-1 text-sm text-muted">Scan with a wallet that supports LNURL-auth. No e-mail, no password: your wallet signs a one-time challenge.</p>
      </div>
      {challenge ? (
        <div className="flex flex-col items-center gap-3">
          <a href={`lightning:${challenge.lnurl}`} className="rounded-lg bg-white p-3" aria-label="Open the sign-in request in a Lightning wallet">
            <QRCodeSVG value={challenge.lnurl} size={208} marginSize={0} title="LNURL-auth QR code" />
          </a>
          <details className="w-full text-xs text-muted">
            <summary className="cursor-pointer">Show the LNURL</summary>
            <p className="mt-2 font-mono break-all select-all">{challenge.lnurl}</p>
          </details>
        </div>
      ) : (
        <p className="text-sm text-muted" aria-live="polite">
          Preparing a challenge…
        </p>
      )}
      <div className="flex flex-col gap-2">
        {hasWebln ? (
          <button type="button" className="btn-secondary" onClick={withWebln} disabled={!challenge || busy}>
            Sign in with browser wallet (WebLN)
          </button>
        ) : null}
        {devWallet ? (
          <button type="button" className="btn-secondary" onClick={withDevWallet} disabled={!challenge || busy}>
            Sign in with the dev wallet
          </button>
        ) : null}
      </div>
      <p role={message?.kind === "error" ? "alert" : "status"} className={`min-h-5 text-sm ${message?.kind === "error" ? "text-danger" : "text-muted"}`}>
        {message?.text ?? ""}
      </p>
    </section>
  );
}
