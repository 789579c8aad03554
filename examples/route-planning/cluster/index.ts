// Clustering stops into groups: the pure core of /cluster. clusterStops takes a ClusterProblem
// (stops, groups, a metric on either distance basis, the strategy) and never fails for stops it
// cannot place: they come back as unassigned with the reason.
import { mutualComponents } from "./metric.ts";
import { LOAD_DIMENSIONS, emptyLoad, fits, overflow, type Cluster, type ClusterProblem, type ClusterResult, type GroupSpec, type Unplaced } from "./model.ts";
import { STRATEGY_FUNCTIONS } from "./strategies.ts";
import { equalizeWorkload, estimateTour, groupState, serviceSeconds, type GroupState } from "./workload.ts";

export * from "./model.ts";
export { haversineMeters, roadMetric, straightLineMetric, STRAIGHT_LINE_DETOUR_FACTOR, STRAIGHT_LINE_SPEED_MPS } from "./metric.ts";
export { vehicleLowerBound, sweepOrder } from "./strategies.ts";
export { estimateTour } from "./workload.ts";

export const REASONS = {
  unreachableFromDepot: "not reachable by road both ways from the depot (an island or a one-way trap)",
  unreachable: "not reachable by road both ways from the other stops (an island or a one-way trap)",
  noRoom: "no vehicle has capacity left for it",
  noRoomPriority: "no vehicle has capacity left for it (stops of higher priority were placed first)",
  noVehicleReaches: "no vehicle's start or end is reachable by road both ways from it",
} as const;

/** "demand exceeds every vehicle's capacity (weight_kg)": the dimensions named are the first each vehicle exceeds. */
function tooBigReason(demand: ClusterProblem["stops"][number]["demand"], groups: GroupSpec[]): string | null {
  if (groups.some((g) => fits(emptyLoad(), demand, g.limit))) return null;
  const dims = new Set(groups.map((g) => overflow(emptyLoad(), demand, g.limit)));
  const named = LOAD_DIMENSIONS.filter((d) => dims.has(d));
  return `demand exceeds every vehicle's capacity (${named.join(", ")})`;
}

/**
 * Which points work together: with a depot, those reachable both ways from it; otherwise the
 * biggest set of stops that reach each other both ways (ties: the one holding the earliest stop).
 */
function reachableSet(problem: ClusterProblem, label: number[]): { label: number; reason: string } {
  if (problem.depot !== undefined) return { label: label[problem.depot], reason: REASONS.unreachableFromDepot };
  const counts = new Map<number, number>();
  problem.stops.forEach((_, s) => counts.set(label[s], (counts.get(label[s]) ?? 0) + 1));
  let best = label[0];
  for (const [l, c] of counts) if (c > counts.get(best)! || (c === counts.get(best)! && l < best)) best = l;
  return { label: best, reason: REASONS.unreachable };
}

/**
 * Leftover stops, highest priority first: placed in the group with the nearest stop that has room;
 * else in place of a stop of lower priority whose removal makes room (the lowest priority, then the
 * nearest, leaves). Strategies whose groups must stay contiguous skip this.
 */
function placeLeftovers(problem: ClusterProblem, states: GroupState[], leftovers: number[]): { unplaced: number[]; displaced: Set<number> } {
  const queue = [...leftovers].sort((a, b) => problem.stops[b].priority - problem.stops[a].priority || a - b);
  const unplaced: number[] = [];
  const displaced = new Set<number>();
  const nearest = (s: number, members: number[]) => Math.min(...members.map((m) => problem.metric.meters(s, m)));
  while (queue.length) {
    const s = queue.shift()!;
    const demand = problem.stops[s].demand;
    const roomy = states
      .map((st, g) => ({ g, d: nearest(s, st.members) }))
      .filter(({ g }) => fits(states[g].load, demand, states[g].spec.limit))
      .sort((a, b) => a.d - b.d || a.g - b.g);
    if (roomy.length) {
      const st = states[roomy[0].g];
      states[roomy[0].g] = groupState(st.spec, [...st.members, s], problem.stops);
      continue;
    }
    let swap: { g: number; out: number; priority: number; d: number } | undefined;
    states.forEach((st, g) => {
      for (const out of st.members) {
        const p = problem.stops[out].priority;
        if (p >= problem.stops[s].priority) continue;
        const without = groupState(
          st.spec,
          st.members.filter((m) => m !== out),
          problem.stops,
        );
        if (!fits(without.load, demand, st.spec.limit)) continue;
        const d = problem.metric.meters(s, out);
        if (!swap || p < swap.priority || (p === swap.priority && d < swap.d)) swap = { g, out, priority: p, d };
      }
    });
    if (!swap) {
      unplaced.push(s);
      continue;
    }
    const st = states[swap.g];
    states[swap.g] = groupState(st.spec, [...st.members.filter((m) => m !== swap!.out), s], problem.stops);
    displaced.add(swap.out);
    queue.push(swap.out);
    queue.sort((a, b) => problem.stops[b].priority - problem.stops[a].priority || a - b);
  }
  return { unplaced, displaced };
}

function clusterOf(problem: ClusterProblem, st: GroupState): Cluster {
  const members = [...st.members].sort((a, b) => a - b);
  const tour = estimateTour(members, st.spec, problem.metric);
  return {
    spec: st.spec,
    members,
    load: st.load,
    travelSeconds: tour.travelSeconds,
    workloadSeconds: tour.travelSeconds + serviceSeconds(members, problem.stops),
  };
}

export function clusterStops(problem: ClusterProblem): ClusterResult {
  const unassigned: Unplaced[] = [];
  const label = mutualComponents(problem.metric);
  const reachable = reachableSet(problem, label);
  const inReach = (p: number) => label[p] === reachable.label;
  const groups = problem.groups.filter((g) => (g.origin === undefined || inReach(g.origin)) && (g.end === undefined || inReach(g.end)));
  const candidates: number[] = [];
  problem.stops.forEach((stop, s) => {
    if (!inReach(s)) return void unassigned.push({ stop: s, reason: reachable.reason });
    const tooBig = problem.vehicles ? tooBigReason(stop.demand, groups.length ? groups : problem.groups) : null;
    if (tooBig) return void unassigned.push({ stop: s, reason: tooBig });
    candidates.push(s);
  });
  if (groups.length === 0 || candidates.length === 0) {
    // Only vehicles can be cut off (groups of `num_clusters` start at the depot, which is in reach).
    for (const s of candidates) unassigned.push({ stop: s, reason: REASONS.noVehicleReaches });
    return { clusters: [], unassigned: sortUnplaced(unassigned), unusedGroups: problem.groups };
  }
  const out = STRATEGY_FUNCTIONS[problem.strategy]({ problem, candidates, groups });
  let states = out.states;
  let leftovers = out.unplaced;
  let displaced = new Set<number>();
  if (out.repairable && leftovers.length && states.length) {
    ({ unplaced: leftovers, displaced } = placeLeftovers(problem, states, leftovers));
  }
  if ((problem.strategy === "fairness" || problem.balanceWorkload) && states.length > 1) {
    states = [...states];
    equalizeWorkload(states, { stops: problem.stops, metric: problem.metric, movesFor: out.movesFor });
  }
  for (const s of leftovers)
    unassigned.push({ stop: s, reason: displaced.has(s) || hasHigherPriorityPlaced(problem, states, s) ? REASONS.noRoomPriority : REASONS.noRoom });
  return {
    clusters: states.filter((st) => st.members.length > 0).map((st) => clusterOf(problem, st)),
    unassigned: sortUnplaced(unassigned),
    unusedGroups: problem.groups.filter((g) => !states.some((st) => st.spec === g && st.members.length > 0)),
  };
}

function hasHigherPriorityPlaced(problem: ClusterProblem, states: GroupState[], s: number): boolean {
  return states.some((st) => st.members.some((m) => problem.stops[m].priority > problem.stops[s].priority));
}

function sortUnplaced(list: Unplaced[]): Unplaced[] {
  return list.sort((a, b) => a.stop - b.stop);
}
