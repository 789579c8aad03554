// The six strategies of /cluster. Each takes the stops that can be placed (reachable, and fitting
// at least one group) and the groups, and returns the groups' members and the stops it could not
// place. docs/route-planning-cluster.md defines each one; the tests check each one's defining property.
import { capacitatedKMedoids } from "./kmedoids.ts";
import { LOAD_DIMENSIONS, addStop, emptyLoad, fits, within, type ClusterProblem, type GroupSpec, type Load, type Strategy } from "./model.ts";
import { groupState, type GroupState } from "./workload.ts";

export interface StrategyInput {
  problem: ClusterProblem;
  /** Stop indices to place. */
  candidates: number[];
  /** Groups that can take stops (vehicles whose start is reachable, or the `num_clusters` groups). */
  groups: GroupSpec[];
}

export interface StrategyOutput {
  /** The groups that take part: all for k-medoids, the opened ones for the others (balancing stays among them). */
  states: GroupState[];
  unplaced: number[];
  /** Moves the workload pass may make (see equalizeWorkload); undefined: any. */
  movesFor?: (from: number, groups: GroupState[]) => { stop: number; to: number }[] | undefined;
  /** Whether a stop left over may be placed in any group with room later (false keeps zones contiguous). */
  repairable: boolean;
}

type StrategyFn = (input: StrategyInput) => StrategyOutput;

/** balanced (and the start of fairness): capacitated k-medoids with group sizes capped at ⌈n/k⌉. */
function balanced(input: StrategyInput): StrategyOutput {
  const { problem, candidates, groups } = input;
  const result = capacitatedKMedoids({ stops: problem.stops, metric: problem.metric, candidates, groups, balanceSizes: true });
  const states = groups.map((g, i) => groupState(g, result.members[i], problem.stops));
  matchToStarts(problem, states);
  return { states, unplaced: result.unplaced, repairable: true };
}

/** Mean distance from a group's origin to its stops (0 without an origin or stops). */
function reach(problem: ClusterProblem, origin: number | undefined, members: number[]): number {
  if (origin === undefined || members.length === 0) return 0;
  return members.reduce((sum, s) => sum + problem.metric.meters(origin, s), 0) / members.length;
}

/**
 * k-medoids groups stops without looking at where vehicles start. When vehicles start at different
 * places, swap whole groups between two vehicles while that brings the groups nearer their vehicles'
 * starts and both still fit: the group in the north goes to the vehicle that starts in the north.
 */
function matchToStarts(problem: ClusterProblem, states: GroupState[]): void {
  if (new Set(states.map((st) => st.spec.origin)).size < 2) return;
  for (let pass = 0, swapped = true; swapped && pass < states.length; pass++) {
    swapped = false;
    for (let a = 0; a < states.length; a++) {
      for (let b = a + 1; b < states.length; b++) {
        const [A, B] = [states[a], states[b]];
        const now = reach(problem, A.spec.origin, A.members) + reach(problem, B.spec.origin, B.members);
        const then = reach(problem, A.spec.origin, B.members) + reach(problem, B.spec.origin, A.members);
        if (then < now - 1 && within(B.load, A.spec.limit) && within(A.load, B.spec.limit)) {
          states[a] = groupState(A.spec, B.members, problem.stops);
          states[b] = groupState(B.spec, A.members, problem.stops);
          swapped = true;
        }
      }
    }
  }
}

/** Priority first, then input order: the order in which leftovers are considered. */
const byPriority = (problem: ClusterProblem) => (a: number, b: number) => problem.stops[b].priority - problem.stops[a].priority || a - b;

/** The stop farthest from the stops' mean position: where a sweep without a depot starts (an edge of the area). */
function outermostStop(problem: ClusterProblem, candidates: number[]): number {
  const [lng, lat] = meanPoint(problem, candidates);
  let best = candidates[0];
  let bestD = -1;
  for (const s of candidates) {
    const p = problem.points[s];
    const d = (p[0] - lng) ** 2 * Math.cos((lat * Math.PI) / 180) ** 2 + (p[1] - lat) ** 2;
    if (d > bestD) {
      best = s;
      bestD = d;
    }
  }
  return best;
}

export function meanPoint(problem: ClusterProblem, members: number[]): [number, number] {
  let lng = 0;
  let lat = 0;
  for (const s of members) {
    lng += problem.points[s][0];
    lat += problem.points[s][1];
  }
  return [lng / members.length, lat / members.length];
}

/**
 * fill_vehicle_first: vehicles in the given order; each takes, from where it stands (its start, the
 * depot, or where the previous vehicle's chain ended), the nearest remaining stop that still fits,
 * until no remaining stop fits; only then does the next vehicle open.
 */
function fillVehicleFirst(input: StrategyInput): StrategyOutput {
  const { problem, groups } = input;
  const left = new Set(input.candidates);
  const states: GroupState[] = [];
  let at = problem.depot ?? outermostStop(problem, input.candidates);
  for (const spec of groups) {
    if (spec.origin !== undefined) at = spec.origin;
    const members: number[] = [];
    const load: Load = emptyLoad();
    for (;;) {
      let pick = -1;
      let pickD = Infinity;
      for (const s of left) {
        if (!fits(load, problem.stops[s].demand, spec.limit)) continue;
        const d = at === s ? 0 : problem.metric.meters(at, s);
        if (d < pickD || (d === pickD && byPriority(problem)(s, pick) < 0)) {
          pick = s;
          pickD = d;
        }
      }
      if (pick < 0) break;
      members.push(pick);
      addStop(load, problem.stops[pick].demand);
      left.delete(pick);
      at = pick;
    }
    if (members.length) states.push(groupState(spec, members, problem.stops));
  }
  return { states, unplaced: [...left], repairable: true };
}

/**
 * The fewest vehicles that could hold the total demand: for each dimension, the m largest
 * capacities must add up to the demand. No set of fewer vehicles can, whatever the assignment.
 */
export function vehicleLowerBound(demand: Load, groups: GroupSpec[]): number {
  for (let m = 1; m <= groups.length; m++) {
    const enough = LOAD_DIMENSIONS.every((d) => {
      const caps = groups.map((g) => g.limit[d] ?? Infinity).sort((a, b) => b - a);
      return caps.slice(0, m).reduce((a, b) => a + b, 0) >= demand[d] - 1e-9;
    });
    if (enough) return m;
  }
  return groups.length;
}

/**
 * min_vehicles: starting at the lower bound, take the m vehicles with the most capacity relative to
 * the demand (each dimension's share, capped at 1, summed), cluster the stops into them with
 * capacitated k-medoids, and add one vehicle only when some stop found no room.
 */
function minVehicles(input: StrategyInput): StrategyOutput {
  const { problem, candidates, groups } = input;
  const demand = emptyLoad();
  for (const s of candidates) addStop(demand, problem.stops[s].demand);
  const share = (g: GroupSpec) => LOAD_DIMENSIONS.reduce((sum, d) => sum + (demand[d] > 0 ? Math.min((g.limit[d] ?? Infinity) / demand[d], 1) : 1), 0);
  const ranked = groups.map((g, i) => ({ g, i, share: share(g) })).sort((a, b) => b.share - a.share || a.i - b.i);
  let best: StrategyOutput | undefined;
  for (let m = vehicleLowerBound(demand, groups); m <= groups.length; m++) {
    const chosen = ranked
      .slice(0, m)
      .sort((a, b) => a.i - b.i)
      .map((r) => r.g);
    const result = capacitatedKMedoids({ stops: problem.stops, metric: problem.metric, candidates, groups: chosen, balanceSizes: false });
    const matched = chosen.map((g, i) => groupState(g, result.members[i], problem.stops));
    matchToStarts(problem, matched);
    const states = matched.filter((st) => st.members.length > 0);
    best = { states, unplaced: result.unplaced, repairable: true };
    if (result.unplaced.length === 0) break;
  }
  return best ?? { states: [], unplaced: [...candidates], repairable: true };
}

/** Compass bearing (degrees) of a point seen from a center, in a local flat projection. */
function bearingFrom(center: [number, number], p: [number, number]): number {
  const dx = (p[0] - center[0]) * Math.cos((center[1] * Math.PI) / 180);
  const dy = p[1] - center[1];
  const deg = (Math.atan2(dx, dy) * 180) / Math.PI;
  return deg < 0 ? deg + 360 : deg;
}

/**
 * The stops in sweep order around the depot (or the stops' mean position), starting just after the
 * widest empty angle so that no sector straddles a gap. Ties: nearer the center first.
 */
export function sweepOrder(problem: ClusterProblem, candidates: number[]): number[] {
  const center = problem.depot !== undefined ? problem.points[problem.depot] : meanPoint(problem, candidates);
  const kx = Math.cos((center[1] * Math.PI) / 180);
  const rows = candidates.map((s) => {
    const [lng, lat] = problem.points[s];
    return { s, bearing: bearingFrom(center, [lng, lat]), d: Math.hypot((lng - center[0]) * kx, lat - center[1]) };
  });
  rows.sort((a, b) => a.bearing - b.bearing || a.d - b.d || a.s - b.s);
  let widest = 0;
  let widestGap = -1;
  for (let i = 0; i < rows.length; i++) {
    const next = rows[(i + 1) % rows.length];
    const gap = (next.bearing - rows[i].bearing + 360) % 360 || (rows.length === 1 ? 360 : 0);
    if (gap > widestGap) {
      widestGap = gap;
      widest = (i + 1) % rows.length;
    }
  }
  return [...rows.slice(widest), ...rows.slice(0, widest)].map((r) => r.s);
}

/**
 * Cuts a sequence into consecutive runs, one per group in order. With `evenSizes`, a group closes at
 * ⌈remaining / groups left⌉ stops (even sizes); it always closes when the next stop does not fit. An
 * empty group too small for the next stop is skipped (its run stays empty) when a later group could
 * take that stop; when none could, the stop is left out and the group stays open.
 */
function cutSequence(problem: ClusterProblem, order: number[], groups: GroupSpec[], evenSizes: boolean): { members: number[][]; unplaced: number[] } {
  const members: number[][] = groups.map(() => []);
  const loads = groups.map(() => emptyLoad());
  const unplaced: number[] = [];
  let g = 0;
  // The size a group aims for, fixed when it opens: an even share of the stops still to place.
  let target = Math.ceil(order.length / groups.length);
  order.forEach((s, position) => {
    const demand = problem.stops[s].demand;
    let leaveOut = false;
    for (; g < groups.length; g++, target = Math.ceil((order.length - position) / (groups.length - g))) {
      const room = fits(loads[g], demand, groups[g].limit);
      if (room && (!evenSizes || members[g].length < target)) break;
      if (members[g].length === 0 && !room && !groups.slice(g + 1).some((h) => fits(emptyLoad(), demand, h.limit))) {
        leaveOut = true;
        break;
      }
    }
    if (leaveOut || g === groups.length) unplaced.push(s);
    else {
      members[g].push(s);
      addStop(loads[g], demand);
    }
  });
  return { members, unplaced };
}

/**
 * The moves that keep runs of a sequence contiguous: a group's first stop may go to the group
 * before it, its last stop to the group after it. Stops outside the sequence (no time window) may
 * go anywhere.
 */
function sequenceMoves(order: number[]) {
  const position = new Map(order.map((s, i) => [s, i]));
  return (from: number, groups: GroupState[]) => {
    const groupOf = new Map<number, number>();
    groups.forEach((g, i) => g.members.forEach((s) => groupOf.set(s, i)));
    const inSequence = groups[from].members.filter((s) => position.has(s)).sort((a, b) => position.get(a)! - position.get(b)!);
    const moves: { stop: number; to: number }[] = [];
    const neighbour = (s: number, step: 1 | -1) => {
      for (let p = position.get(s)! + step; p >= 0 && p < order.length; p += step) {
        const g = groupOf.get(order[p]);
        if (g !== undefined && g !== from) return g;
        if (g === from) return undefined;
      }
      return undefined;
    };
    if (inSequence.length) {
      const before = neighbour(inSequence[0], -1);
      const after = neighbour(inSequence[inSequence.length - 1], 1);
      if (before !== undefined) moves.push({ stop: inSequence[0], to: before });
      if (after !== undefined) moves.push({ stop: inSequence[inSequence.length - 1], to: after });
    }
    for (const s of groups[from].members) if (!position.has(s)) groups.forEach((_, to) => moves.push({ stop: s, to }));
    return moves;
  };
}

/** Fewer priority-weighted stops left out. */
function leftOutWeight(problem: ClusterProblem, unplaced: number[]): number {
  return unplaced.reduce((sum, s) => sum + 1 + problem.stops[s].priority, 0);
}

/**
 * zone_based: angular sectors around the depot (or the stops' mean position). The sweep order is
 * cut into consecutive runs of even size; vehicles close their sector early when full, and when
 * even sizes would leave stops out, the sweep is cut by capacity alone.
 */
function zoneBased(input: StrategyInput): StrategyOutput {
  const { problem, groups } = input;
  const order = sweepOrder(problem, input.candidates);
  let cut = cutSequence(problem, order, groups, true);
  if (cut.unplaced.length) {
    const byCapacity = cutSequence(problem, order, groups, false);
    if (leftOutWeight(problem, byCapacity.unplaced) < leftOutWeight(problem, cut.unplaced)) cut = byCapacity;
  }
  return sequenceOutput(problem, groups, cut, order);
}

/** The non-empty runs as groups; the workload pass may only shift stops across the runs' borders. */
function sequenceOutput(problem: ClusterProblem, groups: GroupSpec[], cut: { members: number[][]; unplaced: number[] }, order: number[]): StrategyOutput {
  const states = groups.map((g, i) => groupState(g, cut.members[i], problem.stops)).filter((st) => st.members.length > 0);
  return { states, unplaced: cut.unplaced, movesFor: sequenceMoves(order), repairable: false };
}

/** Above this much work (groups × windowed stops²) the time-window split falls back from the exact DP. */
const TIME_WINDOW_DP_BUDGET = 30_000_000;

/**
 * Splits stops sorted by window midpoint into k consecutive runs (run t for group t, runs may be
 * empty) with the least sum of squared deviations of the midpoints from their run's mean: optimal
 * 1-D k-means by dynamic programming, each run within its group's capacity. Null when no split fits.
 */
function splitByMidpoint(problem: ClusterProblem, order: number[], groups: GroupSpec[], nonEmpty: boolean): number[][] | null {
  const n = order.length;
  const k = groups.length;
  if (k * n * n > TIME_WINDOW_DP_BUDGET) return null;
  const hours = order.map((s) => (problem.stops[s].window!.start + problem.stops[s].window!.end) / 2 / 3_600_000);
  const prefix = (f: (s: number, i: number) => number) => {
    const out = new Float64Array(n + 1);
    order.forEach((s, i) => (out[i + 1] = out[i] + f(s, i)));
    return out;
  };
  const sum = prefix((_, i) => hours[i] - hours[0]);
  const sq = prefix((_, i) => (hours[i] - hours[0]) ** 2);
  const items = prefix((s) => problem.stops[s].demand.items);
  const weight = prefix((s) => problem.stops[s].demand.weight_kg);
  const volume = prefix((s) => problem.stops[s].demand.volume_m3);
  const sse = (a: number, b: number) => (b === a ? 0 : sq[b] - sq[a] - (sum[b] - sum[a]) ** 2 / (b - a));
  const runFits = (t: number, a: number, b: number) =>
    within({ items: items[b] - items[a], weight_kg: weight[b] - weight[a], volume_m3: volume[b] - volume[a], stops: b - a }, groups[t].limit);
  const cost = Array.from({ length: k + 1 }, () => new Float64Array(n + 1).fill(Infinity));
  const from = Array.from({ length: k + 1 }, () => new Int32Array(n + 1).fill(-1));
  cost[0][0] = 0;
  for (let t = 1; t <= k; t++) {
    for (let b = 0; b <= n; b++) {
      for (let a = nonEmpty ? b - 1 : b; a >= 0; a--) {
        if (cost[t - 1][a] === Infinity) continue;
        if (!runFits(t - 1, a, b)) {
          if (b - a > 0) break; // a longer run (smaller a) only adds load
          continue;
        }
        const c = cost[t - 1][a] + sse(a, b);
        if (c < cost[t][b] - 1e-12) {
          cost[t][b] = c;
          from[t][b] = a;
        }
      }
    }
  }
  if (cost[k][n] === Infinity) return null;
  const runs: number[][] = [];
  for (let t = k, b = n; t > 0; t--) {
    const a = from[t][b];
    runs.unshift(order.slice(a, b));
    b = a;
  }
  return runs;
}

/**
 * time_window: stops with a window are ordered by the window's midpoint and split into consecutive
 * runs (optimal 1-D k-means within capacities; capacity-first cutting when no split fits), so a
 * group never holds windows that another group's windows lie between. Stops without a window then
 * join the group with the nearest stop that has room. Without any window it is `balanced`.
 */
function timeWindow(input: StrategyInput): StrategyOutput {
  const { problem, groups, candidates } = input;
  const windowed = candidates.filter((s) => problem.stops[s].window);
  if (windowed.length === 0) return balanced(input);
  const mid = (s: number) => (problem.stops[s].window!.start + problem.stops[s].window!.end) / 2;
  // Equal windows are common (a morning wave): among them the sweep order keeps neighbours together.
  const sweep = new Map(sweepOrder(problem, windowed).map((s, i) => [s, i]));
  const order = [...windowed].sort(
    (a, b) => mid(a) - mid(b) || problem.stops[a].window!.start - problem.stops[b].window!.start || sweep.get(a)! - sweep.get(b)!,
  );
  // Every group gets a run while there are enough windowed stops: a vehicle left empty is capacity lost.
  const nonEmpty = windowed.length >= groups.length;
  const runs = splitByMidpoint(problem, order, groups, nonEmpty);
  const cut = runs ? { members: runs, unplaced: [] as number[] } : cutSequence(problem, order, groups, !problem.vehicles);
  const loads = groups.map((_, g) => {
    const load = emptyLoad();
    for (const s of cut.members[g]) addStop(load, problem.stops[s].demand);
    return load;
  });
  const free = candidates.filter((s) => !problem.stops[s].window).sort(byPriority(problem));
  for (const s of free) {
    let best = -1;
    let bestD = Infinity;
    cut.members.forEach((ms, g) => {
      if (!fits(loads[g], problem.stops[s].demand, groups[g].limit)) return;
      // An empty group is the last resort: any group with stops nearby comes first.
      if (!ms.length && best < 0) best = g;
      for (const m of ms) {
        const d = problem.metric.meters(s, m);
        if (d < bestD) {
          bestD = d;
          best = g;
        }
      }
    });
    if (best < 0) cut.unplaced.push(s);
    else {
      cut.members[best].push(s);
      addStop(loads[best], problem.stops[s].demand);
    }
  }
  return sequenceOutput(problem, groups, cut, order);
}

export const STRATEGY_FUNCTIONS: Record<Strategy, StrategyFn> = {
  balanced,
  fill_vehicle_first: fillVehicleFirst,
  min_vehicles: minVehicles,
  zone_based: zoneBased,
  time_window: timeWindow,
  fairness: balanced,
};
