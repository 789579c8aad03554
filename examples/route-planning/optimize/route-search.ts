// The search both optimizers share: routes of stops over cost matrices, one route per vehicle,
// built by priority-ordered regret insertion, improved by local search (2-opt and Or-opt inside a
// route, relocate and exchange between routes) and by ruin-and-recreate rounds under a budget.
// Pure and deterministic: a seeded generator, an iteration budget, and a wall-clock cap only as a
// safety net (docs/route-planning-optimization.md). The TSP is the case of one vehicle.
import { seededRandom } from "../../shared/seeded-random.ts";

/** [items, weight_kg, volume_m3]. */
export type Load = [number, number, number];

/** Why a stop is left out of every route (spec 2.1 fleet answers). */
export type UnassignedReason = "unreachable" | "capacity" | "max_stops" | "time_window" | "shift";

/** A stop in matrix terms: stop i is node i of every matrix. Times are seconds on one common clock. */
export interface SearchStop {
  service: number;
  /** Service may begin at windowStart (earlier arrivals wait); arriving after windowEnd is late. */
  windowStart: number;
  windowEnd: number;
  demand: Load;
  /** Higher priorities are inserted first and never give way to lower ones. */
  priority: number;
}

export interface SearchVehicle {
  /** Index into SearchProblem.matrices (one matrix per travel profile). */
  matrix: number;
  /** Node the route leaves from, or null: the route begins at its first stop. */
  start: number | null;
  /** Node the route ends at (the start node for a closed tour), or null: it ends at its last stop. */
  end: number | null;
  startTime: number;
  /** The route must be over (at its end node, or done at its last stop) by this time. */
  shiftEnd: number;
  capacity: Load;
  maxStops: number;
}

/** A square matrix over nodes: stops first (0..stops-1), then any other places; null = unreachable. */
export interface CostMatrix {
  /** What is minimised (seconds or meters, or any additive cost). */
  cost: (number | null)[][];
  /** Seconds, for arrival times. */
  duration: (number | null)[][];
}

export interface SearchProblem {
  stops: SearchStop[];
  vehicles: SearchVehicle[];
  matrices: CostMatrix[];
  /** Strict: a stop is never served late (it stays unassigned instead). Soft: lateness is minimised first. */
  strictWindows: boolean;
  /** Minimise the longest route's duration before total cost. */
  balance: boolean;
}

/**
 * How long the search may run: `iterations` ruin-and-recreate rounds (the deterministic budget),
 * and `timeLimitMs` a wall-clock cap that only a machine far slower than planned reaches.
 */
export interface SearchBudget {
  iterations?: number;
  /** Work units (stops walked plus move forecasts): a deterministic cap for big instances. */
  work?: number;
  timeLimitMs?: number;
  seed?: number;
}

export interface SearchResult {
  /** Stop indices per vehicle, in visiting order. */
  routes: number[][];
  unassigned: { stop: number; reason: UnassignedReason }[];
  iterations: number;
  stoppedBy: "iterations" | "work" | "time";
  /** Work units spent. */
  work: number;
}

/** Arrival facts of one stop on a route. */
export interface Visit {
  stop: number;
  arrival: number;
  /** When service begins: the arrival, or the window's start when arriving early. */
  begin: number;
  wait: number;
  late: number;
  departure: number;
}

export interface RouteEval {
  cost: number;
  /** Sum over stops of seconds past the window's end at arrival. */
  lateness: number;
  /** Seconds from the vehicle's start time to the end of the route (0 when unused). */
  duration: number;
  /** When the route is over: arrival at the end node, or departure from the last stop. */
  finish: number;
  load: Load;
  /** null when the route keeps every constraint, else the first broken one. */
  broken: UnassignedReason | null;
}

const EPS = 1e-7;
/**
 * Between routes, a stop is only moved next to (or swapped with) one of its GRANULARITY nearest
 * stops: the granular neighbourhood of Toth and Vigo, which keeps passes over long routes cheap.
 */
const GRANULARITY = 30;
/** Default work cap: about 2-3 s on the 2-core development machine (docs/route-planning-optimization.md). */
export const DEFAULT_WORK = 40_000_000;
/** Lateness outweighs any cost in insertion keys (lateness is minimised before cost). */
const LATE_WEIGHT = 1e6;

/** The problem with flat matrices, one extra "nowhere" node whose legs cost 0 (open route ends). */
class Instance {
  readonly n: number;
  readonly size: number;
  readonly free: number;
  readonly cost: Float64Array[];
  readonly duration: Float64Array[];
  /** No time windows and no shift ends: insertion costs and durations are exact in O(1). */
  readonly untimed: boolean;
  constructor(readonly problem: SearchProblem) {
    this.n = problem.stops.length;
    const nodes = problem.matrices[0]?.cost.length ?? 0;
    this.size = nodes + 1;
    this.free = nodes;
    this.cost = problem.matrices.map((m) => flatten(m.cost, nodes));
    this.duration = problem.matrices.map((m) => flatten(m.duration, nodes));
    this.position = new Int32Array(this.n).fill(-1);
    this.untimed =
      problem.stops.every((s) => s.windowStart === -Infinity && s.windowEnd === Infinity) && problem.vehicles.every((v) => v.shiftEnd === Infinity);
  }

  /** Work done so far: stops walked by evaluate plus O(1) move forecasts (the deterministic budget). */
  work = 0;
  private nearCache?: Int32Array[];
  /** Scratch: a route's stop → index while a move scans it (-1 elsewhere). */
  readonly position: Int32Array = new Int32Array(0);

  /** Each stop's other stops by increasing symmetric cost (built on first use). */
  get near(): Int32Array[] {
    return (this.nearCache ??= nearestStops(this));
  }

  startOf(v: number): number {
    return this.problem.vehicles[v].start ?? this.free;
  }

  endOf(v: number): number {
    return this.problem.vehicles[v].end ?? this.free;
  }

  /** Walks the route once: cost, lateness, finish and the first constraint it breaks. */
  evaluate(v: number, seq: readonly number[], visits?: Visit[]): RouteEval {
    const vehicle = this.problem.vehicles[v];
    const load: Load = [0, 0, 0];
    this.work += seq.length + 1;
    if (!seq.length) return { cost: 0, lateness: 0, duration: 0, finish: vehicle.startTime, load, broken: null };
    const cost = this.cost[vehicle.matrix];
    const dur = this.duration[vehicle.matrix];
    const size = this.size;
    let prev = this.startOf(v);
    let t = vehicle.startTime;
    let total = 0;
    let lateness = 0;
    let broken: UnassignedReason | null = null;
    for (const s of seq) {
      const stop = this.problem.stops[s];
      const c = cost[prev * size + s];
      if (c === Infinity) broken ??= "unreachable";
      total += c;
      const arrival = t + dur[prev * size + s];
      const begin = arrival < stop.windowStart ? stop.windowStart : arrival;
      const late = arrival > stop.windowEnd ? arrival - stop.windowEnd : 0;
      lateness += late;
      t = begin + stop.service;
      visits?.push({ stop: s, arrival, begin, wait: begin - arrival, late, departure: t });
      load[0] += stop.demand[0];
      load[1] += stop.demand[1];
      load[2] += stop.demand[2];
      prev = s;
    }
    const end = this.endOf(v);
    const last = cost[prev * size + end];
    if (last === Infinity) broken ??= "unreachable";
    total += last;
    t += dur[prev * size + end];
    if (!broken) {
      if (load[0] > vehicle.capacity[0] + EPS || load[1] > vehicle.capacity[1] + EPS || load[2] > vehicle.capacity[2] + EPS) broken = "capacity";
      else if (seq.length > vehicle.maxStops) broken = "max_stops";
      else if (this.problem.strictWindows && lateness > EPS) broken = "time_window";
      else if (t > vehicle.shiftEnd + EPS) broken = "shift";
    }
    return { cost: total, lateness, duration: t - vehicle.startTime, finish: t, load, broken };
  }
}

function flatten(rows: (number | null)[][], nodes: number): Float64Array {
  const size = nodes + 1;
  const out = new Float64Array(size * size);
  for (let i = 0; i < nodes; i++) {
    if (rows[i]?.length !== nodes) throw new RangeError(`matrix row ${i} must have ${nodes} entries`);
    for (let j = 0; j < nodes; j++) {
      const v = rows[i][j];
      out[i * size + j] = i === j ? 0 : v === null || !Number.isFinite(v) ? Infinity : v;
    }
  }
  return out;
}

/** One candidate answer: routes, their evaluations, and the stops no route takes. */
class Solution {
  constructor(
    readonly routes: number[][],
    readonly evals: RouteEval[],
    readonly unassigned: Set<number>,
  ) {}

  clone(): Solution {
    return new Solution(
      this.routes.map((r) => r.slice()),
      this.evals.slice(),
      new Set(this.unassigned),
    );
  }
}

/**
 * A solution's score, compared lexicographically: unassigned stops per priority (10 down to 0),
 * then total lateness, then the longest route's duration (balance only), then total cost.
 */
function score(inst: Instance, sol: Solution): number[] {
  const byPriority = new Array<number>(11).fill(0);
  for (const s of sol.unassigned) byPriority[10 - inst.problem.stops[s].priority]++;
  let lateness = 0,
    cost = 0,
    longest = 0;
  for (const e of sol.evals) {
    lateness += e.lateness;
    cost += e.cost;
    if (e.duration > longest) longest = e.duration;
  }
  return [...byPriority, lateness, inst.problem.balance ? longest : 0, cost];
}

/** Better on the lexicographic prefix, or equal there and at most `threshold` dearer. */
function acceptable(candidate: number[], current: number[], threshold: number): boolean {
  const last = candidate.length - 1;
  const prefix = compareScores(candidate.slice(0, last), current.slice(0, last));
  return prefix < 0 || (prefix === 0 && candidate[last] <= current[last] + threshold + EPS);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const tolerance = EPS * Math.max(1, Math.abs(a[i]), Math.abs(b[i]));
    if (a[i] < b[i] - tolerance) return -1;
    if (a[i] > b[i] + tolerance) return 1;
  }
  return 0;
}

/** Runs the search: construction, local search, then ruin-and-recreate rounds within the budget. */
export function searchRoutes(problem: SearchProblem, budget: SearchBudget = {}): SearchResult {
  const inst = new Instance(problem);
  const started = performance.now();
  const random = seededRandom(budget.seed ?? 1);
  const iterations = budget.iterations ?? defaultIterations(problem);
  const timeLimit = budget.timeLimitMs ?? 10_000;
  const workLimit = budget.work ?? DEFAULT_WORK;
  // Work is counted, so stopping on it is as deterministic as stopping on rounds; time is the net.
  const outOfTime = () => inst.work > workLimit || performance.now() - started > timeLimit;
  const neighbours = inst.near;

  let current = emptySolution(inst);
  insertStops(inst, current, [...current.unassigned]);
  improve(inst, current, null, outOfTime);
  let best = current.clone();
  let bestScore = score(inst, best);
  let currentScore = bestScore;
  let done = 0;
  let stoppedBy: SearchResult["stoppedBy"] = "iterations";
  for (; done < iterations && inst.n > 1; done++) {
    if (outOfTime()) {
      stoppedBy = inst.work > workLimit ? "work" : "time";
      break;
    }
    const candidate = current.clone();
    // A third of the rounds kick a route with a double bridge (the move 2-opt and Or-opt cannot
    // undo in one step); the others ruin and recreate, half by regret, half in a random order with
    // noise, so the search leaves local optima that regret alone rebuilds every time.
    const touched = random() < 1 / 3 ? doubleBridge(inst, candidate, random) : new Set<number>();
    if (!touched.size) {
      for (const v of ruin(inst, candidate, neighbours, random)) touched.add(v);
      const removed = [...candidate.unassigned];
      if (random() < 0.5) insertStops(inst, candidate, removed, touched);
      else insertInOrder(inst, candidate, shuffle(removed, random), touched, 2 * random() * noiseScale(inst, current), random);
    }
    improve(inst, candidate, touched, outOfTime);
    const candidateScore = score(inst, candidate);
    // Record-to-record travel on cost: a candidate as good on everything but cost may cost up to a
    // cooling share more than the current one (2 % at first, nothing at the end of the budget).
    const threshold = 0.02 * (1 - done / iterations) * currentScore[currentScore.length - 1];
    if (acceptable(candidateScore, currentScore, threshold)) {
      current = candidate;
      currentScore = candidateScore;
      if (compareScores(currentScore, bestScore) < 0) {
        best = current.clone();
        bestScore = currentScore;
      }
    }
  }
  return {
    routes: best.routes,
    unassigned: [...best.unassigned].sort((a, b) => a - b).map((stop) => ({ stop, reason: reasonFor(inst, best, stop) })),
    iterations: done,
    stoppedBy,
    work: inst.work,
  };
}

/**
 * Rounds by size: small instances get many (cheap, and they should be solved exactly); a single
 * route 20000 / stops (400 at 50 stops); a fleet 100000 / stops (500 at 200 stops), its rounds being
 * cheaper per stop since each touches a few short routes.
 */
export function defaultIterations(problem: SearchProblem): number {
  const n = problem.stops.length;
  if (n <= 12) return 2000;
  if (problem.vehicles.length === 1) return Math.max(60, Math.round(20_000 / n));
  return Math.max(100, Math.round(100_000 / n));
}

/** Evaluations of a route by the search's own rules (arrival per stop, lateness, cost). */
export function evaluateRoute(problem: SearchProblem, vehicle: number, route: readonly number[]): { eval: RouteEval; visits: Visit[] } {
  const visits: Visit[] = [];
  const inst = new Instance(problem);
  return { eval: inst.evaluate(vehicle, route, visits), visits };
}

function emptySolution(inst: Instance): Solution {
  const routes = inst.problem.vehicles.map(() => [] as number[]);
  return new Solution(
    routes,
    routes.map((r, v) => inst.evaluate(v, r)),
    new Set(inst.problem.stops.map((_, i) => i)),
  );
}

/** For each stop, the other stops by increasing symmetric cost (the first matrix): ruin removes neighbourhoods. */
function nearestStops(inst: Instance): Int32Array[] {
  const c = inst.cost[0];
  const size = inst.size;
  const out: Int32Array[] = [];
  for (let i = 0; i < inst.n; i++) {
    const others = Array.from({ length: inst.n }, (_, j) => j).filter((j) => j !== i);
    const d = (j: number) => Math.min(c[i * size + j] + c[j * size + i], 1e15);
    others.sort((a, b) => d(a) - d(b) || a - b);
    out.push(Int32Array.from(others));
  }
  return out;
}

/**
 * Removes some stops: a random stop and its nearest neighbours, or (every other round on average)
 * a run of consecutive stops of one route. Returns the routes it touched.
 */
function ruin(inst: Instance, sol: Solution, neighbours: Int32Array[], random: () => number): Set<number> {
  const assigned: number[] = [];
  for (const r of sol.routes) assigned.push(...r);
  const touched = new Set<number>();
  if (!assigned.length) return touched;
  // Small instances may lose every stop (a noisy restart); larger ones up to 30 % (at most 30).
  const maxRemove = Math.min(assigned.length, inst.n <= 20 ? inst.n : Math.min(30, Math.ceil(inst.n * 0.3)));
  const count = 1 + Math.floor(random() * maxRemove);
  const seed = assigned[Math.floor(random() * assigned.length)];
  const remove = new Set([seed]);
  if (random() < 0.5) {
    for (const s of neighbours[seed]) {
      if (remove.size >= count) break;
      if (!sol.unassigned.has(s)) remove.add(s);
    }
  } else {
    const route = sol.routes.find((r) => r.includes(seed))!;
    const length = Math.min(count, route.length);
    const first = Math.max(0, Math.min(route.indexOf(seed) - Math.floor(random() * length), route.length - length));
    for (let k = first; k < first + length; k++) remove.add(route[k]);
  }
  for (const [v, route] of sol.routes.entries()) {
    const kept = route.filter((s) => !remove.has(s));
    if (kept.length !== route.length) {
      sol.routes[v] = kept;
      sol.evals[v] = inst.evaluate(v, kept);
      touched.add(v);
    }
  }
  for (const s of remove) sol.unassigned.add(s);
  return touched;
}

/** Cuts a random route of 8+ stops into A B C D and joins them A C B D; empty set when none is long enough. */
function doubleBridge(inst: Instance, sol: Solution, random: () => number): Set<number> {
  const long = [...sol.routes.keys()].filter((v) => sol.routes[v].length >= 8);
  if (!long.length) return new Set();
  const v = long[Math.floor(random() * long.length)];
  const route = sol.routes[v];
  const cuts = [0, 0, 0].map(() => 1 + Math.floor(random() * (route.length - 1))).sort((a, b) => a - b);
  const [p, q, r] = cuts;
  if (p === q || q === r) return new Set();
  const kicked = [...route.slice(0, p), ...route.slice(q, r), ...route.slice(p, q), ...route.slice(r)];
  const e = inst.evaluate(v, kicked);
  // A kick must keep the route feasible (strict windows, shifts); else this round ruins instead.
  if (e.broken) return new Set();
  sol.routes[v] = kicked;
  sol.evals[v] = e;
  return new Set([v]);
}

/** The mean leg cost: the scale of the random term in noisy insertion. */
function noiseScale(inst: Instance, sol: Solution): number {
  let cost = 0,
    legs = 0;
  for (const [v, e] of sol.evals.entries()) {
    if (!sol.routes[v].length) continue;
    cost += e.cost;
    legs += sol.routes[v].length + 1;
  }
  return legs ? cost / legs : 0;
}

/**
 * Greedy insertion in the given order (highest priority first, the order kept within one), each
 * position's key plus a random term up to `noise`, so the rebuilt routes differ from the old ones.
 */
function insertInOrder(inst: Instance, sol: Solution, stops: number[], changed: Set<number>, noise: number, random: () => number): void {
  const ordered = stops.map((s, i) => [s, i]).sort((a, b) => inst.problem.stops[b[0]].priority - inst.problem.stops[a[0]].priority || a[1] - b[1]);
  for (const [stop] of ordered) {
    let best: Insertion | null = null;
    for (let v = 0; v < sol.routes.length; v++) {
      const at = bestPositionIn(inst, sol, v, stop, noise, random);
      if (at && (!best || at.key < best.key - EPS)) best = at;
    }
    if (!best) continue;
    sol.routes[best.route].splice(best.position, 0, stop);
    sol.evals[best.route] = inst.evaluate(best.route, sol.routes[best.route]);
    sol.unassigned.delete(stop);
    changed.add(best.route);
  }
}

interface Insertion {
  key: number;
  route: number;
  position: number;
}

/** What inserting changes, as one number: lateness first, then the balance term, then cost. */
function insertionKey(inst: Instance, before: RouteEval, after: RouteEval): number {
  const balance = inst.problem.balance ? after.duration : 0;
  return (after.lateness - before.lateness) * LATE_WEIGHT + balance + (after.cost - before.cost);
}

/**
 * The cheapest feasible position of a stop in one route, or null. Positions are tried in order of
 * their O(1) cost change, which with the route's duration bounds the key from below (lateness and
 * duration never shrink by inserting), so the walk stops once no later position can win. Without
 * time windows and shifts the O(1) figures are exact and no route is walked at all.
 */
function bestPositionIn(inst: Instance, sol: Solution, v: number, stop: number, noise = 0, random?: () => number): Insertion | null {
  const route = sol.routes[v];
  const vehicle = inst.problem.vehicles[v];
  if (route.length >= vehicle.maxStops) return null;
  const before = sol.evals[v];
  const demand = inst.problem.stops[stop].demand;
  for (let k = 0; k < 3; k++) if (before.load[k] + demand[k] > vehicle.capacity[k] + EPS) return null;
  const c = inst.cost[vehicle.matrix];
  const d = inst.duration[vehicle.matrix];
  const size = inst.size;
  const first = inst.startOf(v);
  const last = inst.endOf(v);
  const count = route.length;
  inst.work += count + 1;
  const costDelta = new Float64Array(count + 1);
  const timeDelta = new Float64Array(count + 1);
  for (let p = 0; p <= count; p++) {
    const prev = p === 0 ? first : route[p - 1];
    const next = p === count ? last : route[p];
    // An unused route has no start→end leg to replace.
    costDelta[p] = c[prev * size + stop] + c[stop * size + next] - (count ? c[prev * size + next] : 0);
    timeDelta[p] = d[prev * size + stop] + inst.problem.stops[stop].service + d[stop * size + next] - (count ? d[prev * size + next] : 0);
  }
  const balance = inst.problem.balance;
  let best: Insertion | null = null;
  if (inst.untimed) {
    for (let p = 0; p <= count; p++) {
      if (!(costDelta[p] < Infinity) || !(timeDelta[p] < Infinity)) continue;
      const key = costDelta[p] + (balance ? before.duration + timeDelta[p] : 0) + (noise && random ? noise * random() : 0);
      if (!best || key < best.key - EPS) best = { key, route: v, position: p };
    }
    return best;
  }
  const order = [...costDelta.keys()].filter((p) => costDelta[p] < Infinity).sort((a, b) => costDelta[a] - costDelta[b] || a - b);
  const seq = new Array<number>(count + 1);
  for (const p of order) {
    const bound = costDelta[p] + (balance ? before.duration : 0);
    if (best && bound >= best.key - EPS) break;
    for (let i = 0, k = 0; i <= count; i++) seq[i] = i === p ? stop : route[k++];
    const after = inst.evaluate(v, seq);
    if (after.broken) continue;
    const key = insertionKey(inst, before, after) + (noise && random ? noise * random() : 0);
    if (!best || key < best.key - EPS) best = { key, route: v, position: p };
  }
  return best;
}

/**
 * Regret insertion, highest priority first: within a priority, the stop whose best and second-best
 * routes differ most goes first (it has most to lose by waiting). Stops that fit nowhere stay out.
 */
function insertStops(inst: Instance, sol: Solution, stops: number[], changed?: Set<number>): void {
  const pending = new Set(stops);
  const vehicles = inst.problem.vehicles.length;
  // best position per stop and route, recomputed only for the route that changed last.
  const cache = new Map<number, (Insertion | null)[]>();
  for (const s of pending)
    cache.set(
      s,
      Array.from({ length: vehicles }, (_, v) => bestPositionIn(inst, sol, v, s)),
    );
  while (pending.size) {
    let top = -1;
    for (const s of pending) top = Math.max(top, inst.problem.stops[s].priority);
    let chosen: { stop: number; at: Insertion; regret: number } | null = null;
    inst.work += pending.size * vehicles;
    for (const s of pending) {
      if (inst.problem.stops[s].priority !== top) continue;
      let first: Insertion | null = null,
        second: Insertion | null = null;
      for (const ins of cache.get(s)!) {
        if (!ins) continue;
        if (!first || ins.key < first.key) [first, second] = [ins, first];
        else if (!second || ins.key < second.key) second = ins;
      }
      if (!first) continue;
      const regret = second ? second.key - first.key : Number.MAX_VALUE;
      if (!chosen || regret > chosen.regret + EPS || (Math.abs(regret - chosen.regret) <= EPS && first.key < chosen.at.key - EPS))
        chosen = { stop: s, at: first, regret };
    }
    if (!chosen) {
      // Nothing of this priority fits anywhere: those stops stay unassigned.
      for (const s of [...pending]) if (inst.problem.stops[s].priority === top) pending.delete(s);
      continue;
    }
    const { stop, at } = chosen;
    sol.routes[at.route].splice(at.position, 0, stop);
    sol.evals[at.route] = inst.evaluate(at.route, sol.routes[at.route]);
    sol.unassigned.delete(stop);
    pending.delete(stop);
    changed?.add(at.route);
    for (const s of pending) cache.get(s)![at.route] = bestPositionIn(inst, sol, at.route, s);
  }
}

/** Does replacing some routes' evaluations improve the solution (lateness, balance, cost)? */
function improves(inst: Instance, sol: Solution, replaced: Map<number, RouteEval>): boolean {
  let dLate = 0,
    dCost = 0;
  for (const [v, e] of replaced) {
    if (e.broken) return false;
    dLate += e.lateness - sol.evals[v].lateness;
    dCost += e.cost - sol.evals[v].cost;
  }
  if (dLate < -EPS) return true;
  if (dLate > EPS) return false;
  if (inst.problem.balance) {
    let before = 0,
      after = 0;
    for (const [v, e] of sol.evals.entries()) {
      before = Math.max(before, e.duration);
      after = Math.max(after, replaced.get(v)?.duration ?? e.duration);
    }
    if (after < before - EPS) return true;
    if (after > before + EPS) return false;
  }
  return dCost < -EPS * Math.max(1, Math.abs(dCost));
}

/**
 * Local search to a local optimum (first improvement): inside each route 2-opt and Or-opt (1-3
 * stops, either direction), between routes relocate (1-2 stops) and 1-1 exchange, then another try
 * to insert the unassigned. `touched` limits the between-route moves to pairs with a changed route.
 */
function improve(inst: Instance, sol: Solution, touched: Set<number> | null, outOfTime: () => boolean): void {
  const vehicles = inst.problem.vehicles.length;
  const active = touched ?? new Set(sol.routes.keys());
  // What a scan that found nothing saw: the routes' evaluations (replaced on every change) and the
  // longest duration (balance forecasts depend on it). An unchanged pair is not scanned again.
  const seenIntra = new Map<number, [RouteEval, number]>();
  const seenPair = new Map<number, [RouteEval, RouteEval, number]>();
  const span = () => (inst.problem.balance ? Math.max(...sol.evals.map((e) => e.duration)) : 0);
  for (let pass = 0; pass < 1000 && active.size; pass++) {
    let changed = false;
    for (const v of [...active]) {
      const seen = seenIntra.get(v);
      const longest = span();
      if (seen && seen[0] === sol.evals[v] && seen[1] === longest) continue;
      if (twoOpt(inst, sol, v) | orOpt(inst, sol, v)) changed = true;
      else seenIntra.set(v, [sol.evals[v], longest]);
    }
    if (vehicles > 1) {
      let longest = span();
      for (let a = 0; a < vehicles; a++) {
        for (let b = 0; b < vehicles; b++) {
          if (a === b || (!active.has(a) && !active.has(b))) continue;
          if ((a * vehicles + b) % 64 === 0 && outOfTime()) return;
          const key = a * vehicles + b;
          inst.work++;
          const seen = seenPair.get(key);
          if (seen && seen[0] === sol.evals[a] && seen[1] === sol.evals[b] && seen[2] === longest) continue;
          if (relocate(inst, sol, a, b) || (a < b && exchange(inst, sol, a, b))) {
            active.add(a).add(b);
            changed = true;
            longest = span();
          } else seenPair.set(key, [sol.evals[a], sol.evals[b], longest]);
        }
      }
    }
    if (sol.unassigned.size) {
      const before = sol.unassigned.size;
      insertStops(inst, sol, [...sol.unassigned], active);
      if (sol.unassigned.size < before) changed = true;
    }
    if (!changed || outOfTime()) break;
  }
}

function tryReplace(inst: Instance, sol: Solution, changes: [number, number[]][]): boolean {
  const replaced = new Map(changes.map(([v, seq]) => [v, inst.evaluate(v, seq)] as const));
  if (!improves(inst, sol, replaced)) return false;
  for (const [v, seq] of changes) {
    sol.routes[v] = seq;
    sol.evals[v] = replaced.get(v)!;
  }
  return true;
}

/**
 * Can a move of route v only help by lowering cost? True when the route has no lateness to remove
 * and (balancing) is not the one that sets the longest duration.
 */
function onlyCostCanImprove(inst: Instance, sol: Solution, v: number, top: Longest): boolean {
  if (sol.evals[v].lateness > EPS) return false;
  if (!inst.problem.balance) return true;
  return sol.evals[v].duration < (top.durations[0] ?? 0) - EPS;
}

/**
 * Is a move worth walking its routes for? Its O(1) forecast: the change of cost and duration of
 * route a (and b, or -1). Without windows and shifts the forecast is exact (no lateness, durations
 * are driving plus service), so only moves it says improve are evaluated. With them, a route that
 * has lateness or sets the balance may improve in ways O(1) cannot see: those are evaluated.
 */
function worthEvaluating(inst: Instance, sol: Solution, top: Longest, a: number, costA: number, durationA: number, b = -1, costB = 0, durationB = 0): boolean {
  const cost = costA + costB;
  inst.work++;
  if (!inst.untimed) {
    if (!onlyCostCanImprove(inst, sol, a, top) || (b >= 0 && !onlyCostCanImprove(inst, sol, b, top))) return true;
    return cost < -EPS;
  }
  if (inst.problem.balance) {
    const before = top.durations[0] ?? 0;
    let after = sol.evals[a].duration + durationA;
    if (b >= 0) after = Math.max(after, sol.evals[b].duration + durationB);
    for (let k = 0; k < top.routes.length; k++) {
      if (top.routes[k] === a || top.routes[k] === b) continue;
      after = Math.max(after, top.durations[k]);
      break;
    }
    if (after < before - EPS) return true;
    if (!(after <= before + EPS)) return false;
  }
  return cost < -EPS;
}

/** The three longest routes, longest first: the balance forecast needs the longest other than a and b. */
interface Longest {
  routes: number[];
  durations: number[];
}

function longestRoutes(inst: Instance, sol: Solution): Longest {
  const routes: number[] = [];
  const durations: number[] = [];
  inst.work += sol.evals.length;
  for (let v = 0; v < sol.evals.length; v++) {
    const d = sol.evals[v].duration;
    let k = routes.length;
    while (k > 0 && durations[k - 1] < d) k--;
    if (k >= 3) continue;
    routes.splice(k, 0, v);
    durations.splice(k, 0, d);
    if (routes.length > 3) {
      routes.pop();
      durations.pop();
    }
  }
  return { routes, durations };
}

/** Node sequence with the route's start and end nodes around its stops. */
function withEnds(inst: Instance, v: number, route: readonly number[]): number[] {
  return [inst.startOf(v), ...route, inst.endOf(v)];
}

/** Sum of the legs nodes[from..to] in a flat matrix. */
function legs(m: Float64Array, size: number, nodes: readonly number[], from: number, to: number, reversed = false): number {
  let t = 0;
  for (let k = from; k < to; k++) t += reversed ? m[nodes[k + 1] * size + nodes[k]] : m[nodes[k] * size + nodes[k + 1]];
  return t;
}

/** Reverses route[i..j] where the forecast (asymmetric: prefix sums both ways) says it may pay. */
function twoOpt(inst: Instance, sol: Solution, v: number): number {
  let improved = 0;
  const vehicle = inst.problem.vehicles[v];
  const c = inst.cost[vehicle.matrix];
  const d = inst.duration[vehicle.matrix];
  const size = inst.size;
  for (let again = true; again;) {
    again = false;
    const route = sol.routes[v];
    const nodes = withEnds(inst, v, route);
    const top = longestRoutes(inst, sol);
    const m = nodes.length;
    const fc = new Float64Array(m),
      bc = new Float64Array(m),
      fd = new Float64Array(m),
      bd = new Float64Array(m);
    for (let k = 1; k < m; k++) {
      const u = nodes[k - 1],
        w = nodes[k];
      fc[k] = fc[k - 1] + c[u * size + w];
      bc[k] = bc[k - 1] + c[w * size + u];
      fd[k] = fd[k - 1] + d[u * size + w];
      bd[k] = bd[k - 1] + d[w * size + u];
    }
    search: for (let i = 1; i < m - 2; i++) {
      const before = nodes[i - 1],
        head = nodes[i];
      for (let j = i + 1; j < m - 1; j++) {
        const tail = nodes[j],
          after = nodes[j + 1];
        const cost = c[before * size + tail] + (bc[j] - bc[i]) + c[head * size + after] - c[before * size + head] - (fc[j] - fc[i]) - c[tail * size + after];
        const duration = inst.untimed
          ? d[before * size + tail] + (bd[j] - bd[i]) + d[head * size + after] - d[before * size + head] - (fd[j] - fd[i]) - d[tail * size + after]
          : 0;
        if (!worthEvaluating(inst, sol, top, v, cost, duration)) continue;
        const seq = [...route.slice(0, i - 1), ...route.slice(i - 1, j).reverse(), ...route.slice(j)];
        if (tryReplace(inst, sol, [[v, seq]])) {
          improved = 1;
          again = true;
          break search;
        }
      }
    }
  }
  return improved;
}

/** Moves a run of 1-3 stops elsewhere in the same route, kept or reversed. */
function orOpt(inst: Instance, sol: Solution, v: number): number {
  let improved = 0;
  const vehicle = inst.problem.vehicles[v];
  const c = inst.cost[vehicle.matrix];
  const d = inst.duration[vehicle.matrix];
  const size = inst.size;
  for (let again = true; again;) {
    again = false;
    const route = sol.routes[v];
    const nodes = withEnds(inst, v, route);
    const top = longestRoutes(inst, sol);
    search: for (let len = 1; len <= 3; len++) {
      for (let i = 1; i + len - 1 <= route.length; i++) {
        const j = i + len - 1; // segment nodes[i..j]
        const prev = nodes[i - 1],
          next = nodes[j + 1];
        const turnCost = legs(c, size, nodes, i, j, true) - legs(c, size, nodes, i, j);
        const turnDuration = legs(d, size, nodes, i, j, true) - legs(d, size, nodes, i, j);
        const removedCost = c[prev * size + next] - c[prev * size + nodes[i]] - c[nodes[j] * size + next];
        const removedDuration = d[prev * size + next] - d[prev * size + nodes[i]] - d[nodes[j] * size + next];
        for (let p = 0; p < nodes.length - 1; p++) {
          if (p >= i - 1 && p <= j) continue; // insert between nodes[p] and nodes[p+1], outside the segment
          const x = nodes[p],
            y = nodes[p + 1];
          for (let r = 0; r < (len > 1 ? 2 : 1); r++) {
            const reversed = r === 1;
            const first = reversed ? nodes[j] : nodes[i];
            const last = reversed ? nodes[i] : nodes[j];
            const cost = removedCost + c[x * size + first] + c[last * size + y] - c[x * size + y] + (reversed ? turnCost : 0);
            const duration = inst.untimed ? removedDuration + d[x * size + first] + d[last * size + y] - d[x * size + y] + (reversed ? turnDuration : 0) : 0;
            if (!worthEvaluating(inst, sol, top, v, cost, duration)) continue;
            const segment = route.slice(i - 1, j);
            if (reversed) segment.reverse();
            const rest = [...route.slice(0, i - 1), ...route.slice(j)];
            const at = p < i ? p : p - len; // position in `rest` after removal
            const seq = [...rest.slice(0, at), ...segment, ...rest.slice(at)];
            if (tryReplace(inst, sol, [[v, seq]])) {
              improved = 1;
              again = true;
              break search;
            }
          }
        }
      }
    }
  }
  return improved;
}

const ranges: [number[][], number[][]] = [[], []];

/** [from, from+1, …, last]: shared read-only arrays, since the move scans ask for them constantly. */
function upTo(last: number, from: 0 | 1): readonly number[] {
  return (ranges[from][last] ??= Array.from({ length: last - from + 1 }, (_, k) => k + from));
}

/**
 * Places in route b (between nodesB[p] and nodesB[p+1]) next to the granular neighbours of a run's
 * first and last stop; every place when b is short. Uses inst.position for b's stops.
 */
function positionsNear(inst: Instance, first: number, last: number, length: number): readonly number[] {
  if (length <= GRANULARITY) return upTo(length, 0);
  const out = new Set<number>();
  const near = inst.near;
  const limit = Math.min(GRANULARITY, near[first].length);
  for (let k = 0; k < limit; k++) {
    const afterNeighbour = inst.position[near[first][k]];
    if (afterNeighbour >= 0) out.add(afterNeighbour + 1);
    const beforeNeighbour = inst.position[near[last][k]];
    if (beforeNeighbour >= 0) out.add(beforeNeighbour);
  }
  return [...out].sort((x, y) => x - y);
}

/** Positions (1-based in nodesB) of route b's stops among x's granular neighbours; all when b is short. */
function swapsNear(inst: Instance, x: number, length: number): readonly number[] {
  if (length <= GRANULARITY) return upTo(length, 1);
  const out: number[] = [];
  const near = inst.near[x];
  for (let k = 0; k < Math.min(GRANULARITY, near.length); k++) {
    const at = inst.position[near[k]];
    if (at >= 0) out.push(at + 1);
  }
  return out.sort((p, q) => p - q);
}

function fits(load: Load, capacity: Load, add: Load, remove?: Load): boolean {
  for (let k = 0; k < 3; k++) if (load[k] + add[k] - (remove ? remove[k] : 0) > capacity[k] + EPS) return false;
  return true;
}

/** Moves a run of 1-2 stops from route a into route b at its best place. */
function relocate(inst: Instance, sol: Solution, a: number, b: number): boolean {
  const from = sol.routes[a];
  const to = sol.routes[b];
  inst.work += from.length + to.length;
  const top = longestRoutes(inst, sol);
  for (const [k, s] of to.entries()) inst.position[s] = k;
  try {
    return relocateInto(inst, sol, a, b, from, to, withEnds(inst, a, from), withEnds(inst, b, to), top);
  } finally {
    for (const s of to) inst.position[s] = -1;
  }
}

function relocateInto(
  inst: Instance,
  sol: Solution,
  a: number,
  b: number,
  from: number[],
  to: number[],
  nodesA: number[],
  nodesB: number[],
  top: Longest,
): boolean {
  const va = inst.problem.vehicles[a];
  const vb = inst.problem.vehicles[b];
  const ca = inst.cost[va.matrix],
    da = inst.duration[va.matrix],
    cb = inst.cost[vb.matrix],
    db = inst.duration[vb.matrix];
  const size = inst.size;
  const stops = inst.problem.stops;
  for (let len = 1; len <= 2; len++) {
    if (to.length + len > vb.maxStops) break;
    for (let i = 1; i + len - 1 <= from.length; i++) {
      const j = i + len - 1;
      const demand: Load = [0, 0, 0];
      let service = 0;
      for (let k = i; k <= j; k++) {
        const st = stops[nodesA[k]];
        demand[0] += st.demand[0];
        demand[1] += st.demand[1];
        demand[2] += st.demand[2];
        service += st.service;
      }
      if (!fits(sol.evals[b].load, vb.capacity, demand)) continue;
      const first = nodesA[i],
        last = nodesA[j],
        prev = nodesA[i - 1],
        next = nodesA[j + 1];
      // Emptying a route drops everything it had, its start→end leg included.
      const emptied = from.length === len;
      const removedCost = emptied
        ? -sol.evals[a].cost
        : ca[prev * size + next] - ca[prev * size + first] - ca[last * size + next] - legs(ca, size, nodesA, i, j);
      const removedDuration = emptied
        ? -sol.evals[a].duration
        : da[prev * size + next] - da[prev * size + first] - da[last * size + next] - legs(da, size, nodesA, i, j) - service;
      const insideCost = legs(cb, size, nodesA, i, j);
      const insideDuration = legs(db, size, nodesA, i, j);
      let rest: number[] | null = null;
      for (const p of positionsNear(inst, first, last, to.length)) {
        const x = nodesB[p],
          y = nodesB[p + 1];
        const addedCost = cb[x * size + first] + insideCost + cb[last * size + y] - (to.length ? cb[x * size + y] : 0);
        const addedDuration = inst.untimed ? db[x * size + first] + insideDuration + db[last * size + y] - (to.length ? db[x * size + y] : 0) + service : 0;
        if (!worthEvaluating(inst, sol, top, a, removedCost, removedDuration, b, addedCost, addedDuration)) continue;
        rest ??= [...from.slice(0, i - 1), ...from.slice(j)];
        const seq = [...to.slice(0, p), ...from.slice(i - 1, j), ...to.slice(p)];
        if (
          tryReplace(inst, sol, [
            [a, rest],
            [b, seq],
          ])
        )
          return true;
      }
    }
  }
  return false;
}

/** Swaps one stop of route a with one of route b, each taking the other's place. */
function exchange(inst: Instance, sol: Solution, a: number, b: number): boolean {
  const from = sol.routes[a];
  const to = sol.routes[b];
  const va = inst.problem.vehicles[a];
  const vb = inst.problem.vehicles[b];
  const ca = inst.cost[va.matrix],
    da = inst.duration[va.matrix],
    cb = inst.cost[vb.matrix],
    db = inst.duration[vb.matrix];
  const size = inst.size;
  const nodesA = withEnds(inst, a, from);
  const nodesB = withEnds(inst, b, to);
  const stops = inst.problem.stops;
  const top = longestRoutes(inst, sol);
  for (const [k, s] of to.entries()) inst.position[s] = k;
  try {
    return exchangeWith(inst, sol, a, b, from, to, nodesA, nodesB, top, va, vb, ca, da, cb, db, size, stops);
  } finally {
    for (const s of to) inst.position[s] = -1;
  }
}

function exchangeWith(
  inst: Instance,
  sol: Solution,
  a: number,
  b: number,
  from: number[],
  to: number[],
  nodesA: number[],
  nodesB: number[],
  top: Longest,
  va: SearchVehicle,
  vb: SearchVehicle,
  ca: Float64Array,
  da: Float64Array,
  cb: Float64Array,
  db: Float64Array,
  size: number,
  stops: SearchStop[],
): boolean {
  for (let i = 1; i <= from.length; i++) {
    const x = nodesA[i],
      pa = nodesA[i - 1],
      na = nodesA[i + 1];
    for (const j of swapsNear(inst, x, to.length)) {
      const y = nodesB[j],
        pb = nodesB[j - 1],
        nb = nodesB[j + 1];
      if (!fits(sol.evals[a].load, va.capacity, stops[y].demand, stops[x].demand) || !fits(sol.evals[b].load, vb.capacity, stops[x].demand, stops[y].demand))
        continue;
      const serviceShift = stops[y].service - stops[x].service;
      const costA = ca[pa * size + y] + ca[y * size + na] - ca[pa * size + x] - ca[x * size + na];
      const costB = cb[pb * size + x] + cb[x * size + nb] - cb[pb * size + y] - cb[y * size + nb];
      const durationA = inst.untimed ? da[pa * size + y] + da[y * size + na] - da[pa * size + x] - da[x * size + na] + serviceShift : 0;
      const durationB = inst.untimed ? db[pb * size + x] + db[x * size + nb] - db[pb * size + y] - db[y * size + nb] - serviceShift : 0;
      if (!worthEvaluating(inst, sol, top, a, costA, durationA, b, costB, durationB)) continue;
      const seqA = from.slice();
      const seqB = to.slice();
      seqA[i - 1] = y;
      seqB[j - 1] = x;
      if (
        tryReplace(inst, sol, [
          [a, seqA],
          [b, seqB],
        ])
      )
        return true;
    }
  }
  return false;
}

/**
 * Why a stop is out: per vehicle, what breaks when it is tried at every place of that vehicle's
 * final route (alone first: capacity, shift, unreachable, windows that no route could meet). The
 * reason reported is the one most vehicles give; ties go to the order of UNASSIGNED_REASONS.
 */
function reasonFor(inst: Instance, sol: Solution, stop: number): UnassignedReason {
  const counts = new Map<UnassignedReason, number>();
  for (let v = 0; v < inst.problem.vehicles.length; v++) {
    const alone = inst.evaluate(v, [stop]).broken;
    let reason: UnassignedReason;
    if (alone) reason = alone;
    else if (sol.routes[v].length >= inst.problem.vehicles[v].maxStops) reason = "max_stops";
    else {
      const route = sol.routes[v];
      const seen = new Set<UnassignedReason>();
      for (let p = 0; p <= route.length; p++) {
        const broken = inst.evaluate(v, [...route.slice(0, p), stop, ...route.slice(p)]).broken;
        if (broken) seen.add(broken);
      }
      // Every place broke something (else the stop would be in); the heaviest-handed cause wins.
      reason = UNASSIGNED_REASONS.find((r) => seen.has(r)) ?? "time_window";
    }
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  let best: UnassignedReason = "unreachable";
  let bestCount = -1;
  for (const r of UNASSIGNED_REASONS) {
    const n = counts.get(r) ?? 0;
    if (n > bestCount) [best, bestCount] = [r, n];
  }
  return best;
}

/** Reason codes in the order ties are broken. */
export const UNASSIGNED_REASONS: UnassignedReason[] = ["capacity", "max_stops", "time_window", "shift", "unreachable"];
