// The single-vehicle tour (TSP) over a cost matrix: which order visits every stop cheapest, with
// optional time windows (soft: lateness is minimised before cost, and reported) and service times.
// It is the shared route search with one vehicle of unlimited capacity (route-search.ts).
import { type SearchBudget, type SearchProblem, type Visit, evaluateRoute, searchRoutes } from "./route-search.ts";

export interface TspProblem {
  /** Square matrix: stops are nodes 0..stops-1, then `start`/`end` nodes if any; null = unreachable. */
  cost: (number | null)[][];
  /** Seconds for arrival times (default: `cost`, i.e. optimising time). */
  duration?: (number | null)[][];
  stops: number;
  /**
   * Start without end: a closed tour back to the start. End (with or without start): an open path
   * ending there. Neither: an open path whose first and last stop the search chooses.
   */
  start?: number;
  end?: number;
  /** Seconds spent at each stop (default 0). */
  service?: number[];
  /** [earliest, latest] service start per stop, seconds on the `startTime` clock; null = any time. */
  windows?: ([number, number] | null)[];
  /** When the tour leaves `start` (default 0). */
  startTime?: number;
}

export interface TspSolution {
  /** Stop indices in visiting order; every stop appears once. */
  order: number[];
  cost: number;
  /** Seconds past the windows' ends, summed over stops. */
  lateness: number;
  visits: Visit[];
  /** When the tour is over (at `end`, back at `start`, or done at its last stop). */
  finish: number;
  /** false when no order reaches every stop (null legs): the caller must say which stop is cut off. */
  complete: boolean;
  unreached: number[];
  iterations: number;
}

/** Solves the TSP variant described on TspProblem; deterministic for a given problem and budget. */
export function solveTsp(problem: TspProblem, budget: SearchBudget = {}): TspSolution {
  const startTime = problem.startTime ?? 0;
  const search: SearchProblem = {
    stops: Array.from({ length: problem.stops }, (_, i) => ({
      service: problem.service?.[i] ?? 0,
      windowStart: problem.windows?.[i]?.[0] ?? -Infinity,
      windowEnd: problem.windows?.[i]?.[1] ?? Infinity,
      demand: [0, 0, 0],
      priority: 0,
    })),
    vehicles: [
      {
        matrix: 0,
        start: problem.start ?? null,
        end: problem.end ?? problem.start ?? null,
        startTime,
        shiftEnd: Infinity,
        capacity: [Infinity, Infinity, Infinity],
        maxStops: Infinity,
      },
    ],
    matrices: [{ cost: problem.cost, duration: problem.duration ?? problem.cost }],
    strictWindows: false,
    balance: false,
  };
  const result = searchRoutes(search, budget);
  const order = result.routes[0];
  const { eval: e, visits } = evaluateRoute(search, 0, order);
  return {
    order,
    cost: e.cost,
    lateness: e.lateness,
    visits,
    finish: e.finish,
    complete: result.unassigned.length === 0 && e.broken === null,
    unreached: result.unassigned.map((u) => u.stop),
    iterations: result.iterations,
  };
}
