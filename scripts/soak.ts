// `npm run soak` (issue 24): the production topology (scripts/cluster-topology.ts: two gateways behind
// HAProxy with deploy/haproxy.cfg, two workers, optionally two web processes) on a private PostgreSQL
// and Redis, driven for SOAK_SECONDS by many SDK clients while faults are injected on a schedule, then
// audited from the database and the clients' own records (scripts/soak/audit.ts). Exits 1 on any
// violation. SOAK_SECONDS (default 300), SOAK_USERS (24), SOAK_PORT_BASE (7600), SOAK_WEB=1 to add the
// web processes and directory reads (needs a Next build), SOAK_KEEP=1 to keep the temporary directory.
import { randomBytes } from "node:crypto";
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Database } from "@/lib/db/client.ts";
import { leaseOwnerPid } from "@/lib/jobs/worker.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { mintFreeTryToken } from "@/lib/payments/free-try-issuer.ts";
import { devWalletFactory, endpointFactory, tenantFactory, webhookSubscriptionFactory } from "@/prisma/factories.ts";
import type { L402Wallet } from "@l402-hub/sdk/client";
import { clusterPlan, PrivatePostgres, redisProcess, redisReady, repositoryRoot, startTopology, waitFor, healthy, type Topology } from "./cluster-topology.ts";
import { audit, firstGoodPaidCall, percentile, unionMs, type CallRecord, type FaultRecord } from "./soak/audit.ts";
import { startFaultOrigin, type FaultOrigin, type OriginMode } from "./soak/fault-origin.ts";
import { runLoad } from "./soak/load.ts";
import { holdsLocalPort } from "./soak/connection-owner.ts";
import { fetchChallenges } from "./soak/settlement-backlog.ts";
import { startSoakReceiver, type SoakReceiver } from "./soak/webhook-receiver.ts";

const seconds = Number(process.env.SOAK_SECONDS ?? 300);
const users = Number(process.env.SOAK_USERS ?? 24);
const portBase = Number(process.env.SOAK_PORT_BASE ?? 7600);
/** The gateway's origin timeout (lib/gateway/gateway-limits.ts): a hung origin call lasts this long. */
const ORIGIN_TIMEOUT_MS = 30_000;
/** Failures are expected this long after a fault's window (health checks: 2 × 1 s; pools reconnecting). */
const FAULT_GRACE_MS = 5_000;
/** Invoices paid and never presented before the mid-settlement-poll kill: enough for a pass of seconds. */
const SETTLEMENT_BACKLOG = 300;

const say = (line: string) => process.stdout.write(`[soak] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One scheduled fault: when (fraction of the run) and what it does. `inject` resolves with the end of
 * the window in which clients may see failures: a killed gateway's in-flight calls (the balancer
 * routes new ones around it at once), a store's restart, the origin's bad spell. Restarting a killed
 * process happens after that, in the background, and is timed separately.
 */
type FaultPlan = {
  at: number;
  name: string;
  /**
   * Resolves with the window's end, or with its start and end when the fault itself starts after a
   * preparation (and a name that says how it went, when that differs from the plan's).
   */
  inject: () => Promise<number | { startedAt: number; endedAt: number; name?: string }>;
};

async function main(): Promise<number> {
  if (!Number.isFinite(seconds) || seconds < 30) throw new Error(`SOAK_SECONDS must be at least 30, got "${process.env.SOAK_SECONDS}"`);
  const started = Date.now();
  /** Set by the audit; the shutdown may still turn it into a failure. */
  let exitCode: number;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "l402-soak-"));
  // PostgreSQL runs as the `postgres` user on a root shell: it must be able to reach its data directory.
  chmodSync(tmp, 0o755);
  const logFile = path.join(tmp, "processes.log");
  const logStream = createWriteStream(logFile);
  const sink = (name: string, line: string) => {
    logStream.write(`${new Date().toISOString()} [${name}] ${line}\n`);
    if (line.startsWith("exited")) say(`${name} ${line}`);
  };
  say(`SOAK_SECONDS=${seconds}, ${users} users; logs in ${logFile}`);

  const plan = clusterPlan({ CLUSTER_PORT_BASE: String(portBase), CLUSTER_DIR: tmp, PORT: String(portBase), GATEWAY_PORT: String(portBase + 3) });
  const postgres = new PrivatePostgres(path.join(tmp, "postgres"), plan.pgPort);
  const redis = redisProcess(plan.redisPort, sink);
  const redisUrl = `redis://127.0.0.1:${plan.redisPort}`;

  let db: Database | null = null;
  let topology: Topology | null = null;
  let origin: FaultOrigin | null = null;
  let receiver: SoakReceiver | null = null;
  let stopped: Promise<void> | null = null;
  /** Stops everything this run started (also on Ctrl-C: pg_ctl's server would otherwise outlive us). */
  const shutdown = () =>
    (stopped ??= (async () => {
      say("stopping");
      await topology?.stop().catch(() => undefined);
      for (const proc of topology?.processes.values() ?? []) {
        if (proc.neededSigkill) {
          say(`VIOLATION ${proc.name} did not stop on SIGTERM within 30 s`);
          exitCode = 1;
        }
      }
      redis.stopping = true;
      await redis.kill("SIGTERM").catch(() => undefined);
      await db?.close().catch(() => undefined);
      try {
        postgres.stop("fast");
      } catch (err) {
        say(`PostgreSQL stop: ${err instanceof Error ? err.message : String(err)}`);
      }
      await origin?.close().catch(() => undefined);
      await receiver?.stop().catch(() => undefined);
      logStream.end();
      if (process.env.SOAK_KEEP !== "1") rmSync(tmp, { recursive: true, force: true });
      else say(`kept ${tmp}`);
    })());
  const interrupted = () => {
    say("interrupted");
    void shutdown().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    // Started inside the try: whatever fails from here on, shutdown stops what did start.
    postgres.start();
    redis.start();
    await redisReady(plan.redisPort);
    db = await openDatabase({ databaseUrl: postgres.url, pgliteDir: null, migrate: true, poolSize: 8 });
    const prisma = db.prisma;
    const appSecret = randomBytes(32).toString("hex");
    const siteUrl = `http://localhost:${plan.webPort}`;
    origin = await startFaultOrigin();
    receiver = await startSoakReceiver(tmp);

    // The tenant and its endpoints, one per kind of load, on the fault-injectable origin.
    const devNode = new DevLightningNode({ prisma, appSecret });
    const tenant = await tenantFactory(prisma, appSecret, { slug: "soak", originUrl: origin.url, listed: true, tags: ["soak"] });
    await devWalletFactory(prisma, appSecret, tenant.tenantId, devNode.nodePubkey);
    const prices = { perRequestSats: 5, meteredUnitSats: 2, perKbUnitSats: 1, creditPriceSats: 3 };
    // A provider selling per call to machine clients raises the anonymous per-endpoint limit (spec 8:
    // 30 a minute per address by default), which every fresh proof's 402 counts against: a soak user
    // paying /v1/item more than 30 times a minute was answered 429 in the first 300 s run.
    const ep = (p: string, data: Parameters<typeof endpointFactory>[2]) =>
      endpointFactory(prisma, tenant.tenantId, { path: p, title: p, rateLimitPerMinute: 1_000, ...data });
    await ep("/v1/item", { pricingModel: "per_request", priceSats: prices.perRequestSats });
    await ep("/v1/item-credit", { pricingModel: "per_request", priceSats: prices.creditPriceSats });
    await ep("/v1/cached", { pricingModel: "per_request", priceSats: 4, cacheTtlSeconds: 5 });
    await ep("/v1/events", { pricingModel: "per_request", priceSats: 4, streaming: true, idleTimeoutSeconds: 30, maxStreamSeconds: 600 });
    await ep("/v1/kb", { pricingModel: "per_kb", priceSats: 60, unitCostSats: prices.perKbUnitSats });
    await ep("/v1/bucket", { pricingModel: "token_bucket", priceSats: 9, tokenBudget: 5 });
    await ep("/v1/pass", { pricingModel: "time_pass", priceSats: 20, durationMinutes: 1 });
    await ep("/v1/meter", { pricingModel: "metered", priceSats: 20, unitCostSats: prices.meteredUnitSats });
    await ep("/v1/try", { pricingModel: "per_request", priceSats: 7, freeTryEnabled: true });
    await ep("/v1/free", {});
    await webhookSubscriptionFactory(prisma, appSecret, tenant.tenantId, { url: receiver.url, events: ["*"] });

    const web = process.env.SOAK_WEB === "1";
    if (web && !existsSync(path.join(repositoryRoot, ".next", "BUILD_ID"))) say("SOAK_WEB=1 without a Next build: the first web process builds it (minutes)");
    say("starting the topology: 2 gateways, 2 workers" + (web ? ", 2 web" : "") + ", HAProxy");
    topology = await startTopology({
      plan,
      databaseUrl: postgres.url,
      redisUrl,
      web,
      sink,
      supervise: true,
      env: {
        APP_SECRET: appSecret,
        AUTH_SECRET: randomBytes(32).toString("hex"),
        SITE_URL: siteUrl,
        LOG_LEVEL: "warn",
        HOSTED_EXAMPLES: "none",
        // Every soak user sends its own X-Forwarded-For; the anonymous challenge limit is per address.
        GATEWAY_CHALLENGES_PER_MINUTE: "100000",
        // The receiver is on loopback (the SSRF guard refuses private targets unless allowed) with a self-signed certificate.
        WEBHOOK_ALLOWED_TARGETS: "127.0.0.1/32",
        NODE_EXTRA_CA_CERTS: receiver.certFile,
      },
    });
    const procs = topology.processes;
    say(`topology ready in ${Math.round((Date.now() - started) / 1000)} s: gateway ${topology.gatewayUrl}`);

    const wallet: L402Wallet = { name: "dev-node", pay: async ({ invoice }) => ({ preimage: (await devNode.pay(invoice)).preimage }) };
    const calls: CallRecord[] = [];
    const faults: FaultRecord[] = [];
    const loadStart = Date.now();
    const until = loadStart + seconds * 1000;
    const S = seconds * 1000;

    const restarts: Array<{ name: string; downS: number; readyS: number }> = [];
    const restarting: Promise<void>[] = [];
    const killAndRestart = (name: string, downMs: number) => async () => {
      const proc = procs.get(name)!;
      say(`FAULT kill -9 ${name} (pid ${proc.child?.pid})`);
      const killedAt = Date.now();
      await proc.kill("SIGKILL");
      const windowEnd = Date.now();
      restarting.push(
        (async () => {
          await sleep(downMs);
          const startAt = Date.now();
          proc.start();
          await proc.ready();
          restarts.push({ name, downS: +((Date.now() - killedAt) / 1000).toFixed(1), readyS: +((Date.now() - startAt) / 1000).toFixed(1) });
          say(`  ${name} restarted (pid ${proc.child?.pid}) after ${Math.round((Date.now() - killedAt) / 1000)} s`);
        })(),
      );
      return windowEnd;
    };
    const killMidDelivery = async () => {
      // The receiver's own outage may still run (the schedule stretches on a loaded machine).
      await waitFor("the webhook receiver back", async () => receiver!.up, 180_000);
      receiver!.holding = true;
      try {
        await waitFor("a webhook delivery in flight", async () => receiver!.heldFrom().length > 0, 20_000).catch(() => undefined);
        const ports = receiver!.heldFrom();
        const sender = ["worker-1", "worker-2"].find((name) => {
          const pid = procs.get(name)!.child?.pid;
          return pid !== undefined && ports.some((port) => holdsLocalPort(pid, port));
        });
        say(
          sender
            ? `  ${sender} is sending a webhook delivery the receiver holds`
            : "  no webhook delivery in flight within 20 s: worker-2 dies between deliveries",
        );
        return await killAndRestart(sender ?? "worker-2", 1_000)();
      } finally {
        receiver!.release();
      }
    };
    /** What the mid-settlement-poll kill found (for the figures). */
    let settlementKill: {
      worker: string;
      backlog: number;
      recordedAtKill: number;
      /** The count rose between two reads just before the kill, short of the backlog, under a live lease. */
      midPass: boolean;
      /** From the kill until every backlog invoice was settled. */
      allRecordedS: number | null;
    } | null = null;
    /** Resolves once every backlog invoice is settled (or after 2 minutes): the audit waits for it. */
    let settlementRecorded: Promise<void> = Promise.resolve();
    const killMidSettlementPoll = async () => {
      say(`FAULT ${SETTLEMENT_BACKLOG} invoices paid at the wallet and never presented, then the worker recording them killed mid-pass`);
      // Every challenge first, then every payment at once: the next pass finds the whole backlog.
      const invoices = await fetchChallenges({ url: `${topology!.gatewayUrl}/gw/soak/v1/item`, count: SETTLEMENT_BACKLOG });
      if (invoices.length < SETTLEMENT_BACKLOG) say(`  ${SETTLEMENT_BACKLOG - invoices.length} challenges not answered: a backlog of ${invoices.length}`);
      const backlog = await Promise.all(invoices.map(async (invoice) => (await devNode.pay(invoice)).paymentHash));
      const recorded = () => prisma.invoice.count({ where: { paymentHash: { in: backlog }, status: "settled" } });
      // A pass under way: the count rises between two reads 20 ms apart, short of the whole backlog,
      // and the lease naming the worker is live (an owner stays in the row after its lease lapses).
      const deadline = Date.now() + 30_000;
      let holder: string | null = null;
      let previous = await recorded();
      let atKill = previous;
      while (!holder && atKill < backlog.length && Date.now() < deadline) {
        await sleep(20);
        atKill = await recorded();
        if (atKill > previous && atKill < backlog.length) {
          const [lease] = await prisma.$queryRaw<{ owner: string | null; live: boolean }[]>`
            SELECT "owner", "lockedUntil" > now() AS "live" FROM "JobLease" WHERE "name" = 'invoice-settlements'`;
          const pid = lease?.live ? leaseOwnerPid(lease.owner) : null;
          holder = ["worker-1", "worker-2"].find((name) => pid !== null && procs.get(name)!.child?.pid === pid) ?? null;
        }
        previous = atKill;
      }
      const victim = holder ?? "worker-1";
      say(
        holder
          ? `  ${holder} holds the settlement lease, mid-pass with ${atKill} of ${backlog.length} recorded`
          : `  NOT MID-PASS: no pass seen recording (${atKill} of ${backlog.length} recorded); worker-1 dies anyway`,
      );
      const killedAt = Date.now();
      const endedAt = await killAndRestart(victim, 1_000)();
      const kill: NonNullable<typeof settlementKill> = {
        worker: victim,
        backlog: backlog.length,
        recordedAtKill: atKill,
        midPass: holder !== null,
        allRecordedS: null,
      };
      settlementKill = kill;
      settlementRecorded = waitFor("the backlog settled", async () => (await recorded()) === backlog.length, 120_000).then(
        () => {
          kill.allRecordedS = +((Date.now() - killedAt) / 1000).toFixed(1);
          say(`  the settlement backlog recorded in full ${kill.allRecordedS} s after the kill`);
        },
        (err: Error) => {
          say(`settlement backlog: ${err.message}`);
        },
      );
      return { startedAt: killedAt, endedAt, name: holder ? undefined : "kill -9 a worker mid-settlement-poll (not mid-pass)" };
    };
    const originFault =
      (mode: OriginMode, ms: number, extraMs = 0) =>
      async () => {
        say(`FAULT origin ${mode} for ${Math.round(ms / 1000)} s`);
        origin!.mode = mode;
        await sleep(ms);
        origin!.mode = "ok";
        say(`  origin answers again`);
        return Date.now() + extraMs;
      };
    const schedule: FaultPlan[] = [
      { at: 0.1, name: "kill -9 gateway-1", inject: killAndRestart("gateway-1", Math.max(2_000, S * 0.03)) },
      { at: 0.2, name: "kill -9 worker-1", inject: killAndRestart("worker-1", 1_000) },
      {
        at: 0.3,
        name: "Redis restarted",
        inject: async () => {
          say(`FAULT Redis kill -9 and restart (pid ${redis.child?.pid})`);
          await redis.kill("SIGKILL");
          await sleep(Math.max(1_000, S * 0.02));
          redis.start();
          await redisReady(plan.redisPort);
          say("  Redis back");
          return Date.now();
        },
      },
      {
        at: 0.4,
        name: "PostgreSQL restarted",
        inject: async () => {
          say("FAULT PostgreSQL stopped (immediate: a crash) and started");
          postgres.stop("immediate");
          await sleep(Math.max(1_000, S * 0.02));
          postgres.start();
          say("  PostgreSQL back");
          return Date.now();
        },
      },
      { at: 0.5, name: "kill -9 gateway-2", inject: killAndRestart("gateway-2", Math.max(2_000, S * 0.03)) },
      // Mid-delivery (issue 24): the receiver holds the deliveries it gets, and the worker sending one dies.
      { at: 0.58, name: "kill -9 a worker mid-delivery", inject: killMidDelivery },
      {
        // Issue 24 item 5: a process whose log reader is gone keeps serving, and still stops on SIGTERM (checked at the end).
        at: 0.6,
        name: "gateway-1's log reader closed",
        inject: async () => {
          const proc = procs.get("gateway-1")!;
          say(`FAULT gateway-1's stdout/stderr reader closed (pid ${proc.child?.pid})`);
          proc.closeLogReader();
          await sleep(2_000);
          // Its own health check, not the balancer's: this very process must still answer.
          await waitFor("gateway-1 answering with a dead log pipe", healthy(proc.healthUrl!), 10_000);
          say("  gateway-1 still answers its health check");
          return Date.now();
        },
      },
      { at: 0.64, name: "origin 5xx", inject: originFault("error_5xx", Math.max(3_000, S * 0.05)) },
      // A call that reached the hung origin fails when the gateway's timeout runs out, after the spell.
      { at: 0.72, name: "origin hangs past the timeout", inject: originFault("hang", Math.max(2_000, S * 0.03), ORIGIN_TIMEOUT_MS + 1_000) },
      { at: 0.8, name: "origin closes mid-body", inject: originFault("close_mid_body", Math.max(3_000, S * 0.05)) },
      // Mid-settlement-poll (issue 24): a worker takes the lease over once it lapses and records the rest.
      { at: 0.86, name: "kill -9 a worker mid-settlement-poll", inject: killMidSettlementPoll },
    ];
    // The receiver's outage runs beside the others: two minutes in a 300 s run, scaled down for shorter ones.
    const receiverDownMs = Math.min(120_000, S * 0.4);
    const receiverFault = (async () => {
      await sleep(S * 0.15);
      say(`FAULT webhook receiver down for ${Math.round(receiverDownMs / 1000)} s`);
      const t0 = Date.now();
      await receiver!.stop();
      await sleep(receiverDownMs);
      await receiver!.start();
      say("  webhook receiver back");
      return { name: "webhook receiver down", startedAt: t0, endedAt: Date.now() };
    })();

    // Each fault hits a whole system: the previous one's restarts are done and every process serves
    // (on a loaded 2-core machine a gateway takes 15-45 s to start, so the schedule may stretch).
    const whole = async () => {
      await Promise.all(restarting);
      for (const proc of [...procs.values(), redis]) {
        await waitFor(`${proc.name} running`, async () => proc.alive, 60_000);
        await proc.ready();
      }
    };
    const faultRunner = (async () => {
      for (const fault of schedule) {
        const wait = loadStart + fault.at * S - Date.now();
        if (wait > 0) await sleep(wait);
        await whole();
        const began = Date.now();
        const span = await fault.inject();
        const { startedAt, endedAt, name = fault.name } = typeof span === "number" ? { startedAt: began, endedAt: span } : span;
        faults.push({ name, startedAt, endedAt, recoveredAt: null });
      }
      await Promise.all(restarting);
    })();
    let faultsDone = false;
    // Its failure is reported where it is awaited below, not as an unhandled rejection that would skip shutdown.
    faultRunner.finally(() => (faultsDone = true)).catch(() => undefined);
    // The load runs SOAK_SECONDS, and on until every fault is over and a few seconds of recovery were seen.
    let tailUntil = Infinity;
    const running = () => {
      if (faultsDone && tailUntil === Infinity) tailUntil = Date.now() + 8_000;
      return Date.now() < until || !faultsDone || Date.now() < tailUntil;
    };

    const directoryUrl = web ? `${topology.webUrl}/api/directory?q=soak` : null;
    await runLoad({
      endpoints: { base: `${topology.gatewayUrl}/gw/soak`, ...prices },
      wallet,
      freeTryToken: async (userId) => (await mintFreeTryToken({ appSecret, issuer: siteUrl, userId })).token,
      directoryUrl,
      users,
      running,
      record: (call) => calls.push(call),
      streamHoldMs: Math.max(2_000, Math.min(20_000, S * 0.05)),
    });
    await faultRunner;
    const receiverWindow = await receiverFault;
    const loadEnd = Date.now();
    say(`load done: ${calls.length} calls in ${Math.round((loadEnd - loadStart) / 1000)} s`);

    for (const fault of faults) {
      const good = firstGoodPaidCall(calls, fault.startedAt);
      fault.recoveredAt = good;
    }

    // Webhooks: wait until the outbox is fanned out and every delivery has finished (retries are
    // 10 s, 60 s and 300 s apart, spec 6.2), as long as the longest retry needs.
    // The settlement pass the kill interrupted must finish before the audit reads what is settled.
    await settlementRecorded;
    say("draining webhook deliveries");
    const drainStart = Date.now();
    await waitFor(
      "webhook deliveries",
      async () => {
        const [undispatched, open] = await Promise.all([
          prisma.outboxEvent.count({ where: { tenantId: tenant.tenantId, dispatchedAt: null } }),
          prisma.webhookDelivery.count({ where: { tenantId: tenant.tenantId, status: { in: ["pending", "delivering"] } } }),
        ]);
        return undispatched === 0 && open === 0;
      },
      420_000,
    ).catch((err: Error) => say(`drain: ${err.message}`));
    say(`drained in ${Math.round((Date.now() - drainStart) / 1000)} s`);

    const [proofs, invoices, paidAtWallet, sessions, credits, outbox, failedDeliveries] = await Promise.all([
      prisma.proof.findMany({ where: { tenantId: tenant.tenantId }, select: { paymentHash: true, state: true } }),
      prisma.invoice.findMany({ where: { tenantId: tenant.tenantId, status: "settled" }, select: { paymentHash: true } }),
      // Every invoice of the tenant its wallet (the dev node) was paid, whether a proof presented it or not.
      prisma.$queryRaw<{ paymentHash: string }[]>`
        SELECT d."paymentHash" FROM "DevNodeInvoice" d JOIN "Invoice" i ON i."paymentHash" = d."paymentHash"
        WHERE d."settledAt" IS NOT NULL AND i."tenantId" = ${tenant.tenantId}`,
      prisma.paymentSession.findMany({ where: { tenantId: tenant.tenantId } }),
      prisma.credit.findMany({ where: { tenantId: tenant.tenantId } }),
      prisma.outboxEvent.findMany({ where: { tenantId: tenant.tenantId }, select: { id: true, type: true, data: true } }),
      prisma.webhookDelivery.count({ where: { tenantId: tenant.tenantId, status: "failed" } }),
    ]);
    // The envelope's id is the delivery's (one per subscription and event): count them per event.
    const deliveries = await prisma.webhookDelivery.findMany({ where: { tenantId: tenant.tenantId }, select: { id: true, eventId: true } });
    const received = new Map(deliveries.map((d) => [d.eventId, receiver!.events.get(d.id)?.deliveries ?? 0]));
    const report = audit({
      calls,
      proofs,
      settledInvoices: invoices,
      paidAtWallet: paidAtWallet.map((p) => p.paymentHash),
      sessions: sessions.map((s) => ({ id: s.id, paymentHash: s.paymentHash, expired: s.expiredEventAt !== null })),
      ledgers: [
        ...sessions.map((s) => ({ key: `session:${s.tokenHash}`, initial: s.initialBalance, balance: s.balance })),
        ...credits.map((c) => ({ key: `credit:${c.paymentHash}`, initial: c.initialSats, balance: c.balanceSats })),
      ],
      outbox: outbox.map((e) => {
        const data = (e.data ?? {}) as { paymentHash?: string; sessionId?: string };
        return { id: e.id, type: e.type, paymentHash: data.paymentHash ?? null, sessionId: data.sessionId ?? null };
      }),
      received,
      // The receiver's outage is no client's failure: its invariants are the events' own.
      faults,
      faultGraceMs: FAULT_GRACE_MS,
    });

    // Figures: requests by kind, latency and throughput in and out of fault windows.
    const windows = faults.map((f) => [f.startedAt, f.endedAt + FAULT_GRACE_MS] as const);
    const inFault = (c: CallRecord) => windows.some(([a, b]) => c.startedAt <= b && c.endedAt >= a);
    const faultMs = unionMs(windows, loadStart, loadEnd);
    const byKind: Record<string, { calls: number; statuses: Record<string, number> }> = {};
    for (const c of calls) {
      const k = (byKind[c.kind] ??= { calls: 0, statuses: {} });
      k.calls += 1;
      const status = c.status === null ? "no answer" : String(c.status);
      k.statuses[status] = (k.statuses[status] ?? 0) + 1;
    }
    const latencies = (list: CallRecord[]) => list.filter((c) => c.kind !== "stream" && c.status !== null).map((c) => c.endedAt - c.startedAt);
    const inside = calls.filter(inFault);
    const outside = calls.filter((c) => !inFault(c));
    const loadSeconds = (loadEnd - loadStart) / 1000;
    const figures = {
      command: `SOAK_SECONDS=${seconds}${web ? " SOAK_WEB=1" : ""} npm run soak`,
      users,
      loadSeconds: Math.round(loadSeconds),
      totalSeconds: Math.round((Date.now() - started) / 1000),
      calls: calls.length,
      byKind,
      throughput: {
        outsideFaults: {
          calls: outside.length,
          perSecond: +(outside.length / Math.max(1, loadSeconds - faultMs / 1000)).toFixed(1),
          p50Ms: percentile(latencies(outside), 50),
          p99Ms: percentile(latencies(outside), 99),
        },
        duringFaults: {
          calls: inside.length,
          perSecond: +(inside.length / Math.max(1, faultMs / 1000)).toFixed(1),
          p50Ms: percentile(latencies(inside), 50),
          p99Ms: percentile(latencies(inside), 99),
        },
      },
      faults: [...faults, { ...receiverWindow, recoveredAt: null }].map((f) => ({
        name: f.name,
        at: `+${Math.round((f.startedAt - loadStart) / 1000)} s`,
        windowS: +((f.endedAt - f.startedAt) / 1000).toFixed(1),
        recoveryS: f.recoveredAt === null ? null : +((f.recoveredAt - f.startedAt) / 1000).toFixed(2),
      })),
      database: {
        proofs: proofs.length,
        settledInvoices: invoices.length,
        sessions: sessions.length,
        credits: credits.length,
        outboxEvents: outbox.length,
        failedDeliveries,
      },
      webhooks: { eventsReceived: receiver.events.size, deliveriesReceived: [...receiver.events.values()].reduce((a, b) => a + b.deliveries, 0) },
      restarts,
      settlementKill,
      unplannedExits: [...procs.values(), redis].flatMap((p) =>
        p.unplannedExits.map((e) => ({ process: p.name, at: `+${Math.round((e.at - loadStart) / 1000)} s`, how: e.how })),
      ),
      audit: report,
      sampleErrors: [...new Set(calls.filter((c) => c.error).map((c) => `${c.kind}: ${c.error}`))].slice(0, 10),
    };
    const reportDir = path.join(repositoryRoot, ".data");
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(path.join(reportDir, "soak-report.json"), JSON.stringify(figures, null, 2));
    writeFileSync(path.join(reportDir, "soak-calls.json"), JSON.stringify({ loadStart, faults, calls }));
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    say(
      report.ok
        ? "AUDIT PASSED: 0 violations"
        : `AUDIT FAILED: ${report.invariants
            .filter((i) => i.violations)
            .map((i) => `${i.name} (${i.violations})`)
            .join("; ")}`,
    );
    exitCode = report.ok ? 0 : 1;
  } finally {
    await shutdown();
  }
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
