// The capacity rules and the debounce, as pure functions: reasons in order of severity, N checks
// before anything is announced, one degraded event per 6 h, and a paired ok on recovery.
import { describe, expect, it } from "vitest";
import { assessCapacity, CAPACITY_RULES, nextCapacityState, type CapacityAssessment, type CapacityState } from "./capacity-monitor.ts";

const healthy = { activeChannels: 2, totalChannels: 2, receivingCapacitySat: 500_000, totalCapacitySat: 2_000_000 };

describe("assessCapacity", () => {
  it.each([
    [{ ...healthy, totalChannels: 0, activeChannels: 0, receivingCapacitySat: 0, totalCapacitySat: 0 }, "no_channels"],
    [{ ...healthy, activeChannels: 0, receivingCapacitySat: 0 }, "peers_offline"],
    [{ ...healthy, peersOnline: 0 }, "peers_offline"],
    [{ ...healthy, receivingCapacitySat: 999 }, "receiving_full"],
    [{ ...healthy, receivingCapacitySat: 99_999, totalCapacitySat: 2_000_000 }, "receiving_low"],
    // Below 10% but above 100k sats: a big node still takes thousands of calls.
    [{ ...healthy, receivingCapacitySat: 150_000, totalCapacitySat: 20_000_000 }, null],
    // Below 100k sats but above 10% of a small node.
    [{ ...healthy, receivingCapacitySat: 30_000, totalCapacitySat: 200_000 }, null],
    [healthy, null],
  ])("%o -> %s", (reading, reason) => {
    expect(assessCapacity(reading)).toEqual(reason ? { status: "degraded", reason } : { status: "ok", reason: null });
  });
});

const fresh: CapacityState = {
  capacityStatus: null,
  capacityReason: null,
  capacityPendingStatus: null,
  capacityPendingReason: null,
  capacityPendingCount: 0,
  capacityDegradedEventAt: null,
  capacityCheckedAt: null,
};
const ok: CapacityAssessment = { status: "ok", reason: null };
const low: CapacityAssessment = { status: "degraded", reason: "receiving_low" };
const offline: CapacityAssessment = { status: "degraded", reason: "peers_offline" };

/** Runs a sequence of observations 5 minutes apart; returns the events in order with their check index. */
function run(observations: CapacityAssessment[], start = fresh, t0 = Date.parse("2026-11-21T00:00:00Z")) {
  let state = start;
  const events: [number, string][] = [];
  observations.forEach((observed, i) => {
    const next = nextCapacityState(state, observed, new Date(t0 + i * 5 * 60_000));
    state = next.state;
    if (next.event) events.push([i, next.event]);
  });
  return { state, events };
}

describe("nextCapacityState", () => {
  it("announces nothing for a healthy node, and a degradation only after 3 checks in a row", () => {
    expect(run([ok, ok, ok]).events).toEqual([]);
    expect(run([ok, low, low, ok, low, low]).events).toEqual([]);
    const { events, state } = run([ok, low, low, low]);
    expect(events).toEqual([[3, "degraded"]]);
    expect(state).toMatchObject({ capacityStatus: "degraded", capacityReason: "receiving_low", capacityPendingCount: 0 });
  });

  it("pairs a recovery with an ok event after the same debounce", () => {
    expect(run([low, low, low, ok, low, ok, ok, ok]).events).toEqual([
      [2, "degraded"],
      [7, "ok"],
    ]);
  });

  it("sends at most one degraded event per 6 hours, announcing a re-degradation once the window passes", () => {
    // Degraded (event), recovered (ok) within the hour, degraded again: held back until 6 h after the first.
    const obs = [low, low, low, ok, ok, ok, ...Array(80).fill(low)];
    const { events } = run(obs);
    expect(events.slice(0, 2)).toEqual([
      [2, "degraded"],
      [5, "ok"],
    ]);
    // Check 2 was at t=10 min; 6 h later is t=370 min = check 74.
    expect(events[2]).toEqual([74, "degraded"]);
    expect(events).toHaveLength(3);
  });

  it("updates the reason of an announced degradation without a second event inside 6 hours", () => {
    const { events, state } = run([low, low, low, offline, offline, offline]);
    expect(events).toEqual([[2, "degraded"]]);
    expect(state).toMatchObject({ capacityStatus: "degraded", capacityReason: "peers_offline" });
  });

  it("forgets old debounce state when the wallet was reconnected (checkedAt reset)", () => {
    const stale: CapacityState = {
      ...fresh,
      capacityStatus: null,
      capacityPendingStatus: "degraded",
      capacityPendingReason: "receiving_low",
      capacityPendingCount: 2,
      capacityDegradedEventAt: new Date(),
      capacityCheckedAt: null,
    };
    expect(run([low], stale).events).toEqual([]);
    expect(run([low, low, low], stale).events).toEqual([[2, "degraded"]]);
  });

  it("uses the documented rule constants", () => {
    expect(CAPACITY_RULES.confirmChecks).toBe(3);
    expect(CAPACITY_RULES.degradedEventIntervalMs).toBe(6 * 3600_000);
  });
});
