// A group's workload, estimated: its stops' service seconds plus the travel of a tour through them
// (from the group's origin and back, or to its end; a closed loop when it has no origin). The tour
// is a nearest-neighbour tour improved by 2-opt: an estimate of what /optimize would find, cheap
// enough to recompute after every move of the fairness pass.
import { addStop, emptyLoad, fits, type ClusterStop, type GroupSpec, type Load, type Metric } from "./model.ts";

/** 2-opt runs on groups up to this size; bigger ones keep the nearest-neighbour tour (a cost cap). */
const TWO_OPT_MAX_STOPS = 200;
const TWO_OPT_MAX_PASSES = 10;

export interface Tour {
  /** Stop indices in visiting order. */
  order: number[];
  travelSeconds: number;
}

/** The points a tour passes: origin, stops, end (or back to origin); a loop when no origin. */
function path(order: number[], spec: GroupSpec): number[] {
  if (order.length === 0) return [];
  if (spec.origin === undefined) return [...order, order[0]];
  return [spec.origin, ...order, spec.end ?? spec.origin];
}

function pathSeconds(nodes: number[], metric: Metric): number {
  let total = 0;
  for (let i = 1; i < nodes.length; i++) total += metric.seconds(nodes[i - 1], nodes[i]);
  return total;
}

function nearestNeighbourOrder(members: number[], spec: GroupSpec, metric: Metric): number[] {
  const left = [...members].sort((a, b) => a - b);
  const order: number[] = [];
  let at = spec.origin ?? left.shift();
  if (at === undefined) return order;
  if (spec.origin === undefined) order.push(at);
  while (left.length) {
    let best = 0;
    for (let k = 1; k < left.length; k++) if (metric.seconds(at, left[k]) < metric.seconds(at, left[best])) best = k;
    at = left.splice(best, 1)[0];
    order.push(at);
  }
  return order;
}

/**
 * 2-opt on the symmetric part of the travel times (one-way streets make the directed costs of a
 * reversed segment differ; the directed cost is what the tour reports). The origin and end stay put.
 */
function twoOpt(order: number[], spec: GroupSpec, metric: Metric): number[] {
  if (order.length < 3 || order.length > TWO_OPT_MAX_STOPS) return order;
  const sym = (a: number, b: number) => (metric.seconds(a, b) + metric.seconds(b, a)) / 2;
  const nodes = path(order, spec);
  // nodes[0] and nodes[last] are fixed (origin and end, or the loop's first stop twice).
  const first = 1;
  const last = nodes.length - 2;
  for (let pass = 0; pass < TWO_OPT_MAX_PASSES; pass++) {
    let improved = false;
    for (let i = first; i < last; i++) {
      for (let j = i + 1; j <= last; j++) {
        const delta = sym(nodes[i - 1], nodes[j]) + sym(nodes[i], nodes[j + 1]) - sym(nodes[i - 1], nodes[i]) - sym(nodes[j], nodes[j + 1]);
        if (delta < -1e-6) {
          nodes.splice(i, j - i + 1, ...nodes.slice(i, j + 1).reverse());
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return spec.origin === undefined ? nodes.slice(0, -1) : nodes.slice(1, -1);
}

/** The estimated tour of a group's stops. */
export function estimateTour(members: number[], spec: GroupSpec, metric: Metric): Tour {
  const order = twoOpt(nearestNeighbourOrder(members, spec, metric), spec, metric);
  return { order, travelSeconds: pathSeconds(path(order, spec), metric) };
}

export function serviceSeconds(members: number[], stops: ClusterStop[]): number {
  return members.reduce((sum, s) => sum + stops[s].serviceSeconds, 0);
}

/** A group while strategies and the fairness pass move stops between groups. */
export interface GroupState {
  spec: GroupSpec;
  members: number[];
  load: Load;
}

export function groupState(spec: GroupSpec, members: number[], stops: ClusterStop[]): GroupState {
  const load = emptyLoad();
  for (const s of members) addStop(load, stops[s].demand);
  return { spec, members, load };
}

export interface EqualizeOptions {
  stops: ClusterStop[];
  metric: Metric;
  /**
   * The moves allowed out of group `from`, when not every stop may go to every group (zone and
   * time-window strategies keep their groups contiguous); undefined allows all.
   */
  movesFor?: (from: number, groups: GroupState[]) => { stop: number; to: number }[] | undefined;
}

interface Scored {
  tour: Tour;
  workload: number;
}

function score(group: GroupState, opts: EqualizeOptions): Scored {
  const tour = estimateTour(group.members, group.spec, opts.metric);
  return { tour, workload: tour.travelSeconds + serviceSeconds(group.members, opts.stops) };
}

/** Seconds a tour saves when `stop` leaves it (its legs in and out replaced by one leg). */
function removalSaving(stop: number, tour: Tour, spec: GroupSpec, metric: Metric): number {
  const nodes = path(tour.order, spec);
  const at = nodes.indexOf(stop, spec.origin === undefined ? 0 : 1);
  if (tour.order.length === 1) return tour.travelSeconds;
  const prev = at === 0 ? nodes[nodes.length - 2] : nodes[at - 1];
  const next = nodes[at + 1];
  return metric.seconds(prev, stop) + metric.seconds(stop, next) - metric.seconds(prev, next);
}

/** The cheapest extra travel of inserting `stop` into a tour. */
function insertionCost(stop: number, tour: Tour, spec: GroupSpec, metric: Metric): number {
  const nodes = path(tour.order, spec);
  if (nodes.length === 0) return spec.origin === undefined ? 0 : metric.seconds(spec.origin, stop) + metric.seconds(stop, spec.end ?? spec.origin);
  let best = Infinity;
  for (let i = 1; i < nodes.length; i++)
    best = Math.min(best, metric.seconds(nodes[i - 1], stop) + metric.seconds(stop, nodes[i]) - metric.seconds(nodes[i - 1], nodes[i]));
  return best;
}

/**
 * Evens out workloads: repeatedly moves one stop out of the busiest group into another group with
 * room, when that lowers the busiest workload without pushing either group below the least busy
 * one. Candidates are ranked by insertion estimates; a move is kept only if the recomputed tours
 * confirm it. So the busiest workload never rises and the least busy never falls: the spread
 * between them never grows. Groups keep at least one stop.
 */
export function equalizeWorkload(groups: GroupState[], opts: EqualizeOptions): void {
  const scores = groups.map((g) => score(g, opts));
  const maxMoves = 4 * opts.stops.length + 10;
  for (let move = 0; move < maxMoves; move++) {
    let busiest = 0;
    for (let g = 1; g < groups.length; g++) if (scores[g].workload > scores[busiest].workload) busiest = g;
    const from = groups[busiest];
    if (from.members.length <= 1) return;
    const moves = opts.movesFor?.(busiest, groups) ?? from.members.flatMap((stop) => groups.map((_, to) => ({ stop, to })));
    const candidates: { stop: number; to: number; estimate: number }[] = [];
    for (const { stop, to } of moves) {
      if (to === busiest || !fits(groups[to].load, opts.stops[stop].demand, groups[to].spec.limit)) continue;
      const saving = removalSaving(stop, scores[busiest].tour, from.spec, opts.metric) + opts.stops[stop].serviceSeconds;
      const added = insertionCost(stop, scores[to].tour, groups[to].spec, opts.metric) + opts.stops[stop].serviceSeconds;
      const estimate = Math.max(scores[busiest].workload - saving, scores[to].workload + added);
      if (estimate < scores[busiest].workload - 1) candidates.push({ stop, to, estimate });
    }
    candidates.sort((a, b) => a.estimate - b.estimate || a.stop - b.stop || a.to - b.to);
    let moved = false;
    const least = Math.min(...scores.map((x) => x.workload));
    for (const c of candidates.slice(0, 5)) {
      const fromAfter = groupState(
        from.spec,
        from.members.filter((s) => s !== c.stop),
        opts.stops,
      );
      const toAfter = groupState(groups[c.to].spec, [...groups[c.to].members, c.stop], opts.stops);
      const a = score(fromAfter, opts);
      const b = score(toAfter, opts);
      if (Math.max(a.workload, b.workload) < scores[busiest].workload - 1 && Math.min(a.workload, b.workload) >= least) {
        groups[busiest] = fromAfter;
        groups[c.to] = toAfter;
        scores[busiest] = a;
        scores[c.to] = b;
        moved = true;
        break;
      }
    }
    if (!moved) return;
  }
}
