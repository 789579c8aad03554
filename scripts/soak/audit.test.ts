// The soak's audit must fail a run that lost or duplicated money or events: each fixture breaks one
// invariant and the audit has to name it; a clean fixture passes.
import { describe, expect, it } from "vitest";
import { audit, firstGoodPaidCall, percentile, unionMs, type AuditInput, type CallRecord } from "./audit.ts";

const hash = (n: number) => n.toString(16).padStart(64, "0");
const call = (over: Partial<CallRecord>): CallRecord => ({
  kind: "per_request",
  startedAt: 1_000,
  endedAt: 1_050,
  status: 200,
  payment: "charged",
  complete: true,
  ...over,
});

/** A small run with no violation: two proofs, one session, one credit, their events delivered. */
function cleanRun(): AuditInput {
  return {
    calls: [
      call({ proofHash: hash(1) }),
      call({ kind: "stream", proofHash: hash(2) }),
      // A failed origin call, reverted: the proof is released.
      call({ proofHash: hash(3), status: 502, payment: "reverted" }),
      call({ kind: "token_bucket", ledger: "session:s1", charge: 1 }),
      call({ kind: "token_bucket", ledger: "session:s1", charge: 1, status: 502, payment: "refunded_to_balance" }),
      call({ kind: "credit", ledger: "credit:c1", charge: 3 }),
      call({ kind: "free", payment: null }),
    ],
    proofs: [
      { paymentHash: hash(1), state: "consumed" },
      { paymentHash: hash(2), state: "consumed" },
      { paymentHash: hash(3), state: "released" },
    ],
    settledInvoices: [{ paymentHash: hash(1) }, { paymentHash: hash(2) }, { paymentHash: hash(3) }, { paymentHash: hash(4) }],
    paidAtWallet: [hash(1), hash(2), hash(3), hash(4)],
    sessions: [{ id: "sess-1", paymentHash: hash(4), expired: true }],
    ledgers: [
      { key: "session:s1", initial: 5, balance: 4 },
      { key: "credit:c1", initial: 100, balance: 97 },
    ],
    outbox: [
      { id: "e1", type: "invoice.settled", paymentHash: hash(1), sessionId: null },
      { id: "e2", type: "invoice.settled", paymentHash: hash(2), sessionId: null },
      { id: "e3", type: "invoice.settled", paymentHash: hash(3), sessionId: null },
      { id: "e4", type: "invoice.settled", paymentHash: hash(4), sessionId: null },
      { id: "e5", type: "session.created", paymentHash: hash(4), sessionId: "sess-1" },
      { id: "e6", type: "session.expired", paymentHash: null, sessionId: "sess-1" },
    ],
    received: new Map([
      ["e1", 1],
      ["e2", 2],
      ["e3", 1],
      ["e4", 1],
      ["e5", 1],
      ["e6", 1],
    ]),
    // The two 502s fall inside this fault's window.
    faults: [{ name: "origin 5xx", startedAt: 900, endedAt: 1_100, recoveredAt: 1_200 }],
    faultGraceMs: 0,
  };
}

const violated = (input: AuditInput) =>
  audit(input)
    .invariants.filter((i) => i.violations > 0)
    .map((i) => i.name);

describe("soak audit", () => {
  it("passes a clean run and counts duplicates and refunds without failing", () => {
    const report = audit(cleanRun());
    expect(report.invariants.filter((i) => i.violations > 0)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.notes["invoice.settled duplicate deliveries"]).toBe(1);
    expect(report.notes.refunds).toBe(2);
  });

  it("fails an invoice paid at the wallet that the platform never settled, and one settled that was never paid", () => {
    const unrecorded = cleanRun();
    unrecorded.paidAtWallet.push(hash(9));
    expect(violated(unrecorded)).toEqual(["invoice paid at the wallet ↔ settled in the platform"]);
    const unpaid = cleanRun();
    unpaid.paidAtWallet = unpaid.paidAtWallet.filter((h) => h !== hash(4));
    expect(violated(unpaid)).toEqual(["invoice paid at the wallet ↔ settled in the platform"]);
  });

  it("fails a proof served twice", () => {
    const run = cleanRun();
    run.calls.push(call({ proofHash: hash(1) }));
    expect(violated(run)).toEqual(["proof served at most once"]);
  });

  it("fails a charged response whose proof the database released, and a consumed proof nobody was served", () => {
    const released = cleanRun();
    released.proofs[0].state = "released";
    expect(violated(released)).toEqual(["charged per_request response (streams included) ↔ one consumed proof"]);
    const unserved = cleanRun();
    unserved.proofs[2].state = "consumed";
    expect(violated(unserved)).toEqual(["charged per_request response (streams included) ↔ one consumed proof"]);
  });

  it("notes a stream cut by a killed gateway whose proof is still claimed, but fails one the client left normally", () => {
    const cut = cleanRun();
    cut.calls[1].complete = false;
    cut.proofs[1].state = "claimed";
    const report = audit(cut);
    expect(violated(cut)).toEqual([]);
    expect(report.notes["stream proofs left claimed by a gateway killed before its commit"]).toBe(1);
    const left = cleanRun();
    left.proofs[1].state = "claimed";
    expect(violated(left)).toEqual(["charged per_request response (streams included) ↔ one consumed proof"]);
  });

  it("fails a charge kept on a failed call, and a refund on a served one", () => {
    const kept = cleanRun();
    kept.calls[2] = call({ proofHash: hash(3), status: 502, payment: "charged" });
    kept.proofs[2].state = "consumed";
    expect(violated(kept)).toEqual(["refund ↔ failed call (5xx from the origin)"]);
    const refundedOk = cleanRun();
    refundedOk.calls.push(call({ kind: "metered", status: 200, payment: "refunded_to_balance" }));
    expect(violated(refundedOk)).toEqual(["refund ↔ failed call (5xx from the origin)"]);
  });

  it("fails a balance below zero or off grant − debits + refunds", () => {
    const negative = cleanRun();
    negative.ledgers.push({ key: "session:s2", initial: 0, balance: -1 });
    expect(violated(negative)).toContain("session and credit balances ≥ 0");
    const off = cleanRun();
    off.ledgers[1].balance = 94;
    expect(violated(off)).toEqual(["balance = grant − debits + refunds"]);
  });

  it("accepts a lost answer's debit within its bound, not beyond", () => {
    const run = cleanRun();
    run.calls.push(call({ kind: "credit", ledger: "credit:c1", charge: 3, status: null, payment: null, complete: false, startedAt: 950 }));
    run.ledgers[1].balance = 94;
    expect(violated(run)).toEqual([]);
    run.ledgers[1].balance = 93;
    expect(violated(run)).toEqual(["balance = grant − debits + refunds"]);
  });

  it("notes a balance no call named (its token was lost with the answer), but fails one above its grant", () => {
    const run = cleanRun();
    run.ledgers.push({ key: "session:lost", initial: 20, balance: 18 });
    expect(violated(run)).toEqual([]);
    expect(audit(run).notes["balances bought by an answer lost to a fault (token never reached the client)"]).toBe(1);
    run.ledgers[2].balance = 21;
    expect(violated(run)).toEqual(["balance = grant − debits + refunds"]);
  });

  it("fails a lost event, a missing event and a doubled event", () => {
    const lost = cleanRun();
    lost.received.delete("e5");
    expect(violated(lost)).toEqual(["session.created: delivered at least once"]);
    const missing = cleanRun();
    missing.outbox = missing.outbox.filter((e) => e.id !== "e6");
    expect(violated(missing)).toEqual(["session.expired: exactly one event per fact"]);
    const doubled = cleanRun();
    doubled.outbox.push({ id: "e7", type: "invoice.settled", paymentHash: hash(2), sessionId: null });
    doubled.received.set("e7", 1);
    expect(violated(doubled)).toEqual(["invoice.settled: exactly one event per fact"]);
  });

  it("fails a 5xx outside every fault window and a fault never recovered from", () => {
    const outside = cleanRun();
    outside.calls.push(call({ kind: "free", status: 503, payment: null, startedAt: 5_000, endedAt: 5_010 }));
    expect(violated(outside)).toEqual(["no 5xx or lost answer outside fault windows"]);
    const stuck = cleanRun();
    stuck.faults[0].recoveredAt = null;
    expect(violated(stuck)).toEqual(["every fault followed by a good paid call"]);
  });

  it("finds the first good paid call after a moment, and nearest-rank percentiles", () => {
    const calls = [
      call({ startedAt: 10, endedAt: 30 }),
      call({ startedAt: 20, endedAt: 25, status: 502, payment: "reverted" }),
      call({ startedAt: 21, endedAt: 40 }),
    ];
    expect(firstGoodPaidCall(calls, 15)).toBe(40);
    expect(firstGoodPaidCall(calls, 50)).toBeNull();
    expect(percentile([5, 1, 4, 2, 3], 99)).toBe(5);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([], 99)).toBeNull();
  });

  it("measures the time fault windows cover once, however they overlap, within the run", () => {
    expect(
      unionMs(
        [
          [10, 20],
          [15, 40],
          [50, 60],
        ],
        0,
        100,
      ),
    ).toBe(40);
    expect(
      unionMs(
        [
          [90, 130],
          [0, 5],
        ],
        0,
        100,
      ),
    ).toBe(15);
    expect(unionMs([], 0, 100)).toBe(0);
  });
});
