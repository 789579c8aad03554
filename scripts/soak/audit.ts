// The soak's audit (issue 24 item 3): pure arithmetic over what the database holds after the run and
// what the clients themselves recorded, so a unit test can feed it a violating fixture. Every
// invariant is counted (checked, violations, examples), and the soak exits non-zero on any violation.

/** What a soak client did, by kind of load. */
export type LoadKind = "per_request" | "credit" | "per_kb" | "token_bucket" | "time_pass" | "metered" | "free_try" | "cached" | "stream" | "free" | "directory";

/** One call as the client saw it. */
export type CallRecord = {
  kind: LoadKind;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or null when no response arrived (connection refused or reset, timeout). */
  status: number | null;
  /** X-Hub-Payment: charged | reverted | refunded_to_balance | not_charged, or null. */
  payment: string | null;
  /** True when the body was read to its end (a cut body is not a served call). */
  complete: boolean;
  /** per_request: the payment hash of the proof this call presented. */
  proofHash?: string | null;
  /** Sessions and credit: `session:<tokenHash>` or `credit:<paymentHash>` the call spent from. */
  ledger?: string | null;
  /** What a charged call takes from that ledger (requests or sats), by the price sold. */
  charge?: number;
  /** Why no answer came (the client's error), for the report. */
  error?: string;
};

/** A balance the database holds: a payment session or a credit. */
export type LedgerRow = { key: string; initial: number | null; balance: number | null };

/** An outbox event, reduced to what the audit matches on. */
export type OutboxRow = { id: string; type: string; paymentHash: string | null; sessionId: string | null };

/** A fault the soak injected: the window in which failures are expected, and when paid calls worked again. */
export type FaultRecord = { name: string; startedAt: number; endedAt: number; recoveredAt: number | null };

export type AuditInput = {
  calls: CallRecord[];
  /** Proof rows: payment hash and state (claimed | consumed | released). */
  proofs: Array<{ paymentHash: string; state: string }>;
  /** Settled invoices of the soak's tenant. */
  settledInvoices: Array<{ paymentHash: string }>;
  /** Payment hashes of the tenant's invoices its wallet was paid (the dev node's own record). */
  paidAtWallet: string[];
  /** Sessions (with the payment hash that bought them, and whether session.expired was written). */
  sessions: Array<{ id: string; paymentHash: string; expired: boolean }>;
  ledgers: LedgerRow[];
  outbox: OutboxRow[];
  /** Deliveries the receiver counted, by event id. */
  received: Map<string, number>;
  faults: FaultRecord[];
  /** Failures are expected this long after a fault window ends (a hung origin call lasts the gateway's 30 s timeout). */
  faultGraceMs: number;
};

export type Invariant = { name: string; checked: number; violations: number; examples: string[] };

export type AuditReport = {
  invariants: Invariant[];
  /** Informational counts: not violations, but said out loud. */
  notes: Record<string, number>;
  ok: boolean;
};

const REFUND_OUTCOMES = new Set(["reverted", "refunded_to_balance"]);

function invariant(name: string): Invariant & { fail(example: string): void; check(): void } {
  const inv = {
    name,
    checked: 0,
    violations: 0,
    examples: [] as string[],
    fail(example: string) {
      inv.violations += 1;
      if (inv.examples.length < 5) inv.examples.push(example);
    },
    check() {
      inv.checked += 1;
    },
  };
  return inv;
}

/** True when a call overlaps a fault window (widened by the grace after it). */
function duringFault(call: CallRecord, faults: FaultRecord[], graceMs: number): boolean {
  return faults.some((f) => call.startedAt <= f.endedAt + graceMs && call.endedAt >= f.startedAt);
}

/** Runs every invariant over the run's records. */
export function audit(input: AuditInput): AuditReport {
  const notes: Record<string, number> = {};
  const note = (key: string, n = 1) => void (notes[key] = (notes[key] ?? 0) + n);

  // 1. Every proof served at most once, and every charged per_request response is a consumed proof.
  const servedOnce = invariant("proof served at most once");
  const chargedIsConsumed = invariant("charged per_request response (streams included) ↔ one consumed proof");
  const proofState = new Map(input.proofs.map((p) => [p.paymentHash, p.state]));
  const chargedByProof = new Map<string, number>();
  const unknownOutcomeProofs = new Set<string>();
  /** Streams cut before the client left them (a gateway killed mid-stream). */
  const cutStreamProofs = new Set<string>();
  for (const call of input.calls) {
    if (call.kind !== "per_request" && call.kind !== "cached" && call.kind !== "stream") continue;
    if (!call.proofHash) continue;
    if (call.payment === null && (call.status === null || call.status >= 500)) unknownOutcomeProofs.add(call.proofHash);
    if (call.payment !== "charged") continue;
    if (call.kind === "stream" && !call.complete) cutStreamProofs.add(call.proofHash);
    chargedByProof.set(call.proofHash, (chargedByProof.get(call.proofHash) ?? 0) + 1);
  }
  for (const [hash, times] of chargedByProof) {
    servedOnce.check();
    if (times > 1) servedOnce.fail(`proof ${hash.slice(0, 12)}… charged ${times} times`);
    chargedIsConsumed.check();
    // A gateway killed between a stream's headers and the commit at its first content leaves the
    // claim to lapse at its lease's end (the proof then redeems again: the payer's favour, never a
    // double charge); counted, not a violation (RELIABILITY.md, "Open findings").
    if (proofState.get(hash) === "claimed" && cutStreamProofs.has(hash)) note("stream proofs left claimed by a gateway killed before its commit");
    else if (proofState.get(hash) !== "consumed")
      chargedIsConsumed.fail(`proof ${hash.slice(0, 12)}… charged but ${proofState.get(hash) ?? "absent"} in the database`);
  }
  for (const [hash, state] of proofState) {
    if (state !== "consumed" || chargedByProof.has(hash)) continue;
    chargedIsConsumed.check();
    // Consumed while the client got no answer: only a process killed between commit and reply explains it.
    if (unknownOutcomeProofs.has(hash)) note("proofs consumed whose answer was lost (connection cut by a fault)");
    else chargedIsConsumed.fail(`proof ${hash.slice(0, 12)}… consumed with no charged response`);
  }

  // 2. Every refund matches a failed call, and every failed paid call was refunded.
  const refunds = invariant("refund ↔ failed call (5xx from the origin)");
  for (const call of input.calls) {
    if (call.status === null || call.payment === null) continue;
    const refunded = REFUND_OUTCOMES.has(call.payment);
    const failed = call.status >= 500;
    if (!refunded && !failed) continue;
    refunds.check();
    if (refunded && !failed) refunds.fail(`${call.kind}: ${call.payment} on a ${call.status}`);
    if (failed && call.payment === "charged") refunds.fail(`${call.kind}: charged on a ${call.status}`);
    if (refunded) note("refunds");
  }

  // 3. Balances: never below zero, and each equals grant − debits + refunds (refunded calls net zero).
  const nonNegative = invariant("session and credit balances ≥ 0");
  const balanced = invariant("balance = grant − debits + refunds");
  const debits = new Map<string, { charged: number; unknown: number }>();
  for (const call of input.calls) {
    if (!call.ledger) continue;
    const entry = debits.get(call.ledger) ?? { charged: 0, unknown: 0 };
    const charge = call.charge ?? 0;
    if (call.payment === "charged") entry.charged += charge;
    // No answer (or a cut one): the debit may or may not have stayed.
    else if (call.payment === null && (call.status === null || call.status >= 500 || !call.complete)) entry.unknown += charge;
    debits.set(call.ledger, entry);
  }
  for (const row of input.ledgers) {
    if (row.balance === null) continue;
    nonNegative.check();
    if (row.balance < 0) nonNegative.fail(`${row.key}: balance ${row.balance}`);
    if (row.initial === null) continue;
    const entry = debits.get(row.key);
    balanced.check();
    if (!entry) {
      // A session no client call ever named: bought by a call whose answer (and token) was lost to a
      // fault. The buying call may have debited it once; nothing else could.
      if (row.balance > row.initial) balanced.fail(`${row.key}: balance ${row.balance} above its grant ${row.initial}`);
      else note("balances bought by an answer lost to a fault (token never reached the client)");
      continue;
    }
    const high = row.initial - entry.charged;
    const low = high - entry.unknown;
    if (row.balance > high || row.balance < low) {
      balanced.fail(`${row.key}: grant ${row.initial}, charged ${entry.charged}, unresolved ≤ ${entry.unknown}, balance ${row.balance}`);
    } else if (entry.unknown > 0 && row.balance < high) {
      note("debits kept for answers lost to a fault (sats or requests)", high - row.balance);
    }
  }

  // 4. Events: exactly one per fact, each delivered at least once (duplicates counted, losses 0).
  const eventsOf = (type: string, key: "paymentHash" | "sessionId") => {
    const map = new Map<string, OutboxRow[]>();
    for (const row of input.outbox) {
      if (row.type !== type || !row[key]) continue;
      map.set(row[key]!, [...(map.get(row[key]!) ?? []), row]);
    }
    return map;
  };
  const delivered = (name: string, facts: string[], events: Map<string, OutboxRow[]>) => {
    const once = invariant(`${name}: exactly one event per fact`);
    const received = invariant(`${name}: delivered at least once`);
    for (const fact of facts) {
      const rows = events.get(fact) ?? [];
      once.check();
      if (rows.length !== 1) once.fail(`${fact.slice(0, 16)}: ${rows.length} events`);
      for (const row of rows) {
        received.check();
        const times = input.received.get(row.id) ?? 0;
        if (times === 0) received.fail(`event ${row.id} (${name}) never reached the receiver`);
        if (times > 1) note(`${name} duplicate deliveries`, times - 1);
      }
    }
    const known = new Set(facts);
    for (const [fact, rows] of events)
      if (!known.has(fact)) for (const row of rows) once.fail(`event ${row.id} (${name}) for an unknown fact ${fact.slice(0, 16)}`);
    return [once, received];
  };
  const eventInvariants = [
    ...delivered(
      "invoice.settled",
      input.settledInvoices.map((i) => i.paymentHash),
      eventsOf("invoice.settled", "paymentHash"),
    ),
    ...delivered(
      "session.created",
      input.sessions.map((s) => s.paymentHash),
      eventsOf("session.created", "paymentHash"),
    ),
    ...delivered(
      "session.expired",
      input.sessions.filter((s) => s.expired).map((s) => s.id),
      eventsOf("session.expired", "sessionId"),
    ),
  ];

  // 5. Every invoice the wallet was paid is settled in the platform (a proof presented it, or the
  // worker's settlement pass found it), and nothing is settled that the wallet was not paid.
  const paidSettled = invariant("invoice paid at the wallet ↔ settled in the platform");
  const settled = new Set(input.settledInvoices.map((i) => i.paymentHash));
  const paid = new Set(input.paidAtWallet);
  for (const hash of new Set([...settled, ...paid])) {
    paidSettled.check();
    if (!settled.has(hash)) paidSettled.fail(`invoice ${hash.slice(0, 12)}… paid at the wallet, not settled`);
    else if (!paid.has(hash)) paidSettled.fail(`invoice ${hash.slice(0, 12)}… settled, never paid at the wallet`);
  }

  // 6. No 5xx (and no lost answer) outside the fault windows.
  const quiet = invariant("no 5xx or lost answer outside fault windows");
  for (const call of input.calls) {
    quiet.check();
    const bad = call.status === null || call.status >= 500;
    if (!bad) continue;
    if (duringFault(call, input.faults, input.faultGraceMs)) note("5xx or lost answers inside fault windows");
    else quiet.fail(`${call.kind}: ${call.status ?? "no answer"} at ${new Date(call.startedAt).toISOString()}`);
  }

  // 7. Every fault recovered: a good paid call after it.
  const recovered = invariant("every fault followed by a good paid call");
  for (const fault of input.faults) {
    recovered.check();
    if (fault.recoveredAt === null) recovered.fail(`${fault.name}: no good paid call after it`);
  }

  const invariants: Invariant[] = [servedOnce, chargedIsConsumed, refunds, nonNegative, balanced, ...eventInvariants, paidSettled, quiet, recovered].map(
    ({ name, checked, violations, examples }) => ({ name, checked, violations, examples }),
  );
  return { invariants, notes, ok: invariants.every((i) => i.violations === 0) };
}

/** The moment of the first good paid call (2xx, charged) that started after `since`, or null. */
export function firstGoodPaidCall(calls: CallRecord[], since: number): number | null {
  let best: number | null = null;
  for (const call of calls) {
    if (call.startedAt < since || call.payment !== "charged" || call.status === null || call.status >= 300 || !call.complete) continue;
    if (best === null || call.endedAt < best) best = call.endedAt;
  }
  return best;
}

/** The p-th percentile (0-100) of `values` (nearest rank), or null for none. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** How much of [from, to] the windows cover together (they overlap: the hung origin's lasts 33 s). */
export function unionMs(windows: ReadonlyArray<readonly [number, number]>, from: number, to: number): number {
  let covered = 0;
  let reach = from;
  for (const [a, b] of [...windows].sort((x, y) => x[0] - y[0])) {
    const start = Math.max(a, reach);
    const end = Math.min(b, to);
    if (end > start) covered += end - start;
    reach = Math.max(reach, end);
  }
  return covered;
}
