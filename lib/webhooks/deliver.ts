// Sending deliveries (spec 3.4, 6.2): claim due deliveries with FOR UPDATE SKIP LOCKED and a lease,
// POST the signed envelope through the SSRF-pinned dispatcher, and record the outcome with the retry
// schedule. At-least-once: a claim is a lease, so a worker that dies mid-attempt leaves a delivery
// that another worker re-sends once the lease lapses; the outcome is written only by the holder of
// that attempt (matched on its attempt number), so two workers never both record one attempt.
// Leases and due times are the database's: now() + ms in SQL, compared with now(), one clock for
// every worker whatever their clocks or the session's time zone.
import { openSecret } from "@/lib/crypto/secret-box.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import type { Agent } from "undici";
import { request } from "undici";
import { serializeEnvelope, signDelivery } from "./sign.ts";
import { BlockedTargetError, createPinnedDispatcher, type TargetPolicy } from "@/lib/origin/ssrf.ts";

/** Spec 8: three retries after the first attempt, 10 s, 1 min and 5 min after each failure. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000] as const;
/** First attempt plus the retries; after this many failures a delivery is `failed`. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Spec: a receiver has 10 s to answer (connect, headers and body together). */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A receiver's Retry-After is honoured when longer than our delay, up to this cap. */
export const MAX_RETRY_AFTER_MS = 30 * 60_000;
/** Request and response snippets kept for the dashboard. */
export const SNIPPET_BYTES = 2048;
/** Identifies our deliveries in receivers' logs. */
const USER_AGENT = "l402-hub-webhooks/1";
/** Finished attempts within this window share one claim for their freed slots. */
const PUMP_COALESCE_MS = 2;
/** How long a claim lasts: longer than the timeout plus the time to record the outcome. */
export const DEFAULT_LEASE_MS = 60_000;

/** Truncates text to at most `bytes` UTF-8 bytes without splitting a character. */
export function snippet(text: string, bytes = SNIPPET_BYTES): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end -= 1;
  return buf.subarray(0, end).toString("utf8");
}

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * When to try again after failed attempt number `attempts` (1-based): the spec delay, or the
 * receiver's Retry-After when longer (capped); null when the retries are exhausted.
 */
export function retryDelayMs(attempts: number, retryAfterMs: number | null): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[Math.max(0, attempts - 1)];
  return retryAfterMs !== null && retryAfterMs > base ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) : base;
}

/** What one HTTP attempt came to. */
export type AttemptOutcome =
  | { ok: true; status: number; responseSnippet: string }
  | { ok: false; status: number | null; error: string; retryAfterMs: number | null; responseSnippet: string | null };

/** Reads at most SNIPPET_BYTES of a body for the record and discards a bounded rest (keeps the socket reusable). */
async function readSnippet(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (keptBytes < SNIPPET_BYTES) {
      kept.push(chunk);
      keptBytes += chunk.length;
    }
    if (seen > 64 * 1024) {
      body.destroy?.();
      break;
    }
  }
  return snippet(Buffer.concat(kept).toString("utf8"));
}

/** The innermost meaningful error of an undici failure (connect errors arrive wrapped). */
function describeError(err: unknown, timeoutMs: number): string {
  let e = err as { name?: string; code?: string; message?: string; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && e; i += 1) {
    if (e instanceof BlockedTargetError) return `blocked_address: ${e.message}`;
    if (e.name === "TimeoutError" || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT" || e.code === "UND_ERR_CONNECT_TIMEOUT") {
      return `timeout: no complete response within ${timeoutMs} ms`;
    }
    if (!e.cause) break;
    e = e.cause as typeof e;
  }
  const top = err as { code?: string; message?: string };
  const inner = e ?? top;
  return `${inner?.code ?? "network_error"}: ${inner?.message ?? String(err)}`;
}

/** One signed POST to make through the pinned dispatcher. */
export type SendAttemptInput = {
  dispatcher: Agent;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs?: number;
};

/**
 * One POST: 2xx is success; 3xx is a failure (redirects are never followed, a redirect could point
 * anywhere); any other status, a timeout or a network error is a failure to retry.
 */
export async function sendAttempt(input: SendAttemptInput, nowMs: () => number = Date.now): Promise<AttemptOutcome> {
  const timeoutMs = input.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  try {
    const res = await request(input.url, {
      method: "POST",
      headers: { "user-agent": USER_AGENT, ...input.headers },
      body: input.body,
      dispatcher: input.dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const responseSnippet = await readSnippet(res.body);
    if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode, responseSnippet };
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const error =
      res.statusCode >= 300 && res.statusCode < 400
        ? `redirect: receiver answered ${res.statusCode}${header("location") ? ` to ${snippet(header("location")!, 200)}` : ""}; redirects are not followed`
        : `http_status: receiver answered ${res.statusCode}`;
    return { ok: false, status: res.statusCode, error, retryAfterMs: parseRetryAfter(header("retry-after"), nowMs()), responseSnippet };
  } catch (err) {
    return { ok: false, status: null, error: describeError(err, timeoutMs), retryAfterMs: null, responseSnippet: null };
  }
}

/** A claimed delivery with everything needed to send it. */
export type ClaimedDelivery = {
  id: string;
  subscriptionId: string;
  /** This attempt's number (1-based); the outcome is recorded only if it is still current. */
  attempts: number;
  url: string;
  secretEnc: string;
  eventType: string;
  data: unknown;
  eventCreatedAt: Date;
};

/** Bounds of one claim: how many, how many per subscription, and for how long. */
export type ClaimOptions = {
  prisma: PrismaClient;
  /** Most deliveries to claim. */
  limit: number;
  /** Most deliveries in flight per subscription, counting leases already held by any worker. */
  perSubscription: number;
  leaseMs: number;
};

/**
 * Claims due deliveries (pending, or delivering with a lapsed lease: a claim moves nextAttemptAt to
 * the lease end, which is when a lost attempt is due again) of active subscriptions: at most
 * `perSubscription` in flight per subscription (so a hanging receiver holds only its own slots),
 * subscriptions visited in random order (fairness), rows locked with SKIP LOCKED (two workers never
 * claim one row), each claimed row leased and its attempt counted in the same statement.
 */
export async function claimDueDeliveries({ prisma, limit, perSubscription, leaseMs }: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  return prisma.$queryRaw<ClaimedDelivery[]>`
    WITH inflight AS (
      SELECT "subscriptionId", count(*)::int AS n FROM "WebhookDelivery"
      WHERE "status" = 'delivering' AND "lockedUntil" > now()
      GROUP BY "subscriptionId"
    ),
    subs AS (
      SELECT s."id", coalesce(i.n, 0) AS n
      FROM "WebhookSubscription" s LEFT JOIN inflight i ON i."subscriptionId" = s."id"
      WHERE s."isActive" AND coalesce(i.n, 0) < ${perSubscription}
        AND EXISTS (
          SELECT 1 FROM "WebhookDelivery" d
          WHERE d."subscriptionId" = s."id" AND d."nextAttemptAt" <= now()
            AND d."status" IN ('pending', 'delivering') AND (d."lockedUntil" IS NULL OR d."lockedUntil" <= now())
        )
      ORDER BY random()
      LIMIT ${limit}
    ),
    picked AS (
      SELECT c."id", c."subscriptionId", c."nextAttemptAt", subs.n
      FROM subs CROSS JOIN LATERAL (
        SELECT d."id", d."subscriptionId", d."nextAttemptAt" FROM "WebhookDelivery" d
        WHERE d."subscriptionId" = subs."id" AND d."nextAttemptAt" <= now()
          AND d."status" IN ('pending', 'delivering') AND (d."lockedUntil" IS NULL OR d."lockedUntil" <= now())
        ORDER BY d."nextAttemptAt"
        LIMIT ${perSubscription}
        FOR UPDATE SKIP LOCKED
      ) c
    ),
    chosen AS (
      SELECT "id" FROM (
        SELECT "id", "nextAttemptAt", n + row_number() OVER (PARTITION BY "subscriptionId" ORDER BY "nextAttemptAt", "id") AS slot
        FROM picked
      ) ranked
      WHERE slot <= ${perSubscription}
      ORDER BY "nextAttemptAt", "id"
      LIMIT ${limit}
    )
    UPDATE "WebhookDelivery" d
    SET "status" = 'delivering', "lockedUntil" = now() + ${leaseMs}::double precision * interval '1 millisecond',
        "nextAttemptAt" = now() + ${leaseMs}::double precision * interval '1 millisecond', "attempts" = d."attempts" + 1,
        "lastAttemptAt" = now(), "updatedAt" = now()
    FROM chosen, "WebhookSubscription" s, "OutboxEvent" e
    WHERE d."id" = chosen."id" AND s."id" = d."subscriptionId" AND e."id" = d."eventId"
    RETURNING d."id", d."subscriptionId", d."attempts", s."url", s."secretEnc", d."eventType", e."data", e."createdAt" AS "eventCreatedAt"`;
}

/** One attempt's result to record. */
export type AttemptRecord = {
  delivery: Pick<ClaimedDelivery, "id" | "attempts">;
  outcome: AttemptOutcome;
  requestSnippet: string;
};

/**
 * The columns one attempt writes: succeeded, pending with the next retry's delay, or failed. The
 * statement turns the delay into a time with now(), and stamps delivery and update with it.
 */
function outcomeColumns({ delivery, outcome, requestSnippet }: AttemptRecord) {
  const delay = outcome.ok ? null : retryDelayMs(delivery.attempts, outcome.retryAfterMs);
  return {
    id: delivery.id,
    attempts: delivery.attempts,
    status: outcome.ok ? "succeeded" : delay === null ? "failed" : "pending",
    responseStatus: outcome.status,
    lastError: outcome.ok ? null : snippet(outcome.error, 1000),
    retryInMs: delay,
    requestSnippet,
    responseSnippet: outcome.responseSnippet,
  };
}

/**
 * Records attempts in one statement (the sender batches the outcomes that finish together).
 * Each row is written only if the attempt is still the holder's (status delivering, same attempt
 * number); returns the ids written, so a worker whose lease lapsed and was re-claimed sees it lost.
 */
export async function recordOutcomes(prisma: PrismaClient, records: readonly AttemptRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const rows = JSON.stringify(records.map(outcomeColumns));
  const written = await prisma.$queryRaw<{ id: string }[]>`
    UPDATE "WebhookDelivery" d
    SET "status" = v."status"::"DeliveryStatus", "responseStatus" = v."responseStatus", "lastError" = v."lastError",
        "nextAttemptAt" = now() + v."retryInMs" * interval '1 millisecond',
        "deliveredAt" = CASE WHEN v."status" = 'succeeded' THEN now() ELSE d."deliveredAt" END, "lockedUntil" = NULL,
        "requestSnippet" = v."requestSnippet", "responseSnippet" = v."responseSnippet", "updatedAt" = now()
    FROM jsonb_to_recordset(${rows}::jsonb) AS v(
      "id" text, "attempts" int, "status" text, "responseStatus" int, "lastError" text, "retryInMs" double precision,
      "requestSnippet" text, "responseSnippet" text)
    WHERE d."id" = v."id" AND d."attempts" = v."attempts" AND d."status" = 'delivering'
    RETURNING d."id"`;
  return new Set(written.map((w) => w.id));
}

/** A worker's delivery engine settings (defaults: 32 in flight, 4 per subscription, 60 s lease, 10 s timeout). */
export type WebhookSenderOptions = {
  prisma: PrismaClient;
  appSecret: string;
  policy: TargetPolicy;
  /** Deliveries in flight in this process (spec: one slow receiver never delays others). */
  maxInFlight?: number;
  /** Deliveries in flight per subscription across workers. */
  perSubscription?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** Extra trusted CAs (tests); production trusts NODE_EXTRA_CA_CERTS. */
  ca?: string | string[];
  /**
   * Injectable clock for what the receiver sees: signature timestamps and Retry-After dates.
   * Leases and the retry schedule run on the database's clock.
   */
  now?: () => Date;
  log?: Logger;
};

/**
 * A worker's delivery engine: a bounded pool of in-flight attempts. `pump()` claims as many due
 * deliveries as there are free slots and starts them without waiting; each finished attempt pumps
 * again, so throughput is not tied to the job interval and a hanging receiver occupies only its
 * per-subscription share of the slots while everything else keeps flowing.
 */
export class WebhookSender {
  private readonly dispatcher: Agent;
  private readonly maxInFlight: number;
  private readonly perSubscription: number;
  private readonly leaseMs: number;
  private readonly now: () => Date;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly secrets = new Map<string, string>();
  private pumping: Promise<number> | null = null;
  private pumpAgain = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  /** Outcomes waiting for the next write, and the write in progress (group commit). */
  private pendingRecords: { record: AttemptRecord; done: (written: boolean) => void; failed: (err: unknown) => void }[] = [];
  private writing: Promise<void> | null = null;
  private pumpTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: WebhookSenderOptions) {
    this.maxInFlight = options.maxInFlight ?? 32;
    this.perSubscription = options.perSubscription ?? 4;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.now = options.now ?? (() => new Date());
    // As many sockets per origin as slots: subscriptions of different workspaces may share a receiver
    // host, and the per-subscription limit (not the pool) must decide who waits.
    this.dispatcher = createPinnedDispatcher({
      ...options.policy,
      ca: options.ca,
      connectTimeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      connectionsPerOrigin: this.maxInFlight,
    });
  }

  /** Attempts currently in flight in this process. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Claims and starts due deliveries up to the free slots; resolves with how many were started. */
  pump(): Promise<number> {
    if (this.pumping) {
      this.pumpAgain = true;
      return this.pumping;
    }
    // Reset in a .finally callback (always asynchronous), so it runs after the assignment below.
    const run = this.claimAndStart().finally(() => {
      if (this.pumping === run) this.pumping = null;
    });
    this.pumping = run;
    return run;
  }

  /** Claims for the free slots, again while finished attempts asked for another pass meanwhile. */
  private async claimAndStart(): Promise<number> {
    let started = 0;
    do {
      this.pumpAgain = false;
      const free = this.maxInFlight - this.inFlight.size;
      if (free <= 0 || this.closed) break;
      const claimed = await claimDueDeliveries({ prisma: this.options.prisma, limit: free, perSubscription: this.perSubscription, leaseMs: this.leaseMs });
      for (const delivery of claimed) this.start(delivery);
      started += claimed.length;
    } while (this.pumpAgain);
    return started;
  }

  /**
   * A pump soon after an attempt finishes: attempts finishing within the same few milliseconds
   * share one claim query instead of one each.
   */
  private schedulePump(): void {
    if (this.pumpTimer) return;
    this.pumpTimer = setTimeout(() => {
      this.pumpTimer = null;
      void this.pump().catch((err) => this.options.log?.error("webhook pump failed", { error: err }));
    }, PUMP_COALESCE_MS);
  }

  /** Waits until every started attempt has been recorded. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0 || this.pumping) {
      await Promise.allSettled([...this.inFlight, this.pumping ?? Promise.resolve()]);
    }
  }

  /**
   * Stops claiming and closes the connections. By default the attempts in flight finish first;
   * `abandon` cuts them off (they are recorded as failed attempts and retried on schedule).
   */
  close(options: { abandon?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.pumpTimer) clearTimeout(this.pumpTimer);
      this.pumpTimer = null;
      if (options.abandon) await this.dispatcher.destroy();
      await this.drain();
      if (!options.abandon) await this.dispatcher.close();
    })();
    return this.closing;
  }

  private secretFor(secretEnc: string): string {
    let secret = this.secrets.get(secretEnc);
    if (secret === undefined) {
      secret = openSecret(this.options.appSecret, secretEnc);
      if (this.secrets.size >= 1000) this.secrets.clear();
      this.secrets.set(secretEnc, secret);
    }
    return secret;
  }

  private start(delivery: ClaimedDelivery): void {
    const run: Promise<void> = this.attempt(delivery)
      .then(() => undefined)
      .catch((err) => this.options.log?.error("webhook attempt failed unexpectedly", { deliveryId: delivery.id, error: err }))
      .finally(() => {
        this.inFlight.delete(run);
        if (!this.closed) this.schedulePump();
      });
    this.inFlight.add(run);
  }

  /**
   * Queues an outcome for the next write: one statement per batch. While a write is running, the
   * outcomes that finish meanwhile wait and go together in the next one.
   */
  private record(record: AttemptRecord): Promise<boolean> {
    return new Promise((done, failed) => {
      this.pendingRecords.push({ record, done, failed });
      if (!this.writing) this.writing = this.writeRecords();
    });
  }

  private async writeRecords(): Promise<void> {
    while (this.pendingRecords.length > 0) {
      const batch = this.pendingRecords.splice(0, 500);
      try {
        const written = await recordOutcomes(
          this.options.prisma,
          batch.map((b) => b.record),
        );
        for (const b of batch) b.done(written.has(b.record.delivery.id));
      } catch (err) {
        for (const b of batch) b.failed(err);
      }
    }
    this.writing = null;
  }

  /** Sends one claimed delivery and records the outcome. */
  private async attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const body = serializeEnvelope({
      id: delivery.id,
      event: delivery.eventType,
      timestamp: new Date(delivery.eventCreatedAt).toISOString(),
      data: delivery.data,
    });
    let outcome: AttemptOutcome;
    try {
      const headers = signDelivery({
        secret: this.secretFor(delivery.secretEnc),
        id: delivery.id,
        event: delivery.eventType,
        body,
        timestampMs: this.now().getTime(),
      });
      outcome = await sendAttempt({ dispatcher: this.dispatcher, url: delivery.url, headers, body, timeoutMs: this.options.timeoutMs }, () =>
        this.now().getTime(),
      );
    } catch (err) {
      outcome = { ok: false, status: null, error: `internal: ${(err as Error).message}`, retryAfterMs: null, responseSnippet: null };
    }
    const recorded = await this.record({ delivery, outcome, requestSnippet: snippet(body) });
    if (!recorded)
      this.options.log?.warn("webhook attempt outcome not recorded: the lease lapsed and another worker re-claimed it", {
        deliveryId: delivery.id,
        attempt: delivery.attempts,
      });
    return outcome;
  }
}
