// One HTTP client per upstream: every request with a timeout, a short per-resource cache (a burst
// of API calls costs one upstream request, concurrent callers share one in-flight request), and the
// upstream's rate-limit rules respected. A 429/418/403 (or a rate-limit error an upstream sends in a
// 200 body, as Kraken does) blocks the upstream until its `Retry-After`, or with exponential backoff
// when it names none; while blocked, calls fail at once without touching the upstream. Binance's
// `X-MBX-USED-WEIGHT-1M` is read after each answer: near the budget, the client pauses until the
// minute rolls over instead of earning a ban.
import { UpstreamUnavailableError, type UpstreamName } from "./errors.ts";

/** What a decoder sees of an answer. `body` is parsed JSON when it parses, else the text. */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** Thrown by a decoder when the upstream says "slow down" in its body (Kraken's `EAPI:Rate limit exceeded`, OKX 50011, Deribit 10028). */
export class UpstreamThrottledSignal extends Error {
  constructor(
    readonly reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(reason);
  }
}

/** Thrown by a decoder when the answer is an error envelope or not the documented shape. */
export class UpstreamProtocolError extends Error {}

export interface UpstreamClientOptions {
  name: UpstreamName;
  baseUrl: string;
  /** Per request, from sending to the whole body read. */
  timeoutMs: number;
  now?: () => number;
  headers?: Record<string, string>;
  /** A used-weight header and its per-minute budget (Binance: `x-mbx-used-weight-1m`, 6000 spot, 2400 futures). */
  weightHeader?: { name: string; limit: number };
  /** First backoff when an upstream throttles without `Retry-After` or fails; doubles per failure up to `maxBackoffMs`. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface GetOptions<T> {
  /** How long the decoded answer is served from cache. */
  ttlMs: number;
  decode: (answer: UpstreamAnswer) => T;
}

/** Fraction of a weight budget after which the client pauses until the next minute. */
const WEIGHT_PAUSE_FRACTION = 0.9;

export class UpstreamClient {
  readonly name: UpstreamName;
  private readonly baseUrl: string;
  private readonly now: () => number;
  private readonly cache = new Map<string, { value: unknown; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private blockedUntil = 0;
  private blockReason = "";
  private failures = 0;
  /** Requests actually sent upstream (cache hits and blocked calls excluded): the tests count it. */
  requestsSent = 0;

  constructor(private readonly options: UpstreamClientOptions) {
    this.name = options.name;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.now = options.now ?? Date.now;
  }

  /** Whether the upstream is currently blocked (throttled, banned or backing off) and why. */
  status(): { available: true } | { available: false; reason: string; retryAt: number } {
    return this.now() < this.blockedUntil ? { available: false, reason: this.blockReason, retryAt: this.blockedUntil } : { available: true };
  }

  /** GET `path` with `query`, decoded and cached under the full URL. */
  async get<T>(path: string, query: Record<string, string | number | undefined>, options: GetOptions<T>): Promise<T> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.set(key, String(value));
    const url = `${this.baseUrl}${path}${search.size ? `?${search}` : ""}`;
    const cached = this.cache.get(url);
    if (cached && this.now() < cached.expiresAt) return cached.value as T;
    const pending = this.inFlight.get(url);
    if (pending) return pending as Promise<T>;
    const blocked = this.status();
    if (!blocked.available) throw new UpstreamUnavailableError(this.name, blocked.reason, blocked.retryAt);
    const request = this.fetchAndDecode(url, options).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, request);
    return request;
  }

  private async fetchAndDecode<T>(url: string, options: GetOptions<T>): Promise<T> {
    this.requestsSent += 1;
    let answer: UpstreamAnswer;
    try {
      answer = await this.fetchOnce(url);
    } catch (error) {
      throw this.fail(error instanceof UpstreamUnavailableError ? error.reason : `unreachable (${describe(error)})`);
    }
    this.readWeight(answer.headers);
    const { status, headers } = answer;
    if (status === 429 || status === 418 || status === 403) {
      const what = status === 418 ? "IP banned" : status === 403 ? "access refused (WAF or ban)" : "rate limited";
      throw this.throttle(`${what}: HTTP ${status}${upstreamMessage(answer.body)}`, retryAfterMs(headers.get("retry-after"), this.now()));
    }
    if (status >= 500) throw this.fail(`HTTP ${status}${upstreamMessage(answer.body)}`);
    let value: T;
    try {
      value = options.decode(answer);
    } catch (error) {
      if (error instanceof UpstreamThrottledSignal) throw this.throttle(error.reason, error.retryAfterMs);
      if (error instanceof UpstreamProtocolError) throw new UpstreamUnavailableError(this.name, error.message);
      throw new UpstreamUnavailableError(this.name, `unexpected answer (${describe(error)})`);
    }
    this.failures = 0;
    this.cache.set(url, { value, expiresAt: this.now() + options.ttlMs });
    if (this.cache.size > 500) this.evictExpired();
    return value;
  }

  private async fetchOnce(url: string): Promise<UpstreamAnswer> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
    try {
      const response = await fetch(url, {
        headers: { accept: "application/json", "user-agent": "l402-hub-market-intelligence/0.1", ...this.options.headers },
        signal: controller.signal,
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // plain text (mempool.space's tip height) or an HTML error page: decoders check the type
      }
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      if (controller.signal.aborted) throw new UpstreamUnavailableError(this.name, `timed out after ${this.options.timeoutMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A throttle: block until Retry-After, or back off exponentially when the upstream named no time. */
  private throttle(reason: string, retryAfter: number | undefined): UpstreamUnavailableError {
    this.failures += 1;
    const wait = retryAfter ?? this.backoffMs();
    this.blockedUntil = this.now() + wait;
    this.blockReason = `${reason}; retrying after ${new Date(this.blockedUntil).toISOString()}`;
    return new UpstreamUnavailableError(this.name, this.blockReason, this.blockedUntil);
  }

  /** A failure (timeout, refused, 5xx): back off so a down upstream is not hammered by every call. */
  private fail(reason: string): UpstreamUnavailableError {
    this.failures += 1;
    this.blockedUntil = this.now() + this.backoffMs();
    this.blockReason = `${reason}; retrying after ${new Date(this.blockedUntil).toISOString()}`;
    return new UpstreamUnavailableError(this.name, reason, this.blockedUntil);
  }

  private backoffMs(): number {
    const base = this.options.baseBackoffMs ?? 1_000;
    return Math.min(this.options.maxBackoffMs ?? 300_000, base * 2 ** Math.max(0, this.failures - 1));
  }

  private readWeight(headers: Headers): void {
    const rule = this.options.weightHeader;
    const used = rule && Number(headers.get(rule.name));
    if (!rule || !used || used < rule.limit * WEIGHT_PAUSE_FRACTION) return;
    const nextMinute = (Math.floor(this.now() / 60_000) + 1) * 60_000;
    this.blockedUntil = Math.max(this.blockedUntil, nextMinute);
    this.blockReason = `request weight ${used} of ${rule.limit} per minute used; pausing until ${new Date(nextMinute).toISOString()}`;
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(key);
  }
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The upstream's own words from an error body, for the reason: Binance `msg`, Coinbase `message`, OKX `msg`, Kraken `error`. */
function upstreamMessage(body: unknown): string {
  if (!body || typeof body !== "object") return "";
  const record = body as Record<string, unknown>;
  const text = record.msg ?? record.message ?? (Array.isArray(record.error) ? record.error.join(", ") : undefined);
  return typeof text === "string" && text ? ` (${text.slice(0, 200)})` : "";
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
