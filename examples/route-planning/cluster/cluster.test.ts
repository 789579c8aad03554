// The clustering core on straight-line distances (and a hand-made road matrix for unreachable
// stops): each strategy's defining property, capacities on random instances, determinism, and the
// stops that fit nowhere.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  REASONS,
  clusterStops,
  roadMetric,
  straightLineMetric,
  sweepOrder,
  vehicleLowerBound,
  type ClusterProblem,
  type ClusterResult,
  type ClusterStop,
  type GroupSpec,
  type Limit,
  type Strategy,
} from "./index.ts";

/** A seeded generator for the random instances (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface StopInput {
  lat: number;
  lng: number;
  items?: number;
  weight?: number;
  service?: number;
  priority?: number;
  window?: [string, string];
}

const CENTER = { lat: 57.7, lng: 11.97 };

function stopsOf(inputs: StopInput[]): ClusterStop[] {
  return inputs.map((s, i) => ({
    id: `s${i}`,
    lat: s.lat,
    lng: s.lng,
    demand: { items: s.items ?? 0, weight_kg: s.weight ?? 0, volume_m3: 0 },
    serviceSeconds: s.service ?? 0,
    priority: s.priority ?? 0,
    window: s.window ? { start: Date.parse(s.window[0]), end: Date.parse(s.window[1]) } : undefined,
  }));
}

interface ProblemInput {
  stops: StopInput[];
  k?: number;
  vehicles?: Limit[];
  strategy?: Strategy;
  depot?: { lat: number; lng: number };
  balanceWorkload?: boolean;
  /** Per-vehicle starts (with `vehicles`). */
  starts?: { lat: number; lng: number }[];
}

function problemOf(input: ProblemInput): ClusterProblem {
  const stops = stopsOf(input.stops);
  const points: [number, number][] = stops.map((s) => [s.lng, s.lat]);
  const depot = input.depot ? points.push([input.depot.lng, input.depot.lat]) - 1 : undefined;
  const starts = (input.starts ?? []).map((p) => points.push([p.lng, p.lat]) - 1);
  const groups: GroupSpec[] = input.vehicles
    ? input.vehicles.map((limit, i) => ({ id: `v${i}`, vehicleId: `v${i}`, limit, origin: starts[i] ?? depot }))
    : Array.from({ length: input.k ?? 2 }, (_, i) => ({ id: `c${i}`, limit: {}, origin: depot }));
  return {
    stops,
    points,
    metric: straightLineMetric(points),
    groups,
    vehicles: input.vehicles !== undefined,
    depot,
    strategy: input.strategy ?? "balanced",
    balanceWorkload: input.balanceWorkload ?? false,
  };
}

/** n stops scattered within about `spreadMeters` of a point. */
function blob(random: () => number, n: number, at: { lat: number; lng: number }, spreadMeters: number, extra: Partial<StopInput> = {}): StopInput[] {
  return Array.from({ length: n }, () => ({
    lat: at.lat + ((random() - 0.5) * 2 * spreadMeters) / 111_320,
    lng: at.lng + ((random() - 0.5) * 2 * spreadMeters) / (111_320 * Math.cos((at.lat * Math.PI) / 180)),
    ...extra,
  }));
}

function randomStops(random: () => number, n: number): StopInput[] {
  return Array.from({ length: n }, () => ({
    lat: 57.66 + random() * 0.09,
    lng: 11.88 + random() * 0.2,
    items: 1 + Math.floor(random() * 5),
    weight: Math.round(random() * 400) / 10,
    service: 60 + Math.floor(random() * 600),
    priority: Math.floor(random() * 3),
  }));
}

function assignedIds(result: ClusterResult): string[][] {
  return result.clusters.map((c) => c.members.map((s) => `s${s}`));
}

function spread(result: ClusterResult): number {
  const w = result.clusters.map((c) => c.workloadSeconds);
  return Math.max(...w) - Math.min(...w);
}

/** Every stop is in exactly one cluster or in unassigned. */
function expectPartition(problem: ClusterProblem, result: ClusterResult) {
  const seen = [...result.clusters.flatMap((c) => c.members), ...result.unassigned.map((u) => u.stop)].sort((a, b) => a - b);
  expect(seen).toEqual(problem.stops.map((_, i) => i));
}

function expectWithinCapacities(problem: ClusterProblem, result: ClusterResult) {
  for (const c of result.clusters) {
    const limit = c.spec.limit;
    const items = c.members.reduce((sum, s) => sum + problem.stops[s].demand.items, 0);
    const weight = c.members.reduce((sum, s) => sum + problem.stops[s].demand.weight_kg, 0);
    expect(c.load.items).toBe(items);
    expect(c.load.stops).toBe(c.members.length);
    if (limit.items !== undefined) expect(items).toBeLessThanOrEqual(limit.items);
    if (limit.weight_kg !== undefined) expect(weight).toBeLessThanOrEqual(limit.weight_kg + 1e-9);
    if (limit.stops !== undefined) expect(c.members.length).toBeLessThanOrEqual(limit.stops);
  }
}

const STRATEGY_LIST: Strategy[] = ["balanced", "fill_vehicle_first", "min_vehicles", "zone_based", "time_window", "fairness"];

describe("balanced", () => {
  it("finds three separate neighbourhoods as three clusters", () => {
    const random = rng(1);
    const stops = [
      ...blob(random, 5, { lat: 57.72, lng: 11.94 }, 300),
      ...blob(random, 5, { lat: 57.69, lng: 11.98 }, 300),
      ...blob(random, 5, { lat: 57.71, lng: 12.05 }, 300),
    ];
    const result = clusterStops(problemOf({ stops, k: 3 }));
    const groups = assignedIds(result)
      .map((ids) => ids.sort())
      .sort();
    const expected = [0, 5, 10].map((from) => Array.from({ length: 5 }, (_, i) => `s${from + i}`).sort()).sort();
    expect(groups).toEqual(expected);
  });

  it("gives each vehicle the group nearest its own start", () => {
    const random = rng(8);
    const north = { lat: 57.74, lng: 11.97 };
    const south = { lat: 57.67, lng: 11.97 };
    const stops = [...blob(random, 6, north, 800), ...blob(random, 6, south, 800)];
    for (const strategy of ["balanced", "min_vehicles", "fairness"] as const) {
      const result = clusterStops(problemOf({ stops, vehicles: [{ stops: 6 }, { stops: 6 }], starts: [south, north], strategy }));
      const byVehicle = Object.fromEntries(result.clusters.map((c) => [c.spec.id, c.members.sort((a, b) => a - b)]));
      expect(byVehicle).toEqual({ v0: [6, 7, 8, 9, 10, 11], v1: [0, 1, 2, 3, 4, 5] });
    }
  });

  it("caps every cluster at ⌈n/k⌉ stops even when the stops crowd in one place", () => {
    const random = rng(2);
    const stops = [...blob(random, 17, { lat: 57.7, lng: 11.97 }, 200), ...blob(random, 3, { lat: 57.73, lng: 12.04 }, 200)];
    const problem = problemOf({ stops, k: 4 });
    const result = clusterStops(problem);
    expectPartition(problem, result);
    expect(result.unassigned).toEqual([]);
    expect(result.clusters).toHaveLength(4);
    for (const c of result.clusters) expect(c.members.length).toBeLessThanOrEqual(5);
  });
});

describe("capacities", () => {
  it("are never exceeded by any strategy on random instances, and every stop is accounted for", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const random = rng(seed);
      const stops = randomStops(random, 40);
      const vehicles: Limit[] = Array.from({ length: 4 }, () => ({
        items: 15 + Math.floor(random() * 20),
        weight_kg: 100 + Math.floor(random() * 150),
        stops: 8 + Math.floor(random() * 6),
      }));
      for (const strategy of STRATEGY_LIST) {
        for (const balanceWorkload of [false, true]) {
          const problem = problemOf({ stops, vehicles, strategy, balanceWorkload, depot: CENTER });
          const result = clusterStops(problem);
          expectPartition(problem, result);
          expectWithinCapacities(problem, result);
        }
      }
    }
  });

  it("leaves a stop heavier than every vehicle unassigned, naming the dimension, and does not fail", () => {
    const stops: StopInput[] = [
      { lat: 57.7, lng: 11.96, items: 1, weight: 10 },
      { lat: 57.701, lng: 11.961, items: 1, weight: 900 },
      { lat: 57.702, lng: 11.962, items: 1, weight: 10 },
    ];
    const result = clusterStops(problemOf({ stops, vehicles: [{ weight_kg: 500 }, { weight_kg: 300 }] }));
    expect(result.unassigned).toEqual([{ stop: 1, reason: "demand exceeds every vehicle's capacity (weight_kg)" }]);
    expect(result.clusters.flatMap((c) => c.members).sort()).toEqual([0, 2]);
  });

  it("keeps the higher-priority stops when not all fit", () => {
    const stops: StopInput[] = Array.from({ length: 6 }, (_, i) => ({ lat: 57.7 + i * 0.001, lng: 11.97, items: 1, priority: i % 2 === 0 ? 0 : 5 }));
    for (const strategy of ["balanced", "fill_vehicle_first", "min_vehicles", "fairness"] as const) {
      const result = clusterStops(problemOf({ stops, vehicles: [{ items: 2 }, { items: 1 }], strategy }));
      expect(result.unassigned.map((u) => u.stop).sort()).toEqual([0, 2, 4]);
      for (const u of result.unassigned) expect(u.reason).toBe(REASONS.noRoomPriority);
    }
  });
});

describe("fill_vehicle_first", () => {
  it("fills each vehicle until no remaining stop fits before opening the next", () => {
    const random = rng(3);
    const stops = randomStops(random, 30);
    const vehicles: Limit[] = [{ items: 20 }, { items: 25 }, { items: 30 }, { items: 30 }, { items: 30 }];
    const problem = problemOf({ stops, vehicles, strategy: "fill_vehicle_first", depot: CENTER });
    const result = clusterStops(problem);
    expectPartition(problem, result);
    expect(result.unassigned).toEqual([]);
    const used = result.clusters.map((c) => c.spec.id);
    // Vehicles open in order, and a later vehicle only holds stops that no longer fit an earlier one.
    expect(used).toEqual(vehicles.slice(0, used.length).map((_, i) => `v${i}`));
    for (let i = 0; i < result.clusters.length; i++) {
      for (let j = i + 1; j < result.clusters.length; j++) {
        const earlier = result.clusters[i];
        for (const s of result.clusters[j].members) expect(earlier.load.items + problem.stops[s].demand.items).toBeGreaterThan(earlier.spec.limit.items!);
      }
    }
    const total = stops.reduce((sum, s) => sum + (s.items ?? 0), 0);
    expect(result.unusedGroups.length).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(20);
  });

  it("gives equal unit stops 5, 5, 2 to vehicles of 5 items", () => {
    const stops = Array.from({ length: 12 }, (_, i) => ({ lat: 57.7 + (i % 4) * 0.002, lng: 11.95 + Math.floor(i / 4) * 0.003, items: 1 }));
    const result = clusterStops(
      problemOf({ stops, vehicles: [{ items: 5 }, { items: 5 }, { items: 5 }, { items: 5 }], strategy: "fill_vehicle_first", depot: CENTER }),
    );
    expect(result.clusters.map((c) => c.load.items)).toEqual([5, 5, 2]);
    expect(result.unusedGroups.map((g) => g.id)).toEqual(["v3"]);
  });
});

describe("min_vehicles", () => {
  it("uses the fewest vehicles whose capacities can hold the demand", () => {
    for (let seed = 10; seed < 16; seed++) {
      const random = rng(seed);
      const stops = Array.from({ length: 25 }, () => ({ lat: 57.67 + random() * 0.07, lng: 11.9 + random() * 0.15, items: 1 + Math.floor(random() * 3) }));
      const vehicles: Limit[] = [{ items: 12 }, { items: 30 }, { items: 20 }, { items: 15 }, { items: 30 }, { items: 10 }];
      const problem = problemOf({ stops, vehicles, strategy: "min_vehicles" });
      const result = clusterStops(problem);
      expect(result.unassigned).toEqual([]);
      expectWithinCapacities(problem, result);
      const total = stops.reduce((sum, s) => sum + s.items, 0);
      // No set of fewer vehicles has enough capacity in total: the count is minimal.
      const fewer = result.clusters.length - 1;
      const largest = vehicles
        .map((v) => v.items!)
        .sort((a, b) => b - a)
        .slice(0, fewer)
        .reduce((a, b) => a + b, 0);
      expect(largest).toBeLessThan(total);
      expect(result.clusters.length).toBe(vehicleLowerBound({ items: total, weight_kg: 0, volume_m3: 0, stops: stops.length }, problem.groups));
    }
  });

  it("bounds the count dimension by dimension (a valid bound: no fewer vehicles can hold any one dimension)", () => {
    const groups: GroupSpec[] = [
      { id: "a", limit: { items: 100, weight_kg: 10 } },
      { id: "b", limit: { items: 5, weight_kg: 100 } },
      { id: "c", limit: { items: 5, weight_kg: 100 } },
    ];
    expect(vehicleLowerBound({ items: 50, weight_kg: 50, volume_m3: 0, stops: 3 }, groups)).toBe(1);
    expect(vehicleLowerBound({ items: 50, weight_kg: 101, volume_m3: 0, stops: 3 }, groups)).toBe(2);
    expect(vehicleLowerBound({ items: 50, weight_kg: 150, volume_m3: 0, stops: 3 }, groups)).toBe(2);
    expect(vehicleLowerBound({ items: 108, weight_kg: 150, volume_m3: 0, stops: 3 }, groups)).toBe(3);
  });
});

describe("zone_based", () => {
  it("cuts the sweep around the depot into contiguous sectors", () => {
    const random = rng(4);
    const stops = randomStops(random, 36).map((s) => ({ ...s, items: 1 }));
    for (const input of [{ k: 4 }, { vehicles: [{ items: 10 }, { items: 10 }, { items: 10 }, { items: 10 }] }]) {
      const problem = problemOf({ stops, ...input, strategy: "zone_based", depot: CENTER });
      const result = clusterStops(problem);
      expectPartition(problem, result);
      const order = sweepOrder(
        problem,
        problem.stops.map((_, i) => i),
      );
      const groupOf = new Map(result.clusters.flatMap((c, g) => c.members.map((s) => [s, g] as const)));
      const runs = order.map((s) => groupOf.get(s)).filter((g, i, all) => i === 0 || g !== all[i - 1]);
      // Each group appears as one run of the sweep: sectors do not interleave.
      expect(new Set(runs).size).toBe(runs.length);
      expect(result.clusters).toHaveLength(4);
    }
  });

  it("skips a vehicle too small for the sweep instead of leaving the sweep's stops out", () => {
    const stops = Array.from({ length: 12 }, (_, i) => ({ lat: CENTER.lat + 0.01 * Math.cos(i / 2), lng: CENTER.lng + 0.02 * Math.sin(i / 2), items: 1 }));
    const result = clusterStops(problemOf({ stops, vehicles: [{ items: 0 }, { items: 6 }, { items: 6 }], strategy: "zone_based", depot: CENTER }));
    expect(result.unassigned).toEqual([]);
    expect(result.clusters.map((c) => [c.spec.id, c.load.items])).toEqual([
      ["v1", 6],
      ["v2", 6],
    ]);
    expect(result.unusedGroups.map((g) => g.id)).toEqual(["v0"]);
  });

  it("puts the four quadrants around the depot in four sectors", () => {
    const d = 0.01;
    const quadrants = [
      [1, 1],
      [1, -1],
      [-1, -1],
      [-1, 1],
    ];
    const stops = quadrants.flatMap(([y, x]) => [0.5, 0.7, 0.9].map((f) => ({ lat: CENTER.lat + y * d * f, lng: CENTER.lng + x * d * (1.4 - f) })));
    const result = clusterStops(problemOf({ stops, k: 4, strategy: "zone_based", depot: CENTER }));
    const groups = assignedIds(result)
      .map((ids) => ids.sort())
      .sort();
    expect(groups).toEqual([0, 3, 6, 9].map((from) => [0, 1, 2].map((i) => `s${from + i}`).sort()).sort());
  });

  it("keeps sectors contiguous when balancing workload", () => {
    const random = rng(5);
    const stops = randomStops(random, 30).map((s, i) => ({ ...s, service: i < 10 ? 1200 : 60 }));
    const problem = problemOf({ stops, k: 3, strategy: "zone_based", depot: CENTER, balanceWorkload: true });
    const plain = clusterStops({ ...problem, balanceWorkload: false });
    const result = clusterStops(problem);
    const order = sweepOrder(
      problem,
      problem.stops.map((_, i) => i),
    );
    const groupOf = new Map(result.clusters.flatMap((c, g) => c.members.map((s) => [s, g] as const)));
    const runs = order.map((s) => groupOf.get(s)).filter((g, i, all) => i === 0 || g !== all[i - 1]);
    expect(new Set(runs).size).toBe(runs.length);
    expect(spread(result)).toBeLessThanOrEqual(spread(plain));
  });
});

describe("time_window", () => {
  const morning: [string, string] = ["2026-11-26T08:00:00+01:00", "2026-11-26T10:00:00+01:00"];
  const noon: [string, string] = ["2026-11-26T11:30:00+01:00", "2026-11-26T13:00:00+01:00"];
  const afternoon: [string, string] = ["2026-11-26T14:00:00+01:00", "2026-11-26T16:00:00+01:00"];

  it("never mixes morning and afternoon stops, however close they are", () => {
    const random = rng(6);
    // Morning and afternoon stops alternate along the same streets.
    const stops = blob(random, 16, CENTER, 1500).map((s, i) => ({ ...s, window: i % 2 === 0 ? morning : afternoon }));
    const result = clusterStops(problemOf({ stops, k: 2, strategy: "time_window" }));
    expect(result.clusters).toHaveLength(2);
    for (const c of result.clusters) expect(new Set(c.members.map((s) => s % 2)).size).toBe(1);
  });

  it("orders groups in time: no group's windows lie between another's", () => {
    const random = rng(7);
    const windows = [morning, noon, afternoon];
    const stops = blob(random, 30, CENTER, 2000).map((s, i) => ({ ...s, items: 1, window: windows[Math.floor(random() * 3)] ?? windows[i % 3] }));
    for (const input of [{ k: 3 }, { vehicles: [{ items: 12 }, { items: 12 }, { items: 12 }] }]) {
      const problem = problemOf({ stops, ...input, strategy: "time_window" });
      const result = clusterStops(problem);
      expectPartition(problem, result);
      const ranges = result.clusters
        .map((c) => c.members.map((s) => (problem.stops[s].window!.start + problem.stops[s].window!.end) / 2))
        .map((mids) => [Math.min(...mids), Math.max(...mids)])
        .sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i][0]).toBeGreaterThanOrEqual(ranges[i - 1][1]);
    }
  });

  it("puts stops without a window with their nearest windowed neighbours", () => {
    const stops: StopInput[] = [
      { lat: 57.7, lng: 11.95, window: morning },
      { lat: 57.701, lng: 11.95, window: morning },
      { lat: 57.72, lng: 12.03, window: afternoon },
      { lat: 57.721, lng: 12.03, window: afternoon },
      { lat: 57.7205, lng: 12.031 },
    ];
    const result = clusterStops(problemOf({ stops, k: 2, strategy: "time_window" }));
    expect(
      assignedIds(result)
        .find((ids) => ids.includes("s4"))!
        .sort(),
    ).toEqual(["s2", "s3", "s4"]);
  });
});

describe("fairness and balance_workload", () => {
  it("fairness narrows the workload spread that balanced leaves", () => {
    let strictlyBetter = 0;
    for (let seed = 20; seed < 26; seed++) {
      const random = rng(seed);
      // One neighbourhood with long service times, the rest quick drops.
      const stops = [...blob(random, 8, { lat: 57.72, lng: 11.95 }, 600, { service: 1500 }), ...randomStops(random, 24).map((s) => ({ ...s, service: 120 }))];
      const balanced = clusterStops(problemOf({ stops, k: 4, depot: CENTER }));
      const fair = clusterStops(problemOf({ stops, k: 4, depot: CENTER, strategy: "fairness" }));
      expect(spread(fair)).toBeLessThanOrEqual(spread(balanced));
      if (spread(fair) < spread(balanced) - 60) strictlyBetter++;
      expect(fair.clusters.flatMap((c) => c.members)).toHaveLength(stops.length);
    }
    expect(strictlyBetter).toBeGreaterThanOrEqual(4);
  });

  it("balance_workload never widens the spread of a strategy and respects capacities", () => {
    for (const strategy of ["balanced", "fill_vehicle_first", "min_vehicles", "time_window"] as const) {
      const random = rng(30);
      const stops = randomStops(random, 30).map((s, i) => ({
        ...s,
        window: i % 2 ? (["2026-11-26T08:00:00Z", "2026-11-26T12:00:00Z"] as [string, string]) : undefined,
      }));
      const vehicles: Limit[] = [{ items: 40 }, { items: 40 }, { items: 40 }];
      const plain = clusterStops(problemOf({ stops, vehicles, strategy, depot: CENTER }));
      const problem = problemOf({ stops, vehicles, strategy, depot: CENTER, balanceWorkload: true });
      const even = clusterStops(problem);
      expectWithinCapacities(problem, even);
      expect(spread(even)).toBeLessThanOrEqual(spread(plain));
      // It evens out among the groups the strategy opened, never opening more.
      expect(even.clusters.length).toBe(plain.clusters.length);
    }
  });
});

describe("determinism and scale", () => {
  it("answers the same input the same way", () => {
    const random = rng(40);
    const stops = randomStops(random, 120);
    for (const strategy of STRATEGY_LIST) {
      const input = { stops, vehicles: [{ items: 120 }, { items: 100 }, { items: 90 }, { items: 60 }], strategy, depot: CENTER, balanceWorkload: true };
      expect(clusterStops(problemOf(input))).toEqual(clusterStops(problemOf(input)));
    }
  });

  it("partitions 1,000 stops straight-line with every strategy that needs no vehicles (speed: bench/route-cluster.ts)", () => {
    const random = rng(41);
    const stops = randomStops(random, 1000);
    for (const strategy of ["balanced", "zone_based", "time_window"] as const) {
      const problem = problemOf({ stops, k: 10, strategy, depot: CENTER });
      expectPartition(problem, clusterStops(problem));
    }
  });
});

describe("any request", () => {
  const stopArb = fc.record({
    lat: fc.double({ min: 57.65, max: 57.76, noNaN: true }),
    lng: fc.double({ min: 11.86, max: 12.09, noNaN: true }),
    items: fc.integer({ min: 0, max: 8 }),
    weight: fc.double({ min: 0, max: 80, noNaN: true }),
    service: fc.integer({ min: 0, max: 1800 }),
    priority: fc.integer({ min: 0, max: 10 }),
    window: fc.option(
      fc
        .integer({ min: 6, max: 18 })
        .map((h): [string, string] => [`2026-11-26T${String(h).padStart(2, "0")}:00:00Z`, `2026-11-26T${String(h + 2).padStart(2, "0")}:00:00Z`]),
      { nil: undefined },
    ),
  });
  const limitArb = fc.record({
    items: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    weight_kg: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
    stops: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
  });

  it("is placed or unassigned stop by stop, within capacities, the same way twice, and never throws", () => {
    fc.assert(
      fc.property(
        fc.array(stopArb, { minLength: 2, maxLength: 40 }),
        fc.option(fc.array(limitArb, { minLength: 1, maxLength: 6 }), { nil: undefined }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(...STRATEGY_LIST),
        fc.boolean(),
        fc.boolean(),
        (stops, vehicles, k, strategy, balanceWorkload, withDepot) => {
          const needsVehicles = strategy === "fill_vehicle_first" || strategy === "min_vehicles";
          const input = {
            stops,
            vehicles: vehicles ?? (needsVehicles ? [{ items: 10 }] : undefined),
            k: Math.min(k, stops.length),
            strategy,
            balanceWorkload,
            depot: withDepot ? CENTER : undefined,
          };
          const problem = problemOf(input);
          const result = clusterStops(problem);
          expectPartition(problem, result);
          expectWithinCapacities(problem, result);
          for (const c of result.clusters) expect(Number.isFinite(c.workloadSeconds)).toBe(true);
          if (!input.vehicles) {
            // Without capacities every stop is placed; all k groups are used except by time_window (which follows the windows).
            expect(result.unassigned).toEqual([]);
            if (strategy === "time_window") expect(result.clusters.length).toBeLessThanOrEqual(input.k);
            else expect(result.clusters).toHaveLength(input.k);
          }
          expect(clusterStops(problemOf(input))).toEqual(result);
        },
      ),
      { numRuns: 150, seed: 20261126 },
    );
  });
});

describe("unreachable stops on a road matrix", () => {
  it("leaves a stop that cannot be reached both ways out, with the reason, and clusters the rest", () => {
    // Stop 3 is a one-way trap: reachable from the others but no way back.
    const d = [
      [0, 500, 900, 300],
      [500, 0, 600, 400],
      [900, 600, 0, 700],
      [null, null, null, 0],
    ];
    const stops = stopsOf([
      { lat: 57.7, lng: 11.95 },
      { lat: 57.701, lng: 11.951 },
      { lat: 57.702, lng: 11.952 },
      { lat: 57.703, lng: 11.953 },
    ]);
    const problem: ClusterProblem = {
      stops,
      points: stops.map((s) => [s.lng, s.lat]),
      metric: roadMetric(d, d),
      groups: [
        { id: "c0", limit: {} },
        { id: "c1", limit: {} },
      ],
      vehicles: false,
      strategy: "balanced",
      balanceWorkload: false,
    };
    const result = clusterStops(problem);
    expect(result.unassigned).toEqual([{ stop: 3, reason: REASONS.unreachable }]);
    expect(result.clusters.flatMap((c) => c.members).sort()).toEqual([0, 1, 2]);
    expect(result.clusters.every((c) => Number.isFinite(c.workloadSeconds))).toBe(true);
  });
});
