// The two distance bases of /cluster: straight-line (haversine, with a documented travel-time
// estimate) and road (a network matrix, where null means unreachable). Both become a Metric over
// point indices, so every strategy runs unchanged on either.
import type { Metric } from "./model.ts";
import { haversineMeters as engineHaversine } from "../engine/road-network.ts";

/** Mean Earth radius, meters (the engine measures its segments with the same one). */

/**
 * Straight-line travel estimate: a delivery van in central Gothenburg covers about 25 km/h of
 * straight-line progress once detours (1.3 × the crow-fly distance) and town speeds are counted.
 */
export const STRAIGHT_LINE_DETOUR_FACTOR = 1.3;
export const STRAIGHT_LINE_SPEED_MPS = 25 / 3.6;

/** Great-circle meters between two [lng, lat] (the engine's haversine, mean Earth radius). */
export function haversineMeters(a: [number, number], b: [number, number]): number {
  return engineHaversine(a[0], a[1], b[0], b[1]);
}

/** A dense metric over `size` points; the grid is filled once, queries are array reads. */
class DenseMetric implements Metric {
  constructor(
    readonly size: number,
    private readonly meterGrid: Float64Array,
    private readonly secondGrid: Float64Array,
  ) {}

  meters(i: number, j: number): number {
    return this.meterGrid[i * this.size + j];
  }

  seconds(i: number, j: number): number {
    return this.secondGrid[i * this.size + j];
  }
}

/** Haversine meters between [lng, lat] points; seconds from the straight-line estimate above (derived, not stored: 1,000 stops need one 8 MB grid, not two). */
export function straightLineMetric(points: [number, number][]): Metric {
  const n = points.length;
  const meters = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) meters[i * n + j] = meters[j * n + i] = haversineMeters(points[i], points[j]);
  }
  const secondsPerMeter = STRAIGHT_LINE_DETOUR_FACTOR / STRAIGHT_LINE_SPEED_MPS;
  return {
    size: n,
    meters: (i, j) => meters[i * n + j],
    seconds: (i, j) => meters[i * n + j] * secondsPerMeter,
  };
}

/**
 * A road metric from a network matrix [from][to] (null: unreachable). Grouping needs one distance
 * per pair, and one-way streets make the two directions differ: their mean is the round trip's
 * half. A pair unreachable in either direction is Infinity apart.
 */
export function roadMetric(distances: (number | null)[][], durations: (number | null)[][]): Metric {
  const n = distances.length;
  const meters = new Float64Array(n * n);
  const seconds = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const there = distances[i][j];
      const back = distances[j][i];
      meters[i * n + j] = there === null || back === null ? Infinity : (there + back) / 2;
      seconds[i * n + j] = durations[i][j] ?? Infinity;
    }
  }
  return new DenseMetric(n, meters, seconds);
}

/**
 * Groups of points that can reach each other both ways. Road distances obey the triangle
 * inequality, so "reachable both ways" is an equivalence: union-find over the finite pairs.
 * Returns each point's component label (the smallest point index in it).
 */
export function mutualComponents(metric: Metric): number[] {
  const parent = Array.from({ length: metric.size }, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (let i = 0; i < metric.size; i++) {
    for (let j = i + 1; j < metric.size; j++) {
      if (metric.meters(i, j) === Infinity) continue;
      const a = find(i);
      const b = find(j);
      if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
    }
  }
  return parent.map((_, i) => find(i));
}
