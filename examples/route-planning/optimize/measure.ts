// Measures the optimizers: the gap of one default run against the best of many longer restarts on
// random instances, and the operations' wall time on the Gothenburg network. Not a test (it takes
// minutes): `npx tsx examples/route-planning/optimize/measure.ts` (SKIP_OPERATIONS=1 or SKIP_GAPS=1
// for one half); figures go to
// docs/route-planning-optimization.md.
import { optimizeFleetOperation } from "../operations/optimize-fleet.ts";
import { optimizeOperation } from "../operations/optimize.ts";
import { testContext } from "../operations/test-engine.ts";
import type { Point } from "../operations/common.ts";
import { randomMatrix } from "./random-instances.ts";
import { type SearchProblem, defaultIterations } from "./route-search.ts";
import { solveTsp } from "./tsp.ts";
import { solveVrp } from "./vrp.ts";

const RESTARTS = Number(process.env.RESTARTS ?? 10);
const LONGER = Number(process.env.LONGER ?? 5);

function percent(value: number, best: number): string {
  return `${((100 * (value - best)) / best).toFixed(2)} %`;
}

function measureTsp(n: number, seed: number, asymmetry: number): void {
  const { cost } = randomMatrix(n + 1, seed, asymmetry);
  const problem = { cost, stops: n, start: n };
  const started = performance.now();
  const first = solveTsp(problem, { timeLimitMs: 1e9 });
  const millis = performance.now() - started;
  let best = first.cost;
  const iterations = LONGER * first.iterations;
  for (let s = 2; s <= RESTARTS + 1; s++) best = Math.min(best, solveTsp(problem, { seed: s, iterations, work: Infinity, timeLimitMs: 1e9 }).cost);
  console.log(
    `TSP n=${n} asym=${asymmetry} seed=${seed}: default ${first.cost.toFixed(0)} in ${millis.toFixed(0)} ms, best of ${RESTARTS}×${iterations} rounds ${best.toFixed(0)}, gap ${percent(first.cost, best)}`,
  );
}

function vrpProblem(n: number, vehicles: number, seed: number): SearchProblem {
  const { cost } = randomMatrix(n + 1, seed, 0.2);
  return {
    stops: Array.from({ length: n }, (_, i) => ({ service: 120, windowStart: -Infinity, windowEnd: Infinity, demand: [1 + (i % 3), 0, 0], priority: 0 })),
    vehicles: Array.from({ length: vehicles }, () => ({
      matrix: 0,
      start: n,
      end: n,
      startTime: 0,
      shiftEnd: Infinity,
      capacity: [Math.ceil((2.2 * n) / vehicles), Infinity, Infinity],
      maxStops: Infinity,
    })),
    matrices: [{ cost, duration: cost }],
    strictWindows: true,
    balance: false,
  };
}

function measureVrp(n: number, vehicles: number, seed: number): void {
  const problem = vrpProblem(n, vehicles, seed);
  const total = (s: ReturnType<typeof solveVrp>) => s.routes.reduce((t, r) => t + r.eval.cost, 0);
  const started = performance.now();
  const first = solveVrp(problem, { timeLimitMs: 1e9 });
  const millis = performance.now() - started;
  let best = total(first);
  const iterations = LONGER * defaultIterations(problem);
  for (let s = 2; s <= RESTARTS + 1; s++) best = Math.min(best, total(solveVrp(problem, { seed: s, iterations, work: Infinity, timeLimitMs: 1e9 })));
  console.log(
    `VRP n=${n} vehicles=${vehicles} seed=${seed}: default ${total(first).toFixed(0)} in ${millis.toFixed(0)} ms (${first.iterations} rounds, ended on ${first.stoppedBy}, ${first.unassigned.length} unassigned), best of ${RESTARTS}×${iterations} rounds ${best.toFixed(0)}, gap ${percent(total(first), best)}`,
  );
}

/** Grid points in central Gothenburg that the van reaches from Brunnsparken and back. */
function reachablePoints(count: number): Point[] {
  const ctx = testContext();
  const from = { lat: 57.7066, lng: 11.9686 };
  const points: Point[] = [];
  for (let lat = 57.688; lat < 57.725; lat += 0.0021) for (let lng = 11.93; lng < 12.0; lng += 0.0041) points.push({ lat, lng });
  const coords = [from, ...points].map((p) => [p.lng, p.lat] as [number, number]);
  const m = ctx.engine.matrix(coords, coords, { profile: "van" });
  return points.filter((_, i) => m.durations[0][i + 1] !== null && m.durations[i + 1][0] !== null).slice(0, count);
}

function timeOperations(): void {
  const ctx = testContext();
  const start = { lat: 57.7066, lng: 11.9686 };
  const points = reachablePoints(200);
  for (const n of [50, 100]) {
    const body = optimizeOperation.request.parse({ start, stops: points.slice(0, n).map((p, i) => ({ id: `s${i}`, ...p, service_seconds: 120 })) });
    const runs = [1, 2, 3].map(() => {
      const t = performance.now();
      optimizeOperation.run(body, ctx);
      return performance.now() - t;
    });
    console.log(`optimize ${n} stops: ${runs.map((r) => r.toFixed(0)).join(", ")} ms`);
  }
  for (const balance of [false, true]) {
    const body = optimizeFleetOperation.request.parse({
      start,
      stops: points.map((p, i) => ({ id: `s${i}`, ...p, service_seconds: 120, demand: { items: 1 + (i % 3) } })),
      vehicles: Array.from({ length: 10 }, (_, i) => ({ id: `v${i}`, capacity: { items: 50 } })),
      options: { balance_workload: balance },
    });
    const runs = [1, 2].map(() => {
      const t = performance.now();
      optimizeFleetOperation.run(body, ctx);
      return performance.now() - t;
    });
    console.log(`optimize-fleet 200 stops / 10 vehicles, balance ${balance}: ${runs.map((r) => r.toFixed(0)).join(", ")} ms`);
  }
}

if (!process.env.SKIP_OPERATIONS) timeOperations();
if (!process.env.SKIP_GAPS) {
  for (const n of [50, 100]) for (const seed of [1, 2, 3]) measureTsp(n, seed, seed === 3 ? 0.3 : 0);
  for (const [n, v] of [
    [100, 5],
    [200, 10],
  ])
    for (const seed of [1, 2]) measureVrp(n, v, seed);
}
