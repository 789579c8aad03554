// The fleet problem (VRP): assign stops to vehicles and order each route, honouring capacities,
// stop limits, time windows, shifts and per-vehicle start/end; what fits nowhere is returned
// unassigned with a reason. The shared route search does the work (route-search.ts).
import { type RouteEval, type SearchBudget, type SearchProblem, type UnassignedReason, type Visit, evaluateRoute, searchRoutes } from "./route-search.ts";

export interface VrpRoute {
  vehicle: number;
  stops: number[];
  eval: RouteEval;
  visits: Visit[];
}

export interface VrpSolution {
  /** One per vehicle, in the problem's order (empty routes included). */
  routes: VrpRoute[];
  unassigned: { stop: number; reason: UnassignedReason }[];
  iterations: number;
  stoppedBy: "iterations" | "work" | "time";
  work: number;
}

/** Solves the fleet problem; deterministic for a given problem and budget. */
export function solveVrp(problem: SearchProblem, budget: SearchBudget = {}): VrpSolution {
  const result = searchRoutes(problem, budget);
  const routes = result.routes.map((stops, vehicle) => {
    const { eval: e, visits } = evaluateRoute(problem, vehicle, stops);
    return { vehicle, stops, eval: e, visits };
  });
  return { routes, unassigned: result.unassigned, iterations: result.iterations, stoppedBy: result.stoppedBy, work: result.work };
}
