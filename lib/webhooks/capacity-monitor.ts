// node.capacity_changed (spec 6.1): the worker reads the channel liquidity of every node that
// workspaces are paid through (wallets whose backend can report it: the dev node, LND), decides ok or
// degraded with a reason, debounces, and tells every workspace paid through that node: one degraded
// event per confirmed degradation (at most one per 6 h) and a paired ok on recovery.
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { enqueueEvent } from "@/lib/events/enqueue-event.ts";
import type { CapacityReason, EventData } from "@/lib/events/catalogue.ts";

/**
 * What the monitor needs from a backend (owned here, the consumer): LND's and the dev node's
 * optional `getCapacity()` return this shape. Backends without it are skipped.
 */
export type CapacityReading = {
  activeChannels: number;
  totalChannels: number;
  /** Remote balance of the active channels: what the node can receive right now. */
  receivingCapacitySat: number;
  /** Capacity of all channels, active or not. */
  totalCapacitySat: number;
  /** Peers with an active channel, when the backend can tell. */
  peersOnline?: number;
};

/** A backend that can report capacity. */
export type CapacityReporter = { getCapacity(): Promise<CapacityReading> };

/** The rules, documented in docs/webhooks.md ("node.capacity_changed"). */
export const CAPACITY_RULES = {
  /** Below this the node is `receiving_full`: it cannot take even a modest payment. */
  receivingFullBelowSat: 1_000,
  /** `receiving_low` when receivable liquidity is below BOTH this share of total capacity… */
  receivingLowBelowShare: 0.1,
  /** …and this absolute amount (a big node with 5% inbound still takes thousands of calls). */
  receivingLowBelowSat: 100_000,
  /** The same new state must be seen this many checks in a row before it is announced (5 min apart: 15 min). */
  confirmChecks: 3,
  /** At most one degraded event per node per this interval (the capacity e-mail's debounce). */
  degradedEventIntervalMs: 6 * 60 * 60 * 1000,
  /** A backend that does not answer within this is skipped for this check (unknown, not degraded). */
  readingTimeoutMs: 10_000,
} as const;

/** The thresholds and timings, overridable in tests. */
export type CapacityRules = { readonly [K in keyof typeof CAPACITY_RULES]: number };

/** The state of a node from one reading: ok, or degraded with the spec 6.1 reason. */
export type CapacityAssessment = { status: "ok"; reason: null } | { status: "degraded"; reason: CapacityReason };

/** Pure: the state of a node from one reading. Reasons are checked in order of severity. */
export function assessCapacity(reading: CapacityReading, rules: CapacityRules = CAPACITY_RULES): CapacityAssessment {
  // A channel closed by its peer disappears from the list: it ends up here too (spec 6.1).
  if (reading.totalChannels === 0) return { status: "degraded", reason: "no_channels" };
  if (reading.activeChannels === 0 || reading.peersOnline === 0) return { status: "degraded", reason: "peers_offline" };
  if (reading.receivingCapacitySat < rules.receivingFullBelowSat) return { status: "degraded", reason: "receiving_full" };
  if (reading.receivingCapacitySat < rules.receivingLowBelowShare * reading.totalCapacitySat && reading.receivingCapacitySat < rules.receivingLowBelowSat) {
    return { status: "degraded", reason: "receiving_low" };
  }
  return { status: "ok", reason: null };
}

/** The monitor's memory per wallet (Wallet.capacity* columns): what was announced, and what is pending. */
export type CapacityState = {
  /** Last announced status (`ok` also after a silent first healthy check); null before any check. */
  capacityStatus: string | null;
  capacityReason: string | null;
  capacityPendingStatus: string | null;
  capacityPendingReason: string | null;
  capacityPendingCount: number;
  capacityDegradedEventAt: Date | null;
  capacityCheckedAt: Date | null;
};

/**
 * Pure debounce: the next state of one wallet after one assessment, and the event to send if any.
 * A reconnected wallet (capacityCheckedAt reset to null) starts from scratch.
 */
export function nextCapacityState(
  previous: CapacityState,
  observed: CapacityAssessment,
  now: Date,
  rules: CapacityRules = CAPACITY_RULES,
): { state: CapacityState; event: "degraded" | "ok" | null } {
  const base: CapacityState =
    previous.capacityCheckedAt === null
      ? {
          capacityStatus: null,
          capacityReason: null,
          capacityPendingStatus: null,
          capacityPendingReason: null,
          capacityPendingCount: 0,
          capacityDegradedEventAt: null,
          capacityCheckedAt: null,
        }
      : previous;
  const cleared = { capacityPendingStatus: null, capacityPendingReason: null, capacityPendingCount: 0, capacityCheckedAt: now };
  const announced = base.capacityStatus ?? "ok";
  if (observed.status === announced && (observed.status === "ok" || observed.reason === base.capacityReason)) {
    return { state: { ...base, ...cleared, capacityStatus: announced, capacityReason: observed.reason }, event: null };
  }
  const samePending = base.capacityPendingStatus === observed.status && base.capacityPendingReason === observed.reason;
  const count = Math.min(samePending ? base.capacityPendingCount + 1 : 1, rules.confirmChecks);
  const pending = { capacityPendingStatus: observed.status, capacityPendingReason: observed.reason, capacityPendingCount: count, capacityCheckedAt: now };
  if (count < rules.confirmChecks) return { state: { ...base, ...pending }, event: null };

  if (observed.status === "ok") return { state: { ...base, ...cleared, capacityStatus: "ok", capacityReason: null }, event: "ok" };
  const last = base.capacityDegradedEventAt;
  if (last === null || now.getTime() - last.getTime() >= rules.degradedEventIntervalMs) {
    return { state: { ...base, ...cleared, capacityStatus: "degraded", capacityReason: observed.reason, capacityDegradedEventAt: now }, event: "degraded" };
  }
  // Already announced as degraded and only the reason moved: show it, but no second event within 6 h.
  if (announced === "degraded") return { state: { ...base, ...cleared, capacityStatus: "degraded", capacityReason: observed.reason }, event: null };
  // Degraded again within 6 h of the last degraded event: keep it pending; announced once the window passes.
  return { state: { ...base, ...pending }, event: null };
}

/** What one monitor pass needs; walletFor decides which wallets this worker can read. */
export type CheckNodeCapacityOptions = {
  prisma: PrismaClient;
  /** The backend of a wallet, or null when it is not reachable from this worker. */
  walletFor: (wallet: { tenantId: string; type: string; nodePubkey: string }) => Promise<unknown>;
  now?: () => Date;
  rules?: CapacityRules;
  log?: Logger;
};

function canReportCapacity(backend: unknown): backend is CapacityReporter {
  return typeof backend === "object" && backend !== null && typeof (backend as { getCapacity?: unknown }).getCapacity === "function";
}

async function readCapacity(reporter: CapacityReporter, timeoutMs: number): Promise<CapacityReading> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      reporter.getCapacity(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no capacity reading within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const wholeSats = (n: number) => Math.max(0, Math.floor(n));

/**
 * One pass: reads each node once (through any of its wallets that can report), then applies the
 * debounce to every wallet of that node in its own transaction, writing the event to the outbox in
 * the same transaction as the state change. Returns how many nodes were read and events written.
 */
export async function checkNodeCapacity(options: CheckNodeCapacityOptions): Promise<{ nodes: number; events: number }> {
  const { prisma } = options;
  const rules = options.rules ?? CAPACITY_RULES;
  const now = options.now ?? (() => new Date());
  const wallets = await prisma.wallet.findMany({
    where: { nodePubkey: { not: null } },
    select: { id: true, tenantId: true, type: true, nodePubkey: true },
    orderBy: { id: "asc" },
  });
  const byNode = new Map<string, typeof wallets>();
  for (const w of wallets) byNode.set(w.nodePubkey!, [...(byNode.get(w.nodePubkey!) ?? []), w]);

  let nodes = 0;
  let events = 0;
  for (const [nodeId, nodeWallets] of byNode) {
    let reading: CapacityReading | null = null;
    for (const w of nodeWallets) {
      try {
        const backend = await options.walletFor({ tenantId: w.tenantId, type: w.type, nodePubkey: nodeId });
        if (!canReportCapacity(backend)) continue;
        reading = await readCapacity(backend, rules.readingTimeoutMs);
        break;
      } catch (err) {
        options.log?.warn("node capacity reading failed", { nodeId, tenantId: w.tenantId, error: err });
      }
    }
    if (!reading) continue;
    nodes += 1;
    const observed = assessCapacity(reading, rules);
    const data = (status: "ok" | "degraded"): EventData<"node.capacity_changed"> => ({
      nodeId,
      status,
      reason: status === "ok" ? null : observed.reason,
      activeChannels: wholeSats(reading!.activeChannels),
      totalChannels: wholeSats(reading!.totalChannels),
      receivingCapacitySat: wholeSats(reading!.receivingCapacitySat),
      totalCapacitySat: wholeSats(reading!.totalCapacitySat),
    });
    for (const w of nodeWallets) {
      const checkedAt = now();
      const sent = await prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<CapacityState[]>`
          SELECT "capacityStatus", "capacityReason", "capacityPendingStatus", "capacityPendingReason", "capacityPendingCount",
                 "capacityDegradedEventAt", "capacityCheckedAt"
          FROM "Wallet" WHERE "id" = ${w.id} AND "nodePubkey" = ${nodeId} FOR UPDATE`;
        if (!rows[0]) return false;
        const { state, event } = nextCapacityState(rows[0], observed, checkedAt, rules);
        await tx.wallet.update({ where: { id: w.id }, data: state });
        if (event) await enqueueEvent(tx, { tenantId: w.tenantId, type: "node.capacity_changed", data: data(event) });
        return event !== null;
      });
      if (sent) events += 1;
    }
  }
  return { nodes, events };
}
