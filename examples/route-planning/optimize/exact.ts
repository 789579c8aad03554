// Exact answers for small instances, the yardsticks of the heuristics' tests and of the measured
// gaps: Held-Karp dynamic programming for the TSP, full enumeration for tiny fleet problems.
import { type SearchProblem, evaluateRoute } from "./route-search.ts";

/** Optimal tour cost by Held-Karp, O(2^n n^2): start/end as in TspProblem (stops are nodes 0..n-1). */
export function heldKarp(cost: (number | null)[][], stops: number, start?: number, end?: number): number {
  const finish = end ?? start;
  const c = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? 0 : (cost[a][b] ?? Infinity));
  const full = (1 << stops) - 1;
  const dp = new Float64Array((full + 1) * stops).fill(Infinity);
  for (let i = 0; i < stops; i++) dp[(1 << i) * stops + i] = c(start, i);
  for (let mask = 1; mask <= full; mask++) {
    for (let last = 0; last < stops; last++) {
      const here = dp[mask * stops + last];
      if (!(mask & (1 << last)) || here === Infinity) continue;
      for (let next = 0; next < stops; next++) {
        if (mask & (1 << next)) continue;
        const to = (mask | (1 << next)) * stops + next;
        const value = here + c(last, next);
        if (value < dp[to]) dp[to] = value;
      }
    }
  }
  let best = Infinity;
  for (let last = 0; last < stops; last++) best = Math.min(best, dp[full * stops + last] + c(last, finish));
  return best;
}

/** Every ordering of `items` (n! of them). */
export function* permutations(items: number[]): Generator<number[]> {
  if (items.length <= 1) {
    yield items.slice();
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const p of permutations(rest)) yield [items[i], ...p];
  }
}

/**
 * The best score of a tiny fleet problem by enumeration: every subset per vehicle, each in its best
 * order. Score as the search ranks it: unassigned per priority (10..0), lateness, longest route
 * when balancing, total cost. Exact for problems whose routes are independent given the subsets
 * (always), over at most about 8 stops.
 */
export function bruteForceVrp(problem: SearchProblem): number[] {
  const n = problem.stops.length;
  const vehicles = problem.vehicles.length;
  // best [lateness, duration, cost] per vehicle and subset, when some order is feasible.
  const bestRoute: (number[] | null)[][] = [];
  for (let v = 0; v < vehicles; v++) {
    const row: (number[] | null)[] = [];
    for (let mask = 0; mask < 1 << n; mask++) {
      const members = [...Array(n).keys()].filter((i) => mask & (1 << i));
      let best: number[] | null = null;
      for (const order of permutations(members)) {
        const { eval: e } = evaluateRoute(problem, v, order);
        if (e.broken) continue;
        // Per route, lateness first then cost; balanced tests use cost = duration so both agree.
        const key = [e.lateness, e.cost, e.duration];
        if (!best || key[0] < best[0] - 1e-9 || (Math.abs(key[0] - best[0]) <= 1e-9 && key[1] < best[1] - 1e-9)) best = key;
      }
      row.push(best);
    }
    bestRoute.push(row);
  }
  let bestScore: number[] | null = null;
  const assign = new Array<number>(n).fill(-1);
  const visit = (i: number) => {
    if (i === n) {
      const masks = new Array<number>(vehicles).fill(0);
      for (let s = 0; s < n; s++) if (assign[s] >= 0) masks[assign[s]] |= 1 << s;
      let lateness = 0,
        longest = 0,
        cost = 0;
      for (let v = 0; v < vehicles; v++) {
        const r = bestRoute[v][masks[v]];
        if (!r) return;
        lateness += r[0];
        cost += r[1];
        longest = Math.max(longest, r[2]);
      }
      const byPriority = new Array<number>(11).fill(0);
      for (let s = 0; s < n; s++) if (assign[s] < 0) byPriority[10 - problem.stops[s].priority]++;
      const score = [...byPriority, lateness, problem.balance ? longest : 0, cost];
      if (!bestScore || compare(score, bestScore) < 0) bestScore = score;
      return;
    }
    for (let v = -1; v < vehicles; v++) {
      assign[i] = v;
      visit(i + 1);
    }
  };
  visit(0);
  return bestScore!;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i] - 1e-7) return -1;
    if (a[i] > b[i] + 1e-7) return 1;
  }
  return 0;
}
