// The L402 client (spec 1.2, 2.3, 3.3, 4.1, 7.2): a fetch that pays 402 challenges through a wallet
// adapter within a budget and a per-request maximum, keeps session tokens per endpoint and prepaid
// credit per provider (in a pluggable store), retries free after `upstream_failed_retryable`, honours
// 429 Retry-After and never pays twice for one request. Browser-safe: fetch, crypto.subtle and
// TextEncoder only.
import { credentialHeaderValue, parseChallenge } from "./l402-headers.ts";
import { decodeBolt11Amount } from "./bolt11-amount.ts";
import { memoryCredentialStore, type L402CredentialStore } from "./credential-store.ts";
import { L402Error } from "./errors.ts";
import { L402EventStream, type EventStreamWindow } from "./event-stream.ts";
import { paymentHashOf, type L402Wallet } from "./wallet.ts";

/** Spec 2.2's pricing models. */
export type PricingModelName = "per_request" | "per_kb" | "token_bucket" | "time_pass" | "metered";

/** Per-call options, passed as `init.l402`. */
export type L402RequestOptions = {
  /** Buy (or reuse) this much prepaid credit for the provider's per_request endpoints (`X-Hub-Credit`). */
  creditSats?: number;
  /** The endpoint's pricing model when known (from OpenAPI `x-l402-pricing`); saves a round trip with credit. */
  pricingModel?: PricingModelName | null;
  /** Lowers maxPerRequestSats for this call. */
  maxPriceSats?: number;
  /**
   * The key sessions are cached under, for endpoints with path parameters (one session covers the
   * endpoint template, e.g. `GET https://gw/gw/x/v1/entity/{address}`); default method + URL path.
   */
  sessionScope?: string;
  /**
   * false: present no session token or credit the client holds (a free try carrying the caller's
   * own Authorization, or buying new credit while old credit remains); what this call buys is
   * still kept, and replaces what was held. Default true.
   */
  reuseCredentials?: boolean;
};

/** `fetch`'s init plus the L402 options. */
export type L402RequestInit = RequestInit & { l402?: L402RequestOptions };

/** One payment the client made. */
export type L402Payment = {
  url: string;
  amountSats: number;
  paymentHash: string | null;
  /** `request`: a per_request proof; `session`: a session model's purchase; `credit`: prepaid credit. */
  purpose: "request" | "session" | "credit";
  model: PricingModelName | null;
  at: string;
};

/** What the client reports as it works (for logs and UIs); listeners must not throw. */
export type L402ClientEvent =
  | { type: "challenge"; url: string; amountSats: number; model: PricingModelName | null; creditSats: number | null }
  | { type: "paid"; payment: L402Payment }
  | { type: "session"; url: string; scope: string; balance: number | null; expiresAt: string | null }
  | { type: "credential_dropped"; url: string; kind: "session" | "credit"; status: number }
  | { type: "retry"; url: string; reason: "upstream_failed_retryable" | "rate_limited" | "proof_in_use"; waitMs: number }
  | { type: "refused"; url: string; error: L402Error };

export type L402ClientOptions = {
  wallet: L402Wallet;
  /** Total sats this client may spend over its lifetime. */
  budgetSats: number;
  /** Most sats one payment may cost (credit purchases included); default: the budget. */
  maxPerRequestSats?: number;
  /** Buy this much credit for per_request endpoints by default (per call: `init.l402.creditSats`). */
  creditSats?: number;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
  onEvent?: (event: L402ClientEvent) => void;
  /** Free retries of the same proof after `upstream_failed_retryable` (default 2). */
  upstreamRetries?: number;
  /** Retries after a 429 (default 2). */
  rateLimitRetries?: number;
  /** Longest Retry-After the client waits out; longer ones fail at once (default 10 s). */
  maxRetryAfterMs?: number;
  /**
   * Hand a 429 (or a busy proof's 409) the client will not wait out back as the response instead
   * of throwing `rate_limited`: for UIs that show the response. Default false.
   */
  returnRateLimited?: boolean;
  /** Where session tokens and credit proofs are kept; default in memory, for this client only. */
  credentials?: L402CredentialStore;
};

/** What the next attempt sends. */
type Credential =
  | { kind: "none" }
  | { kind: "session"; token: string }
  | { kind: "credit"; authorization: string }
  | { kind: "buy_credit"; sats: number }
  | { kind: "paid"; authorization: string; credit: boolean };

/** A 402 challenge read from headers and body. */
type Challenge = {
  macaroon: string;
  invoice: string;
  amountSats: number;
  paymentHash: string | null;
  model: PricingModelName | null;
  creditSats: number | null;
};

const SESSION_MODELS = new Set(["per_kb", "token_bucket", "time_pass", "metered"]);
/** Attempts of one request beyond the retries it is allowed: 402 -> pay -> retry, stale credentials, waits for others. */
const EXTRA_ATTEMPTS = 8;

/** True when two credentials would send the same thing. */
function sameCredential(a: Credential, b: Credential): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "session" && b.kind === "session") return a.token === b.token;
  if ((a.kind === "credit" || a.kind === "paid") && (b.kind === "credit" || b.kind === "paid")) return a.authorization === b.authorization;
  if (a.kind === "buy_credit" && b.kind === "buy_credit") return a.sats === b.sats;
  return true;
}

/** `<origin>/gw/<slug>` for the path form, else the origin (subdomain form): credit is scoped to one provider. */
export function providerScope(url: URL): string {
  const prefix = /^\/gw\/[^/]+/.exec(url.pathname);
  return `${url.origin}${prefix ? prefix[0] : ""}`;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function integerHeader(value: string | null): number | null {
  if (value === null || !/^-?\d+$/.test(value.trim())) return null;
  return Number(value.trim());
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** A request body that can be sent more than once (a one-shot stream is read into memory first). */
async function replayableBody(body: BodyInit | null | undefined): Promise<BodyInit | null | undefined> {
  if (typeof ReadableStream !== "undefined" && body instanceof ReadableStream) return new Uint8Array(await new Response(body).arrayBuffer());
  return body;
}

/** The L402 client returned by createL402Client. */
export type L402Client = {
  /** fetch() that pays 402 challenges; resolves with the final response (any status but a handled 402/429). */
  fetch(input: string | URL, init?: L402RequestInit): Promise<Response>;
  /** fetch() that also says what this request paid (the MCP server reports it per tool call). */
  request(input: string | URL, init?: L402RequestInit): Promise<{ response: Response; paidSats: number }>;
  /** Opens an SSE endpoint (paying as fetch does) and reads it within a bounded window. */
  stream(input: string | URL, init?: L402RequestInit & EventStreamWindow): Promise<L402EventStream>;
  /** Sats paid so far. */
  readonly spentSats: number;
  /** Sats still available under the budget (payments in flight count as spent). */
  readonly remainingSats: number;
  readonly budgetSats: number;
  /** Every payment made, oldest first. */
  readonly payments: readonly L402Payment[];
  /** Forgets the session tokens and credit proofs in the client's store. */
  clearCredentials(): void;
};

/** Creates an L402 client paying through `wallet` within `budgetSats`. */
export function createL402Client(options: L402ClientOptions): L402Client {
  if (!Number.isFinite(options.budgetSats) || options.budgetSats < 0) throw new TypeError("budgetSats must be a non-negative number");
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const maxPerRequest = Math.min(options.maxPerRequestSats ?? options.budgetSats, options.budgetSats);
  const upstreamRetries = options.upstreamRetries ?? 2;
  const rateLimitRetries = options.rateLimitRetries ?? 2;
  const maxRetryAfter = options.maxRetryAfterMs ?? 10_000;

  let spent = 0;
  let reserved = 0;
  const payments: L402Payment[] = [];
  const held = options.credentials ?? memoryCredentialStore();
  const models = new Map<string, PricingModelName>();
  /** Purchases other requests may wait for: `session <scope>` and `credit <provider>`. */
  const inflight = new Map<string, Promise<void>>();

  const emit = (event: L402ClientEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // a listener's failure must not change what the client does
    }
  };

  function refuse(url: string, error: L402Error): never {
    emit({ type: "refused", url, error });
    throw error;
  }

  /** Reads and checks the 402's challenge: both the header and the invoice must be usable. */
  async function readChallenge(response: Response, url: string): Promise<Challenge> {
    const parsed = parseChallenge(response.headers.get("www-authenticate") ?? "");
    let body: Record<string, unknown> = {};
    try {
      const json: unknown = await response.json();
      if (json && typeof json === "object" && !Array.isArray(json)) body = json as Record<string, unknown>;
    } catch {
      // the body is informational; the header carries what we need
    }
    if (!parsed) return refuse(url, new L402Error("invalid_challenge", `402 from ${url} without an L402 challenge in WWW-Authenticate`));
    let amountSats: number | null;
    try {
      amountSats = decodeBolt11Amount(parsed.invoice).amountSats;
    } catch (err) {
      return refuse(url, new L402Error("invalid_challenge", `402 from ${url} carries an unreadable invoice: ${(err as Error).message}`));
    }
    if (amountSats === null) return refuse(url, new L402Error("invalid_challenge", `402 from ${url} carries an invoice without an amount`));
    if (typeof body.amountSats === "number" && body.amountSats !== amountSats) {
      return refuse(
        url,
        new L402Error("invalid_challenge", `402 from ${url}: the body says ${body.amountSats} sats but the invoice is for ${amountSats}`, {
          details: { invoiceSats: amountSats, bodySats: body.amountSats },
        }),
      );
    }
    const model = typeof body.model === "string" && SESSION_MODELS.has(body.model) ? (body.model as PricingModelName) : null;
    return {
      macaroon: parsed.macaroon,
      invoice: parsed.invoice,
      amountSats,
      paymentHash: typeof body.paymentHash === "string" ? body.paymentHash : null,
      model,
      creditSats: typeof body.creditSats === "number" ? body.creditSats : null,
    };
  }

  /** One request through the L402 flow; also says what it paid. */
  async function l402Request(input: string | URL, init: L402RequestInit = {}): Promise<{ response: Response; paidSats: number }> {
    const { l402: perCall = {}, ...requestInit } = init;
    const url = new URL(String(input), typeof location === "undefined" ? undefined : location.href);
    const href = url.toString();
    const method = (requestInit.method ?? "GET").toUpperCase();
    const body = await replayableBody(requestInit.body);
    const scope = perCall.sessionScope ?? `${method} ${url.origin}${url.pathname}`;
    const provider = providerScope(url);
    const explicitCredit = perCall.creditSats;
    const defaultCredit = options.creditSats;
    const maxPrice = Math.min(perCall.maxPriceSats ?? maxPerRequest, maxPerRequest);
    const reuse = perCall.reuseCredentials ?? true;
    if (perCall.pricingModel) models.set(scope, perCall.pricingModel);

    let paidSats = 0;
    let upstreamRetried = 0;
    let rateRetried = 0;
    /** Purchases this request leads; resolved when its paid attempt has been answered. */
    const leading: Array<() => void> = [];

    /** The best credential we hold for this request, evicting stale ones. */
    function chooseCredential(): Credential {
      const session = reuse ? held.getSession(scope) : null;
      if (session) {
        if (session.expiresAt === null || session.expiresAt > Date.now()) return { kind: "session", token: session.token };
        held.deleteSession(scope);
      }
      const model = models.get(scope);
      if (model === "per_request" && reuse) {
        const credit = held.getCredit(provider);
        if (credit && (credit.balanceSats === null || credit.balanceSats > 0)) return { kind: "credit", authorization: credit.authorization };
        // Spent to the last sat: nothing will ever accept it again.
        if (credit) held.deleteCredit(provider);
      }
      // An explicit ask is sent at once (the caller knows the endpoint); the default only where it is known to apply.
      const wanted = explicitCredit ?? (model === "per_request" ? defaultCredit : undefined);
      if (wanted !== undefined && (model === undefined || model === "per_request")) return { kind: "buy_credit", sats: wanted };
      return { kind: "none" };
    }

    /** Records what the response says about sessions and credit. */
    function learnFrom(response: Response, credential: Credential): void {
      const balance = integerHeader(response.headers.get("x-session-balance"));
      const usedCredit = credential.kind === "credit" || (credential.kind === "paid" && credential.credit);
      if (usedCredit) {
        const credit = held.getCredit(provider);
        // Only the proof this request used: another may have bought new credit meanwhile.
        if (credit && balance !== null && credit.authorization === credential.authorization) held.setCredit(provider, { ...credit, balanceSats: balance });
        return;
      }
      const token = response.headers.get("x-session-token");
      const expires = response.headers.get("x-session-expires");
      const cached = held.getSession(scope);
      if (token) {
        const expiresAt = expires ? Date.parse(expires) : NaN;
        held.setSession(scope, { token, expiresAt: Number.isNaN(expiresAt) ? null : expiresAt, balance });
        emit({ type: "session", url: href, scope, balance, expiresAt: expires });
      } else if (cached && credential.kind === "session" && cached.token === credential.token && balance !== null) {
        held.setSession(scope, { ...cached, balance });
        emit({ type: "session", url: href, scope, balance, expiresAt: cached.expiresAt === null ? null : new Date(cached.expiresAt).toISOString() });
      }
    }

    /** Pays a challenge within the limits; returns the Authorization value. */
    async function pay(challenge: Challenge, credential: Credential): Promise<string> {
      if (credential.kind === "buy_credit") {
        if (challenge.creditSats !== credential.sats || challenge.amountSats !== credential.sats) {
          return refuse(
            href,
            new L402Error(
              "credit_mismatch",
              `Asked ${href} for ${credential.sats} sats of credit but the challenge offers ${challenge.creditSats ?? "no credit"} for ${challenge.amountSats} sats`,
              { details: { askedSats: credential.sats, creditSats: challenge.creditSats, amountSats: challenge.amountSats } },
            ),
          );
        }
      } else if (challenge.creditSats !== null) {
        return refuse(href, new L402Error("invalid_challenge", `${href} offered credit that was not asked for`));
      }
      const amount = challenge.amountSats;
      if (amount > maxPrice) {
        return refuse(
          href,
          new L402Error("max_per_request_exceeded", `${href} asks ${amount} sats; the most this client pays per request is ${maxPrice}`, {
            details: { amountSats: amount, maxPerRequestSats: maxPrice },
          }),
        );
      }
      if (spent + reserved + amount > options.budgetSats) {
        return refuse(
          href,
          new L402Error(
            "budget_exceeded",
            `${href} asks ${amount} sats; ${Math.max(0, options.budgetSats - spent - reserved)} of the ${options.budgetSats} sats budget remain`,
            { details: { amountSats: amount, spentSats: spent, budgetSats: options.budgetSats } },
          ),
        );
      }
      reserved += amount;
      let preimage: string;
      try {
        preimage = (
          await options.wallet.pay({
            invoice: challenge.invoice,
            amountSats: amount,
            macaroon: challenge.macaroon,
            paymentHash: challenge.paymentHash,
            creditSats: challenge.creditSats,
            signal: requestInit.signal ?? undefined,
          })
        ).preimage;
      } catch (err) {
        reserved -= amount;
        return refuse(
          href,
          new L402Error("payment_failed", `The ${options.wallet.name} wallet could not pay ${amount} sats for ${href}: ${(err as Error).message}`, {
            cause: err,
          }),
        );
      }
      reserved -= amount;
      spent += amount;
      paidSats += amount;
      const payment: L402Payment = {
        url: href,
        amountSats: amount,
        paymentHash: challenge.paymentHash,
        purpose: challenge.creditSats !== null ? "credit" : challenge.model ? "session" : "request",
        model: challenge.creditSats !== null ? "per_request" : (challenge.model ?? "per_request"),
        at: new Date().toISOString(),
      };
      payments.push(payment);
      emit({ type: "paid", payment });
      if (challenge.paymentHash && (await paymentHashOf(preimage)) !== challenge.paymentHash.toLowerCase()) {
        return refuse(
          href,
          new L402Error("payment_failed", `The ${options.wallet.name} wallet returned a preimage that does not match the invoice's payment hash`, { paidSats }),
        );
      }
      const authorization = credentialHeaderValue(challenge.macaroon, preimage);
      if (challenge.creditSats !== null) held.setCredit(provider, { authorization, balanceSats: challenge.creditSats });
      return authorization;
    }

    /** Marks this request as the buyer for `key`; others wait until its paid attempt is answered. */
    function lead(key: string | null): void {
      if (!key) return;
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      inflight.set(key, done);
      leading.push(() => {
        if (inflight.get(key) === done) inflight.delete(key);
        release();
      });
    }
    const releaseLeads = () => leading.splice(0).forEach((release) => release());

    let credential = chooseCredential();
    const maxAttempts = 2 + upstreamRetries + rateLimitRetries + EXTRA_ATTEMPTS;
    try {
      for (let attempt = 1; ; attempt++) {
        if (attempt > maxAttempts) {
          return refuse(href, new L402Error("payment_not_accepted", `Gave up on ${href} after ${maxAttempts} attempts`, { paidSats }));
        }
        const headers = new Headers(requestInit.headers);
        if (credential.kind === "session") headers.set("x-session-token", credential.token);
        if (credential.kind === "credit" || credential.kind === "paid") headers.set("authorization", credential.authorization);
        if (credential.kind === "buy_credit") headers.set("x-hub-credit", String(credential.sats));
        const response = await doFetch(url, { ...requestInit, method, headers, body });

        const outcome = response.headers.get("x-hub-payment");
        const code = response.headers.get("x-hub-payment-code");
        const waitHint = retryAfterMs(response.headers.get("retry-after"));

        // The origin failed and the gateway reverted the charge: the same credential redeems again, free.
        if (code === "upstream_failed_retryable" && credential.kind !== "none" && credential.kind !== "buy_credit" && upstreamRetried < upstreamRetries) {
          upstreamRetried++;
          learnFrom(response, credential);
          const waitMs = Math.min(waitHint ?? 250 * upstreamRetried, maxRetryAfter);
          emit({ type: "retry", url: href, reason: "upstream_failed_retryable", waitMs });
          await discard(response);
          await sleep(waitMs, requestInit.signal);
          continue;
        }
        // Rate limited by the gateway itself (no payment outcome), or our proof is busy in another request.
        const gatewayLimited = response.status === 429 && outcome === null;
        const proofBusy = response.status === 409 && code === "payment_failed" && waitHint !== null;
        if (gatewayLimited || proofBusy) {
          const waitMs = waitHint ?? 1000;
          if (waitMs > maxRetryAfter || rateRetried >= rateLimitRetries) {
            if (options.returnRateLimited) return { response, paidSats };
            await discard(response);
            return refuse(
              href,
              new L402Error("rate_limited", `${href} answered ${response.status} with Retry-After ${Math.ceil(waitMs / 1000)} s`, {
                paidSats,
                details: { retryAfterMs: waitMs, status: response.status },
              }),
            );
          }
          rateRetried++;
          emit({ type: "retry", url: href, reason: gatewayLimited ? "rate_limited" : "proof_in_use", waitMs });
          await discard(response);
          await sleep(waitMs, requestInit.signal);
          continue;
        }

        if (response.status !== 402 && response.status !== 401) {
          learnFrom(response, credential);
          return { response, paidSats };
        }

        // 401/402 after paying for this very request: stop, never pay a second time.
        if (credential.kind === "paid") {
          const text = await response.text().catch(() => "");
          return refuse(
            href,
            new L402Error("payment_not_accepted", `${href} answered ${response.status} to the proof we paid for`, {
              paidSats,
              details: { status: response.status, body: text.slice(0, 500) },
            }),
          );
        }
        // Drop the refused credential, unless another request has replaced it meanwhile.
        if (credential.kind === "session") {
          if (held.getSession(scope)?.token === credential.token) held.deleteSession(scope);
          emit({ type: "credential_dropped", url: href, kind: "session", status: response.status });
        }
        if (credential.kind === "credit") {
          if (held.getCredit(provider)?.authorization === credential.authorization) held.deleteCredit(provider);
          emit({ type: "credential_dropped", url: href, kind: "credit", status: response.status });
        }
        if (response.status === 401) {
          // Nothing of ours was refused (e.g. a caller's own Authorization): the caller sees the 401.
          if (credential.kind === "none" || credential.kind === "buy_credit") return { response, paidSats };
          await discard(response);
          credential = chooseCredential();
          continue;
        }

        const challenge = await readChallenge(response, href);
        emit({ type: "challenge", url: href, amountSats: challenge.amountSats, model: challenge.model, creditSats: challenge.creditSats });
        // Credit challenges exist only on per_request endpoints; session models name themselves.
        models.set(scope, challenge.model ?? "per_request");

        // Now that the model is known, a credential we hold (maybe bought meanwhile by another
        // request) or a credit purchase may fit better than paying this challenge.
        const better = chooseCredential();
        if (!sameCredential(better, credential) && better.kind !== "none") {
          credential = better;
          continue;
        }

        // A purchase another request of the same scope is making covers this one too. No await
        // between the lookup and lead(): two requests cannot both become the buyer.
        const flightKey = challenge.creditSats !== null ? `credit ${provider}` : challenge.model ? `session ${scope}` : null;
        const pending = flightKey ? inflight.get(flightKey) : undefined;
        if (pending) {
          await pending;
          credential = chooseCredential();
          continue;
        }
        lead(flightKey);
        const authorization = await pay(challenge, credential);
        credential = { kind: "paid", authorization, credit: challenge.creditSats !== null };
      }
    } finally {
      releaseLeads();
    }
  }

  return {
    fetch: async (input, init) => (await l402Request(input, init)).response,
    request: l402Request,
    async stream(input, init = {}) {
      const { maxEvents, maxMs, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (!headers.has("accept")) headers.set("accept", "text/event-stream");
      const { response, paidSats } = await l402Request(input, { ...rest, headers });
      const contentType = response.headers.get("content-type") ?? "";
      if (!response.ok || !contentType.startsWith("text/event-stream")) {
        const text = await response.text().catch(() => "");
        throw new L402Error(
          "unexpected_response",
          `${String(input)} answered ${response.status} ${contentType || "(no content type)"} instead of an event stream`,
          {
            paidSats,
            details: { status: response.status, body: text.slice(0, 500), payment: response.headers.get("x-hub-payment") },
          },
        );
      }
      return new L402EventStream(response, { maxEvents, maxMs, signal: rest.signal ?? undefined }, paidSats);
    },
    get spentSats() {
      return spent;
    },
    get remainingSats() {
      return Math.max(0, options.budgetSats - spent - reserved);
    },
    budgetSats: options.budgetSats,
    get payments() {
      return payments;
    },
    clearCredentials() {
      held.clear();
    },
  };
}
