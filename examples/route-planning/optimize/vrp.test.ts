import { describe, expect, it } from "vitest";
import { bruteForceVrp } from "./exact.ts";
import { randomMatrix } from "./random-instances.ts";
import type { Load, SearchProblem, SearchStop, SearchVehicle } from "./route-search.ts";
import { solveVrp } from "./vrp.ts";

const UNLIMITED: Load = [Infinity, Infinity, Infinity];

function stop(over: Partial<SearchStop> = {}): SearchStop {
  return { service: 0, windowStart: -Infinity, windowEnd: Infinity, demand: [1, 0, 0], priority: 0, ...over };
}

function vehicle(over: Partial<SearchVehicle> = {}): SearchVehicle {
  return { matrix: 0, start: null, end: null, startTime: 0, shiftEnd: Infinity, capacity: UNLIMITED, maxStops: Infinity, ...over };
}

/** n stops (nodes 0..n-1) and two depots (nodes n, n+1) on a random matrix. */
function problem(n: number, seed: number, over: Partial<SearchProblem> & { stops?: SearchStop[]; vehicles: SearchVehicle[] }, asymmetry = 0): SearchProblem {
  const { cost } = randomMatrix(n + 2, seed, asymmetry);
  return { stops: Array.from({ length: n }, () => stop()), matrices: [{ cost, duration: cost }], strictWindows: true, balance: false, ...over };
}

/** The solution's score as bruteForceVrp ranks it. */
function scoreOf(p: SearchProblem, solution: ReturnType<typeof solveVrp>): number[] {
  const byPriority = new Array<number>(11).fill(0);
  for (const u of solution.unassigned) byPriority[10 - p.stops[u.stop].priority]++;
  const lateness = solution.routes.reduce((t, r) => t + r.eval.lateness, 0);
  const longest = Math.max(...solution.routes.map((r) => r.eval.duration));
  const cost = solution.routes.reduce((t, r) => t + r.eval.cost, 0);
  return [...byPriority, lateness, p.balance ? longest : 0, cost];
}

function expectOptimal(p: SearchProblem) {
  const solution = solveVrp(p);
  const optimum = bruteForceVrp(p);
  const got = scoreOf(p, solution);
  for (const [i, v] of optimum.entries()) expect(got[i]).toBeCloseTo(v, 6);
  for (const r of solution.routes) expect(r.eval.broken).toBeNull();
  return solution;
}

describe("solveVrp against brute force (7 stops, 2 vehicles)", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`capacities force a split, both vehicles back at their depots (seed ${seed})`, () => {
      const p = problem(7, seed, {
        stops: Array.from({ length: 7 }, (_, i) => stop({ demand: [1 + (i % 3), 10 * i, 0] })),
        vehicles: [vehicle({ start: 7, end: 7, capacity: [7, Infinity, Infinity] }), vehicle({ start: 8, end: 8, capacity: [8, 150, Infinity] })],
      });
      const solution = expectOptimal(p);
      for (const r of solution.routes) expect(r.eval.load[0]).toBeLessThanOrEqual(p.vehicles[r.vehicle].capacity[0]);
    });
  }

  for (const seed of [6, 7, 8]) {
    it(`asymmetric costs, open routes and a stop limit (seed ${seed})`, () => {
      expectOptimal(problem(7, seed, { vehicles: [vehicle({ start: 7, maxStops: 3 }), vehicle({ start: 8, end: 7, maxStops: 5 })] }, 0.4));
    });
  }

  it("not everything fits: higher priorities are kept, the rest comes back with the reason", () => {
    const p = problem(7, 9, {
      stops: Array.from({ length: 7 }, (_, i) => stop({ demand: [2, 0, 0], priority: i % 3 === 0 ? 5 : 0 })),
      vehicles: [vehicle({ start: 7, end: 7, capacity: [4, Infinity, Infinity] }), vehicle({ start: 8, end: 8, capacity: [4, Infinity, Infinity] })],
    });
    const solution = expectOptimal(p);
    expect(solution.unassigned).toHaveLength(3);
    for (const u of solution.unassigned) {
      expect(p.stops[u.stop].priority).toBe(0);
      expect(u.reason).toBe("capacity");
    }
  });

  it("strict time windows and a shift end, equal to the optimum", () => {
    for (const seed of [10, 11, 12]) {
      const p = problem(7, seed, {
        stops: Array.from({ length: 7 }, (_, i) => stop({ windowStart: (i % 4) * 400, windowEnd: (i % 4) * 400 + 700, service: 60 })),
        vehicles: [vehicle({ start: 7, end: 7, shiftEnd: 3000 }), vehicle({ start: 8, end: 8, shiftEnd: 3000 })],
      });
      const solution = expectOptimal(p);
      for (const r of solution.routes) {
        for (const v of r.visits) expect(v.late).toBe(0);
        expect(r.eval.finish).toBeLessThanOrEqual(3000);
      }
    }
  });

  it("balance_workload minimises the longest route first", () => {
    for (const seed of [13, 14]) {
      const p = problem(7, seed, { balance: true, vehicles: [vehicle({ start: 7, end: 7 }), vehicle({ start: 7, end: 7 })] });
      const solution = expectOptimal(p);
      const unbalanced = solveVrp({ ...p, balance: false });
      const longest = (s: typeof solution) => Math.max(...s.routes.map((r) => r.eval.duration));
      expect(longest(solution)).toBeLessThanOrEqual(longest(unbalanced) + 1e-9);
    }
  });
});

describe("solveVrp reason codes", () => {
  const base = () =>
    problem(5, 21, {
      vehicles: [vehicle({ start: 5, end: 5, capacity: [10, 100, 1], maxStops: 10, shiftEnd: 100_000 })],
    });

  it("capacity: a demand bigger than every vehicle", () => {
    const p = base();
    p.stops[2] = stop({ demand: [1, 500, 0] });
    expect(solveVrp(p).unassigned).toEqual([{ stop: 2, reason: "capacity" }]);
  });

  it("max_stops: every vehicle is full by count", () => {
    const p = base();
    p.stops.forEach((s) => (s.demand = [0, 0, 0]));
    p.vehicles[0].maxStops = 4;
    const solution = solveVrp(p);
    expect(solution.unassigned).toHaveLength(1);
    expect(solution.unassigned[0].reason).toBe("max_stops");
  });

  it("time_window: a window that closes before anyone can arrive", () => {
    const p = base();
    p.stops[1] = stop({ windowStart: 0, windowEnd: 1 });
    expect(solveVrp(p).unassigned).toEqual([{ stop: 1, reason: "time_window" }]);
  });

  it("time windows soft: the late stop is served and its lateness reported", () => {
    const p = { ...base(), strictWindows: false };
    p.stops[1] = stop({ windowStart: 0, windowEnd: 1 });
    const solution = solveVrp(p);
    expect(solution.unassigned).toEqual([]);
    const visit = solution.routes[0].visits.find((v) => v.stop === 1)!;
    expect(visit.late).toBeGreaterThan(0);
  });

  it("shift: the trip there and back does not fit the shift", () => {
    const p = base();
    p.vehicles[0].shiftEnd = 100;
    const reasons = solveVrp(p).unassigned.map((u) => u.reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(new Set(reasons)).toEqual(new Set(["shift"]));
  });

  it("unreachable: null legs to and from a stop", () => {
    const p = base();
    p.matrices[0].cost = p.matrices[0].cost.map((row, i) => row.map((v, j) => (i !== j && (i === 3 || j === 3) ? null : v)));
    p.matrices[0].duration = p.matrices[0].cost;
    const solution = solveVrp(p);
    expect(solution.unassigned).toEqual([{ stop: 3, reason: "unreachable" }]);
    expect(solution.routes[0].stops).toHaveLength(4);
  });

  it("a vehicle on another matrix (another profile) serves what the first cannot reach", () => {
    const p = base();
    const blocked = p.matrices[0].cost.map((row, i) => row.map((v, j) => (i !== j && (i === 3 || j === 3) ? null : v)));
    p.matrices = [{ cost: blocked, duration: blocked }, p.matrices[0]];
    p.vehicles.push(vehicle({ matrix: 1, start: 6, end: 6 }));
    const solution = solveVrp(p);
    expect(solution.unassigned).toEqual([]);
    expect(solution.routes[1].stops).toContain(3);
  });
});

describe("solveVrp at scale", () => {
  it("is deterministic and keeps every constraint on 120 stops and 6 vehicles", () => {
    const n = 120;
    const p = problem(n, 99, {
      stops: Array.from({ length: n }, (_, i) => stop({ demand: [1 + (i % 4), 5 * (i % 7), 0.1], service: 120 })),
      vehicles: Array.from({ length: 6 }, (_, v) => vehicle({ start: n, end: n, capacity: [45, 400, 5], maxStops: 30, shiftEnd: 8 * 3600 + v })),
    });
    const a = solveVrp(p, { iterations: 40 });
    const b = solveVrp(p, { iterations: 40 });
    expect(a.routes.map((r) => r.stops)).toEqual(b.routes.map((r) => r.stops));
    const served = a.routes.flatMap((r) => r.stops);
    expect(new Set(served).size).toBe(served.length);
    expect(served.length + a.unassigned.length).toBe(n);
    for (const r of a.routes) {
      expect(r.eval.broken).toBeNull();
      expect(r.stops.length).toBeLessThanOrEqual(30);
      expect(r.eval.load[0]).toBeLessThanOrEqual(45);
      expect(r.eval.load[1]).toBeLessThanOrEqual(400);
    }
  });
});
