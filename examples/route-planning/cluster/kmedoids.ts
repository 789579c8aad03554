// Capacitated k-medoids: compact groups under hard capacities (and, for balanced clustering, a
// soft cap on group size). Medoids rather than means because road distances have no mean: the same
// algorithm then runs on straight-line and on road distances, and only the metric changes.
import { addStop, emptyLoad, fits, tighter, type ClusterStop, type GroupSpec, type Limit, type Load, type Metric } from "./model.ts";
import { seededRandom } from "../../shared/seeded-random.ts";

export interface KMedoidsOptions {
  stops: ClusterStop[];
  metric: Metric;
  /** The stops to place (indices into `stops`); all mutually reachable. */
  candidates: number[];
  groups: GroupSpec[];
  /** Cap each group at ⌈candidates / groups⌉ stops where capacities allow (a soft cap). */
  balanceSizes: boolean;
}

export interface Assignment {
  /** Stop indices per group, in the order of `groups`. */
  members: number[][];
  /** Candidates no group had room for. */
  unplaced: number[];
  /** The medoid stop of each group (-1 for an empty group). */
  medoids: number[];
}

const MAX_ITERATIONS = 30;

/** Restarts from different seeds: more where they are cheap. */
function restartsFor(n: number): number {
  if (n <= 100) return 10;
  if (n <= 300) return 5;
  return 2;
}

/** The member with the least total distance to the others (ties: lowest index). */
function medoidOf(members: number[], metric: Metric): number {
  let best = -1;
  let bestSum = Infinity;
  for (const a of members) {
    let sum = 0;
    for (const b of members) sum += metric.meters(a, b);
    if (sum < bestSum || (sum === bestSum && a < best)) {
      best = a;
      bestSum = sum;
    }
  }
  return best;
}

/**
 * k-medoids++ seeding: the first medoid is the 1-medoid of all stops (restart 0) or a seeded random
 * stop; each next one is drawn with probability proportional to its squared distance to the
 * nearest medoid so far, which spreads the seeds over the stops.
 */
function seedMedoids(candidates: number[], k: number, metric: Metric, restart: number): number[] {
  const random = seededRandom(0x5eed + 7919 * restart);
  const medoids = [restart === 0 ? medoidOf(candidates, metric) : candidates[Math.floor(random() * candidates.length)]];
  const nearest = candidates.map((s) => metric.meters(s, medoids[0]));
  while (medoids.length < k) {
    const weights = nearest.map((d) => d * d);
    const total = weights.reduce((a, b) => a + b, 0);
    let pick = -1;
    if (total > 0) {
      let r = random() * total;
      for (let i = 0; i < candidates.length && pick < 0; i++) {
        r -= weights[i];
        if (r <= 0 && weights[i] > 0) pick = i;
      }
    }
    // All remaining stops coincide with medoids (duplicates): take the first one not chosen yet.
    if (pick < 0) pick = candidates.findIndex((s) => !medoids.includes(s));
    medoids.push(candidates[pick]);
    for (let i = 0; i < candidates.length; i++) nearest[i] = Math.min(nearest[i], metric.meters(candidates[i], candidates[pick]));
  }
  return medoids;
}

/**
 * Places every candidate in the nearest group (by distance to its medoid) that has room: medoids
 * first, then higher priority first, then the stops with most to lose (largest regret: second
 * nearest minus nearest) first. The soft size cap is tried before the hard capacity.
 */
function assign(opts: KMedoidsOptions, medoids: number[]): Assignment {
  const k = opts.groups.length;
  const members: number[][] = Array.from({ length: k }, () => []);
  const loads: Load[] = Array.from({ length: k }, () => emptyLoad());
  const softCap = Math.ceil(opts.candidates.length / k);
  const soft: Limit[] = opts.groups.map((g) => (opts.balanceSizes ? tighter(g.limit, { stops: softCap }) : g.limit));
  const place = (s: number, g: number) => {
    members[g].push(s);
    addStop(loads[g], opts.stops[s].demand);
  };
  const isMedoid = new Set<number>();
  medoids.forEach((m, g) => {
    if (m >= 0 && fits(loads[g], opts.stops[m].demand, opts.groups[g].limit)) {
      place(m, g);
      isMedoid.add(m);
    }
  });
  const ranked = opts.candidates
    .filter((s) => !isMedoid.has(s))
    .map((s) => {
      const order = medoids
        .map((m, g) => ({ g, d: m >= 0 ? opts.metric.meters(s, m) : Infinity }))
        .filter((o) => o.d < Infinity)
        .sort((a, b) => a.d - b.d || a.g - b.g);
      const regret = order.length > 1 ? order[1].d - order[0].d : Infinity;
      return { s, order, regret };
    })
    .sort((a, b) => opts.stops[b.s].priority - opts.stops[a.s].priority || b.regret - a.regret || a.s - b.s);
  const unplaced: number[] = [];
  for (const { s, order } of ranked) {
    const demand = opts.stops[s].demand;
    const target = order.find((o) => fits(loads[o.g], demand, soft[o.g])) ?? order.find((o) => fits(loads[o.g], demand, opts.groups[o.g].limit));
    if (target) place(s, target.g);
    else unplaced.push(s);
  }
  return { members, unplaced, medoids };
}

/** Lexicographic quality: fewer (priority-weighted) unplaced stops, then the smaller total distance. */
function cost(result: Assignment, opts: KMedoidsOptions): [number, number] {
  const missing = result.unplaced.reduce((sum, s) => sum + 1 + opts.stops[s].priority, 0);
  let distance = 0;
  result.members.forEach((ms, g) => {
    for (const s of ms) distance += opts.metric.meters(s, result.medoids[g]);
  });
  return [missing, distance];
}

function better(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1] - 1e-6);
}

/** Alternates assignment and medoid update from one seeding until the medoids settle. */
function improve(opts: KMedoidsOptions, seeds: number[]): Assignment {
  let medoids = seeds;
  let result = assign(opts, medoids);
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const next = result.members.map((ms, g) => (ms.length ? medoidOf(ms, opts.metric) : medoids[g]));
    if (next.every((m, g) => m === medoids[g])) break;
    const candidate = assign(opts, next);
    if (!better(cost(candidate, opts), cost(result, opts))) break;
    medoids = next;
    result = candidate;
  }
  result.medoids = result.members.map((ms) => (ms.length ? medoidOf(ms, opts.metric) : -1));
  return result;
}

/** The best of several seeded restarts (deterministic for a given input). */
export function capacitatedKMedoids(opts: KMedoidsOptions): Assignment {
  const k = Math.min(opts.groups.length, opts.candidates.length);
  if (k === 0) return { members: opts.groups.map(() => []), unplaced: [...opts.candidates], medoids: opts.groups.map(() => -1) };
  let best: Assignment | undefined;
  let bestCost: [number, number] = [Infinity, Infinity];
  for (let restart = 0; restart < restartsFor(opts.candidates.length); restart++) {
    const seeds = seedMedoids(opts.candidates, k, opts.metric, restart);
    while (seeds.length < opts.groups.length) seeds.push(-1);
    const result = improve(opts, seeds);
    const c = cost(result, opts);
    if (!best || better(c, bestCost)) {
      best = result;
      bestCost = c;
    }
  }
  return best!;
}
