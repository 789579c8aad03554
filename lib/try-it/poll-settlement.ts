// How try-it learns that a QR-shown invoice was paid from another wallet: it polls
// POST /api/l402/settlement with the challenge's macaroon (docs/decisions.md "Settlement for QR
// payers") with backoff, until it gets the preimage, the invoice lapses, time runs out or the
// visitor cancels. Browser-safe; fetch and sleep are injected for tests.
import type { SettlementResponse } from "@/lib/payments/settlement-schemas.ts";

export type SettlementPollTiming = { firstDelayMs: number; factor: number; maxDelayMs: number; timeoutMs: number };

/** First check after 1 s, then ×1.5 up to 5 s apart; give up after 10 minutes (the invoice expiry). */
export const SETTLEMENT_POLL: SettlementPollTiming = { firstDelayMs: 1000, factor: 1.5, maxDelayMs: 5000, timeoutMs: 600_000 };

/** Why polling ended without a preimage. */
export type SettlementPollFailure = "expired" | "canceled" | "timeout" | "aborted" | "no_preimage" | "refused";

export type SettlementPollResult = { ok: true; preimage: string } | { ok: false; reason: SettlementPollFailure; message: string };

export type PollSettlementOptions = {
  macaroon: string;
  /** Address of the settlement route, e.g. "/api/l402/settlement". */
  url?: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  timing?: Partial<SettlementPollTiming>;
};

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The next wait: the previous one times the factor, capped; a server's Retry-After wins when longer. */
export function nextDelay(previousMs: number, timing: SettlementPollTiming, retryAfterSeconds?: number): number {
  const backoff = Math.min(timing.maxDelayMs, Math.round(previousMs * timing.factor));
  return retryAfterSeconds ? Math.max(backoff, retryAfterSeconds * 1000) : backoff;
}

/** Polls until the invoice is settled (preimage) or polling must end; never throws. */
export async function pollSettlement(options: PollSettlementOptions): Promise<SettlementPollResult> {
  const timing: SettlementPollTiming = { ...SETTLEMENT_POLL, ...options.timing };
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? sleepFor;
  const now = options.now ?? (() => Date.now());
  const deadline = now() + timing.timeoutMs;
  const aborted = (): SettlementPollResult => ({ ok: false, reason: "aborted", message: "Stopped waiting for the payment." });
  let delay = timing.firstDelayMs;
  while (true) {
    await sleep(delay, options.signal);
    if (options.signal?.aborted) return aborted();
    if (now() >= deadline) return { ok: false, reason: "timeout", message: "No payment arrived in time. Send the request again for a fresh invoice." };
    let retryAfter: number | undefined;
    try {
      const res = await doFetch(options.url ?? "/api/l402/settlement", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ macaroon: options.macaroon }),
        signal: options.signal,
      });
      if (res.ok) {
        const settlement = (await res.json()) as SettlementResponse;
        if (settlement.state === "settled") {
          if (settlement.preimage) return { ok: true, preimage: settlement.preimage };
          return {
            ok: false,
            reason: "no_preimage",
            message: "The invoice is paid, but the provider's wallet does not report preimages. Paste the preimage your wallet shows.",
          };
        }
        if (settlement.state === "expired")
          return { ok: false, reason: "expired", message: "The invoice expired unpaid. Send the request again for a fresh one." };
        if (settlement.state === "canceled") return { ok: false, reason: "canceled", message: "The provider's wallet canceled the invoice." };
      } else if (res.status === 401 || res.status === 404) {
        return { ok: false, reason: "refused", message: "This hub does not know the challenge; send the request again." };
      } else if (res.status === 429) {
        const body = (await res.json().catch(() => null)) as { error?: { details?: { retryAfterSeconds?: number } } } | null;
        retryAfter = body?.error?.details?.retryAfterSeconds;
      }
      // Other statuses (a wallet briefly down) are retried with backoff.
    } catch {
      if (options.signal?.aborted) return aborted();
      // A network blip: try again after the next delay.
    }
    delay = nextDelay(delay, timing, retryAfter);
  }
}
