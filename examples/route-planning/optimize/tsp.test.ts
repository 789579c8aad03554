import { describe, expect, it } from "vitest";
import { heldKarp, permutations } from "./exact.ts";
import { randomMatrix } from "./random-instances.ts";
import { evaluateRoute } from "./route-search.ts";
import { solveTsp } from "./tsp.ts";

type Variant = { name: string; start?: number; end?: number };
const variants = (n: number): Variant[] => [
  { name: "closed tour from a start", start: n },
  { name: "open path start to end", start: n, end: n + 1 },
  { name: "open path to an end", end: n + 1 },
  { name: "open path, free ends" },
];

describe("solveTsp against Held-Karp", () => {
  for (const asymmetry of [0, 0.4]) {
    for (const n of [4, 7, 9, 12]) {
      for (const variant of variants(n)) {
        it(`${n} stops, ${variant.name}, ${asymmetry ? "asymmetric" : "symmetric"}: heuristic = optimum`, () => {
          for (const seed of [1, 2, 3]) {
            const { cost } = randomMatrix(n + 2, seed * 100 + n, asymmetry);
            const optimum = heldKarp(cost, n, variant.start, variant.end);
            const solution = solveTsp({ cost, stops: n, start: variant.start, end: variant.end });
            expect(solution.complete).toBe(true);
            expect([...solution.order].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
            expect(solution.cost).toBeCloseTo(optimum, 6);
          }
        });
      }
    }
  }
});

describe("solveTsp with time windows", () => {
  it("meets windows that force an order against the cheapest tour, waiting when early", () => {
    const { cost } = randomMatrix(7, 42);
    // Windows in reverse of the index order, spaced so each is reachable only in that order.
    const windows: [number, number][] = [...Array(6).keys()].map((i) => [(5 - i) * 2000, (5 - i) * 2000 + 1500]);
    const solution = solveTsp({ cost, stops: 6, start: 6, windows, service: Array(6).fill(60) });
    expect(solution.lateness).toBe(0);
    expect(solution.order).toEqual([5, 4, 3, 2, 1, 0]);
    for (const v of solution.visits) {
      expect(v.begin).toBeGreaterThanOrEqual(windows[v.stop][0]);
      expect(v.arrival).toBeLessThanOrEqual(windows[v.stop][1]);
      expect(v.wait).toBeCloseTo(v.begin - v.arrival, 9);
      expect(v.departure).toBeCloseTo(v.begin + 60, 9);
    }
  });

  it("minimises lateness before cost, equal to the exhaustive optimum, and reports each late stop", () => {
    for (const seed of [1, 2, 3, 4]) {
      const n = 7;
      const { cost } = randomMatrix(n + 1, seed);
      // Tight, partly impossible windows: some lateness is unavoidable.
      const windows: [number, number][] = [...Array(n).keys()].map((i) => [0, 200 + ((i * 397 + seed * 131) % 900)]);
      const problem = { cost, stops: n, start: n, windows, service: Array(n).fill(120) };
      const solution = solveTsp(problem);
      let best = [Infinity, Infinity];
      for (const order of permutations([...Array(n).keys()])) {
        const search = {
          stops: windows.map((w) => ({ service: 120, windowStart: w[0], windowEnd: w[1], demand: [0, 0, 0] as [number, number, number], priority: 0 })),
          vehicles: [
            {
              matrix: 0,
              start: n,
              end: n,
              startTime: 0,
              shiftEnd: Infinity,
              capacity: [Infinity, Infinity, Infinity] as [number, number, number],
              maxStops: Infinity,
            },
          ],
          matrices: [{ cost, duration: cost }],
          strictWindows: false,
          balance: false,
        };
        const { eval: e } = evaluateRoute(search, 0, order);
        if (e.lateness < best[0] - 1e-9 || (Math.abs(e.lateness - best[0]) <= 1e-9 && e.cost < best[1])) best = [e.lateness, e.cost];
      }
      expect(solution.lateness).toBeGreaterThan(0);
      expect(solution.lateness).toBeCloseTo(best[0], 6);
      expect(solution.cost).toBeCloseTo(best[1], 6);
      const late = solution.visits.filter((v) => v.late > 0);
      expect(late.length).toBeGreaterThan(0);
      for (const v of late) expect(v.arrival - windows[v.stop][1]).toBeCloseTo(v.late, 9);
    }
  });
});

describe("solveTsp edge cases", () => {
  it("is deterministic: the same input gives the same order", () => {
    const { cost } = randomMatrix(41, 7, 0.3);
    const a = solveTsp({ cost, stops: 40, start: 40 });
    const b = solveTsp({ cost, stops: 40, start: 40 });
    expect(a.order).toEqual(b.order);
    expect(a.cost).toBe(b.cost);
  });

  it("marks a stop nothing reaches as unreached instead of inventing a cost", () => {
    const { cost } = randomMatrix(6, 3);
    const matrix: (number | null)[][] = cost.map((row, i) => row.map((v, j) => (i !== j && (i === 2 || j === 2) ? null : v)));
    const solution = solveTsp({ cost: matrix, stops: 5, start: 5 });
    expect(solution.complete).toBe(false);
    expect(solution.unreached).toEqual([2]);
  });

  it("routes through a one-way trap when the trap can be the last stop of an open path", () => {
    const { cost } = randomMatrix(6, 5);
    // Stop 3 can be entered but never left: only an open path ending there visits everything.
    const matrix: (number | null)[][] = cost.map((row, i) => row.map((v, j) => (i === 3 && j !== 3 ? null : v)));
    const open = solveTsp({ cost: matrix, stops: 5 });
    expect(open.complete).toBe(true);
    expect(open.order[open.order.length - 1]).toBe(3);
    expect(open.cost).toBeCloseTo(heldKarp(matrix, 5), 6);
  });
});
