// The clustering problem as the algorithms see it: stops with demand, service time, priority and
// time window; groups (one per cluster or per vehicle) with their limits; and a metric over point
// indices. No engine, no HTTP: the /cluster operation builds a problem and formats the answer.

/** What a stop takes from a group's capacity. */
export interface Demand {
  items: number;
  weight_kg: number;
  volume_m3: number;
}

/** A group's totals: the demand of its stops and how many stops it holds. */
export interface Load extends Demand {
  stops: number;
}

/** A group's limits; an absent dimension is unlimited. */
export type Limit = Partial<Load>;

/** The dimensions a Limit can bound, in the order reasons name them. */
export const LOAD_DIMENSIONS = ["items", "weight_kg", "volume_m3", "stops"] as const;
export type LoadDimension = (typeof LOAD_DIMENSIONS)[number];

export interface ClusterStop {
  id: string;
  lat: number;
  lng: number;
  demand: Demand;
  serviceSeconds: number;
  /** 0..10: higher is kept first when not every stop fits. */
  priority: number;
  /** Epoch milliseconds. */
  window?: { start: number; end: number };
}

/** One cluster to fill: a vehicle (with its limits and start) or one of `num_clusters` groups. */
export interface GroupSpec {
  id: string;
  vehicleId?: string;
  limit: Limit;
  /** Point index where the group's work starts and ends (the vehicle's start, else the depot). */
  origin?: number;
  /** Point index where it ends when not back at its origin. */
  end?: number;
}

/**
 * Distances between points: stops are points 0..n-1, the depot and vehicle starts follow. `meters`
 * is symmetric (what grouping compares); `seconds` is directed (what a tour costs). Infinity means
 * unreachable.
 */
export interface Metric {
  readonly size: number;
  meters(i: number, j: number): number;
  seconds(i: number, j: number): number;
}

export const STRATEGIES = ["balanced", "fill_vehicle_first", "min_vehicles", "zone_based", "time_window", "fairness"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export interface ClusterProblem {
  stops: ClusterStop[];
  /** [lng, lat] of every point of the metric (stops first). */
  points: [number, number][];
  metric: Metric;
  groups: GroupSpec[];
  /** Whether the groups are vehicles (capacities bind) rather than `num_clusters` groups. */
  vehicles: boolean;
  depot?: number;
  strategy: Strategy;
  balanceWorkload: boolean;
}

export interface Cluster {
  spec: GroupSpec;
  /** Stop indices. */
  members: number[];
  load: Load;
  /** Estimated seconds of work: service plus the travel of a tour through the stops. */
  workloadSeconds: number;
  travelSeconds: number;
}

export interface Unplaced {
  stop: number;
  reason: string;
}

export interface ClusterResult {
  clusters: Cluster[];
  unassigned: Unplaced[];
  /** Vehicles the strategy did not need (fill_vehicle_first, min_vehicles) or could not use. */
  unusedGroups: GroupSpec[];
}

export const emptyLoad = (): Load => ({ items: 0, weight_kg: 0, volume_m3: 0, stops: 0 });

export function addStop(load: Load, demand: Demand, sign: 1 | -1 = 1): void {
  load.items += sign * demand.items;
  load.weight_kg += sign * demand.weight_kg;
  load.volume_m3 += sign * demand.volume_m3;
  load.stops += sign;
}

/** The first dimension a load exceeds, or null when it is within the limit. */
function exceeded(load: Load, limit: Limit): LoadDimension | null {
  for (const d of LOAD_DIMENSIONS) {
    const cap = limit[d];
    // A tiny tolerance: weights and volumes are decimals and sums of them drift.
    if (cap !== undefined && load[d] > cap + 1e-9) return d;
  }
  return null;
}

export const within = (load: Load, limit: Limit): boolean => exceeded(load, limit) === null;

/** The first dimension the load plus the demand would exceed, or null when the stop fits. */
export function overflow(load: Load, demand: Demand, limit: Limit): LoadDimension | null {
  return exceeded(
    { items: load.items + demand.items, weight_kg: load.weight_kg + demand.weight_kg, volume_m3: load.volume_m3 + demand.volume_m3, stops: load.stops + 1 },
    limit,
  );
}

export const fits = (load: Load, demand: Demand, limit: Limit): boolean => overflow(load, demand, limit) === null;

/** The tighter of two limits, dimension by dimension. */
export function tighter(a: Limit, b: Limit): Limit {
  const out: Limit = {};
  for (const d of LOAD_DIMENSIONS) {
    const values = [a[d], b[d]].filter((v): v is number => v !== undefined);
    if (values.length) out[d] = Math.min(...values);
  }
  return out;
}
