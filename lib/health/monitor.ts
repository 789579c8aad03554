// Health monitoring (spec 1.8, 8: every active endpoint every 5 minutes): the worker probes each
// active endpoint of each active tenant straight at the origin with the gateway's signed headers
// plus `X-Hub-Probe: 1`, records a HealthSample, and writes `endpoint.health_changed` on a
// transition. Probes never pass through the gateway, so they are never billed or counted as usage.
//
// Rules (docs/decisions.md, Directory):
// - A probe is healthy when the origin answers with a status below 500 within the timeout: a 4xx
//   still proves the service is up (our probe may simply lack a real argument). Unreachable,
//   timeout and 5xx are unhealthy. Latency is the time to the response headers.
// - The probe uses the endpoint's method, the example query and body, `{param}` filled from the
//   example's `path` values or "probe". Bodies are not read: headers decide.
// - Transitions: healthy <-> unhealthy against the endpoint's previous sample. The first sample of
//   an endpoint announces only "unhealthy" (previousStatus null), so starting the monitor on a
//   healthy fleet sends nothing.
// - At most `concurrency` probes at once across all tenants. A round waits at most `roundBudgetMs`;
//   a tenant whose probes are still running then is skipped by the next round instead of being
//   probed twice at once.
import { randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import type { PrismaClient } from "@/lib/db/client.ts";
import { CallAbort } from "@/lib/origin/deadlines.ts";
import { callOrigin } from "@/lib/origin/origin-call.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { readOriginSecrets, tenantSecretColumnsSelect } from "@/lib/tenants/secrets.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";

export type HealthMonitorOptions = {
  prisma: PrismaClient;
  dispatcher: Dispatcher;
  appSecret: string;
  log: Logger;
  /** Probes in flight at once, across all tenants. */
  concurrency?: number;
  /** Per-probe timeout. */
  timeoutMs?: number;
  /** How long runRound waits before leaving slow tenants to finish in the background. */
  roundBudgetMs?: number;
  /** The clock for sample and event timestamps (tests use a fake one). */
  now?: () => Date;
};

export type RoundSummary = { tenants: number; skipped: number; probed: number; unhealthy: number; transitions: number };

type ProbeTarget = {
  endpointId: string;
  method: string;
  path: string;
  exampleRequest: unknown;
};

type ProbeResult = { ok: boolean; statusCode: number | null; latencyMs: number | null; error: string | null };

export const healthDefaults = { concurrency: 16, timeoutMs: 10_000, roundBudgetMs: 240_000 };

/** A counting semaphore: at most `size` holders at once, FIFO (also bounds ./probe-listings.ts). */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The concrete request a probe sends for an endpoint's template and example (pure). */
export function probeRequest(target: ProbeTarget): { path: string; search: string; body: Buffer | null; headers: Record<string, string> } {
  const example = isRecord(target.exampleRequest) ? target.exampleRequest : {};
  const pathValues = isRecord(example.path) ? example.path : {};
  const path = target.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name] ?? "probe")));
  const params = new URLSearchParams();
  if (isRecord(example.query)) {
    for (const [key, value] of Object.entries(example.query)) {
      if (value === null || value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) params.append(key, typeof item === "string" ? item : JSON.stringify(item));
    }
  }
  const search = params.size ? `?${params.toString()}` : "";
  const method = target.method.toUpperCase();
  const hasBody = example.body !== undefined && method !== "GET" && method !== "HEAD";
  const body = hasBody ? Buffer.from(typeof example.body === "string" ? example.body : JSON.stringify(example.body)) : null;
  return { path, search, body, headers: hasBody ? { "content-type": "application/json" } : {} };
}

/** Probes every active endpoint of every active tenant; keep one instance per worker process. */
export class HealthMonitor {
  private readonly inFlight = new Set<string>();
  private readonly semaphore: Semaphore;
  private readonly timeoutMs: number;
  private readonly roundBudgetMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: HealthMonitorOptions) {
    this.semaphore = new Semaphore(options.concurrency ?? healthDefaults.concurrency);
    this.timeoutMs = options.timeoutMs ?? healthDefaults.timeoutMs;
    this.roundBudgetMs = options.roundBudgetMs ?? healthDefaults.roundBudgetMs;
    this.now = options.now ?? (() => new Date());
  }

  /** Tenants whose probes are still running (the next round skips them). */
  get busyTenants(): number {
    return this.inFlight.size;
  }

  /** One round: starts every due tenant, waits for them up to the round budget. */
  async runRound(): Promise<RoundSummary> {
    const tenants = await this.options.prisma.tenant.findMany({
      where: { status: "active", originUrl: { not: null }, endpoints: { some: { isActive: true } } },
      select: {
        id: true,
        originUrl: true,
        ...tenantSecretColumnsSelect,
        endpoints: { where: { isActive: true }, select: { id: true, method: true, path: true, exampleRequest: true } },
      },
    });
    const summary: RoundSummary = { tenants: tenants.length, skipped: 0, probed: 0, unhealthy: 0, transitions: 0 };
    const rounds: Promise<void>[] = [];
    for (const tenant of tenants) {
      if (this.inFlight.has(tenant.id)) {
        summary.skipped++;
        continue;
      }
      this.inFlight.add(tenant.id);
      const round = this.probeTenant(tenant, summary)
        .catch((err) => this.options.log.error("health probe round failed", { tenantId: tenant.id, error: err }))
        .finally(() => this.inFlight.delete(tenant.id));
      rounds.push(round);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(rounds),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.roundBudgetMs);
        timer.unref?.();
      }),
    ]);
    clearTimeout(timer);
    return summary;
  }

  private async probeTenant(
    tenant: { id: string; originUrl: string | null; endpoints: { id: string; method: string; path: string; exampleRequest: unknown }[] } & Parameters<
      typeof readOriginSecrets
    >[1],
    summary: RoundSummary,
  ): Promise<void> {
    const secrets = readOriginSecrets(this.options.appSecret, tenant);
    const results = await Promise.all(
      tenant.endpoints.map((endpoint) =>
        this.semaphore.run(async () => ({ endpoint, result: await this.probe(tenant.originUrl!, secrets, { ...endpoint, endpointId: endpoint.id }) })),
      ),
    );
    summary.probed += results.length;
    summary.unhealthy += results.filter((r) => !r.result.ok).length;
    summary.transitions += await this.record(tenant.id, results);
  }

  private async probe(originUrl: string, secrets: ReturnType<typeof readOriginSecrets>, target: ProbeTarget): Promise<ProbeResult> {
    const request = probeRequest(target);
    const started = performance.now();
    const response = await callOrigin({
      dispatcher: this.options.dispatcher,
      originUrl,
      method: target.method.toUpperCase(),
      path: request.path,
      search: request.search,
      clientHeaders: { ...request.headers, "user-agent": "l402-hub-health/1" },
      body: request.body,
      requestId: randomUUID(),
      clientIp: "",
      forwardedHost: "",
      forwardedProto: "https",
      secrets,
      timeoutMs: this.timeoutMs,
      signal: new CallAbort(),
      probe: true,
    });
    const latencyMs = Math.round(performance.now() - started);
    if (response.kind !== "response") return { ok: false, statusCode: null, latencyMs: null, error: response.message };
    // Headers decide; the body (possibly an endless stream) is dropped, and the abort error that
    // destroying it raises is expected.
    response.body.on("error", () => {});
    response.body.destroy();
    const ok = response.statusCode < 500;
    return { ok, statusCode: response.statusCode, latencyMs, error: ok ? null : `origin answered ${response.statusCode}` };
  }

  /** Writes the samples and any transition events of one tenant in one transaction. */
  private async record(tenantId: string, results: { endpoint: { id: string; method: string; path: string }; result: ProbeResult }[]): Promise<number> {
    const { prisma } = this.options;
    const ids = results.map((r) => r.endpoint.id);
    const previous = await prisma.$queryRaw<{ endpointId: string; ok: boolean }[]>`
      SELECT DISTINCT ON ("endpointId") "endpointId", "ok"
      FROM "HealthSample"
      WHERE "endpointId" = ANY(${ids})
      ORDER BY "endpointId", "checkedAt" DESC, "id" DESC`;
    const before = new Map(previous.map((p) => [p.endpointId, p.ok]));
    const checkedAt = this.now();
    let transitions = 0;
    await prisma.$transaction(async (tx) => {
      await tx.healthSample.createMany({
        data: results.map(({ endpoint, result }) => ({
          tenantId,
          endpointId: endpoint.id,
          ok: result.ok,
          statusCode: result.statusCode,
          latencyMs: result.latencyMs,
          error: result.error,
          checkedAt,
        })),
      });
      for (const { endpoint, result } of results) {
        const was = before.get(endpoint.id);
        const changed = was === undefined ? !result.ok : was !== result.ok;
        if (!changed) continue;
        transitions++;
        await enqueueEvent(tx, {
          tenantId,
          type: "endpoint.health_changed",
          data: {
            endpointId: endpoint.id,
            method: endpoint.method.toUpperCase(),
            path: endpoint.path,
            status: result.ok ? "healthy" : "unhealthy",
            previousStatus: was === undefined ? null : was ? "healthy" : "unhealthy",
            statusCode: result.statusCode,
            latencyMs: result.latencyMs,
            error: result.error,
            checkedAt: checkedAt.toISOString(),
          },
        });
      }
    });
    return transitions;
  }
}
