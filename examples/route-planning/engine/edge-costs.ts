// Per-request edge costs on the base graph (directed edge 2s = segment s forward, 2s+1 backward),
// the input of the contraction hierarchies, and plain Dijkstra on the base graph: the exact search
// for vehicles whose dimensions change which ways are open, and the tests' oracle.
import FlatQueue from "flatqueue";
import type { BaseEdges, SearchEndpoint } from "./contraction-hierarchy.ts";
import { fuelMillilitres } from "./fuel.ts";
import { type Profile, type TrafficBand, type VehicleDimensions, trafficFactor, vehicleFits, wayAccess } from "./profiles.ts";
import type { RoadNetwork } from "./road-network.ts";

/**
 * What a search minimises: seconds, meters, or estimated fuel in millilitres (fuel.ts). A bike
 * burns none: its fuel weight is its distance (rider effort on flat ground grows with distance).
 */
export type Metric = "time" | "distance" | "fuel";
export const METRICS: readonly Metric[] = ["time", "distance", "fuel"];

export interface CostOptions {
  profile: Profile;
  metric: Metric;
  /** Effective dimensions (profile defaults merged with the request's). */
  dimensions: VehicleDimensions;
  /** Time-of-day band when `traffic` is on; free flow otherwise. */
  band?: TrafficBand;
}

/** Costs of every directed edge; Infinity where the profile (or vehicle) may not go. */
export interface EdgeCosts {
  weight: Float64Array;
  distance: Float64Array;
  duration: Float64Array;
  /** Estimated millilitres of fuel at the edge's (traffic-adjusted) speed; 0 for a bike. */
  fuel: Float64Array;
  /** Ways (by index) this vehicle's dimensions close although the profile would use them. */
  closedByDimensions: Set<number>;
}

export function computeEdgeCosts(network: RoadNetwork, options: CostOptions): EdgeCosts {
  const edges = network.segmentCount * 2;
  const weight = new Float64Array(edges).fill(Infinity);
  const distance = new Float64Array(edges).fill(Infinity);
  const duration = new Float64Array(edges).fill(Infinity);
  const fuel = new Float64Array(edges).fill(Infinity);
  const closedByDimensions = new Set<number>();
  const wayOpen = network.wayTags.map((tags, w) => {
    const access = wayAccess(options.profile, tags);
    if (!access.forward && !access.backward) return access;
    if (!vehicleFits(tags, options.dimensions)) {
      closedByDimensions.add(w);
      return { forward: false, backward: false, speedKmh: 0 };
    }
    const factor = options.band ? trafficFactor(options.band, options.profile, tags.highway) : 1;
    return { ...access, speedKmh: access.speedKmh * factor };
  });
  for (let s = 0; s < network.segmentCount; s++) {
    const access = wayOpen[network.segmentWay[s]];
    const meters = network.segmentLength[s];
    const seconds = meters / (access.speedKmh / 3.6);
    const ml = fuelMillilitres(options.profile, meters, access.speedKmh);
    const w = options.metric === "time" ? seconds : options.metric === "fuel" && options.profile !== "bike" ? ml : meters;
    for (const [open, e] of [
      [access.forward, 2 * s],
      [access.backward, 2 * s + 1],
    ] as const) {
      if (!open) continue;
      weight[e] = w;
      distance[e] = meters;
      duration[e] = seconds;
      fuel[e] = ml;
    }
  }
  return { weight, distance, duration, fuel, closedByDimensions };
}

/** Tags vehicleFits reads: only ways carrying one can close for a vehicle's dimensions. */
const DIMENSION_TAGS = [
  "maxheight",
  "maxheight:physical",
  "maxwidth",
  "maxlength",
  "maxweight",
  "maxaxleload",
  "hazmat",
  "hazmat:water",
  "hazmat:B",
  "hazmat:C",
  "hazmat:D",
  "hazmat:E",
];

/** Ways a vehicle's dimensions can close, each with its segments (a few dozen in the Gothenburg export). */
export function dimensionTaggedWays(network: RoadNetwork): Map<number, number[]> {
  const ways = new Map<number, number[]>();
  network.wayTags.forEach((tags, w) => {
    if (DIMENSION_TAGS.some((k) => tags[k] !== undefined)) ways.set(w, []);
  });
  for (let s = 0; s < network.segmentCount; s++) ways.get(network.segmentWay[s])?.push(s);
  return ways;
}

/**
 * The costs for one vehicle from the profile's costs with no dimensions: the same, less the ways it
 * does not fit. Equal to computeEdgeCosts with those dimensions, in a fraction of its time.
 */
export function restrictForVehicle(network: RoadNetwork, open: EdgeCosts, dimensions: VehicleDimensions, dimensionWays: Map<number, number[]>): EdgeCosts {
  const weight = open.weight.slice();
  const distance = open.distance.slice();
  const duration = open.duration.slice();
  const fuel = open.fuel.slice();
  const closedByDimensions = new Set<number>();
  for (const [w, segments] of dimensionWays) {
    if (!segments.some((s) => open.weight[2 * s] < Infinity || open.weight[2 * s + 1] < Infinity)) continue;
    if (vehicleFits(network.wayTags[w], dimensions)) continue;
    closedByDimensions.add(w);
    for (const s of segments) for (const e of [2 * s, 2 * s + 1]) weight[e] = distance[e] = duration[e] = fuel[e] = Infinity;
  }
  return { weight, distance, duration, fuel, closedByDimensions };
}

export const edgeTail = (network: RoadNetwork, e: number) => (e & 1 ? network.segmentTo[e >> 1] : network.segmentFrom[e >> 1]);
export const edgeHead = (network: RoadNetwork, e: number) => (e & 1 ? network.segmentFrom[e >> 1] : network.segmentTo[e >> 1]);

/** The usable directed edges, parallel ones reduced to the cheapest, as a hierarchy's input. */
export function chInputEdges(network: RoadNetwork, costs: EdgeCosts): BaseEdges {
  const best = new Map<number, number>();
  const n = network.nodeCount;
  for (let e = 0; e < costs.weight.length; e++) {
    if (costs.weight[e] === Infinity) continue;
    const u = edgeTail(network, e);
    const v = edgeHead(network, e);
    if (u === v) continue;
    const key = u * n + v;
    const seen = best.get(key);
    if (seen === undefined || costs.weight[e] < costs.weight[seen]) best.set(key, e);
  }
  const ids = [...best.values()].sort((a, b) => a - b);
  return {
    nodeCount: n,
    from: Int32Array.from(ids, (e) => edgeTail(network, e)),
    to: Int32Array.from(ids, (e) => edgeHead(network, e)),
    weight: Float64Array.from(ids, (e) => costs.weight[e]),
    distance: Float64Array.from(ids, (e) => costs.distance[e]),
    duration: Float64Array.from(ids, (e) => costs.duration[e]),
    baseEdge: Int32Array.from(ids),
  };
}

/** Every node's outgoing directed edges (both directions of each segment; costs decide usability). */
export interface Adjacency {
  start: Int32Array;
  edge: Int32Array;
}

export function buildAdjacency(network: RoadNetwork): Adjacency {
  const n = network.nodeCount;
  const start = new Int32Array(n + 1);
  for (let s = 0; s < network.segmentCount; s++) {
    start[network.segmentFrom[s] + 1]++;
    start[network.segmentTo[s] + 1]++;
  }
  for (let i = 0; i < n; i++) start[i + 1] += start[i];
  const fill = start.slice(0, n);
  const edge = new Int32Array(start[n]);
  for (let s = 0; s < network.segmentCount; s++) {
    edge[fill[network.segmentFrom[s]]++] = 2 * s;
    edge[fill[network.segmentTo[s]]++] = 2 * s + 1;
  }
  return { start, edge };
}

export interface DijkstraResult {
  weight: number;
  distance: number;
  duration: number;
  source: number;
  target: number;
  baseEdges: number[];
}

/**
 * Plain Dijkstra on the base graph from the source endpoints until every target group is settled
 * (or the graph is exhausted): one result per target group, null when unreachable.
 */
export function dijkstra(
  network: RoadNetwork,
  adjacency: Adjacency,
  costs: EdgeCosts,
  sources: SearchEndpoint[],
  targetGroups: SearchEndpoint[][],
): (DijkstraResult | null)[] {
  const n = network.nodeCount;
  const weight = new Float64Array(n).fill(Infinity);
  const distance = new Float64Array(n);
  const duration = new Float64Array(n);
  const parent = new Int32Array(n).fill(-1);
  const origin = new Int32Array(n);
  const settled = new Uint8Array(n);
  const heap = new FlatQueue<number>();
  sources.forEach((p, i) => {
    if (!(p.weight < weight[p.node])) return;
    weight[p.node] = p.weight;
    distance[p.node] = p.distance;
    duration[p.node] = p.duration;
    origin[p.node] = i;
    heap.push(p.node, p.weight);
  });
  // A group is done once the heap's minimum passes its best candidate through any settled target node.
  const best = targetGroups.map(() => Infinity);
  const bestAt = targetGroups.map(() => -1);
  const bestTarget = targetGroups.map(() => -1);
  const byNode = new Map<number, [number, number][]>();
  targetGroups.forEach((group, g) => group.forEach((t, k) => byNode.set(t.node, [...(byNode.get(t.node) ?? []), [g, k]])));
  let open = targetGroups.length;
  const done = new Uint8Array(targetGroups.length);
  while (heap.length && open > 0) {
    const d = heap.peekValue()!;
    const u = heap.pop()!;
    if (settled[u] || d > weight[u]) continue;
    settled[u] = 1;
    for (let g = 0; g < targetGroups.length; g++)
      if (!done[g] && best[g] <= d) {
        done[g] = 1;
        open--;
      }
    for (const [g, k] of byNode.get(u) ?? []) {
      const total = d + targetGroups[g][k].weight;
      if (total < best[g]) {
        best[g] = total;
        bestAt[g] = u;
        bestTarget[g] = k;
      }
    }
    for (let i = adjacency.start[u]; i < adjacency.start[u + 1]; i++) {
      const e = adjacency.edge[i];
      const w = costs.weight[e];
      if (w === Infinity) continue;
      const v = edgeHead(network, e);
      const nd = d + w;
      if (nd < weight[v]) {
        weight[v] = nd;
        distance[v] = distance[u] + costs.distance[e];
        duration[v] = duration[u] + costs.duration[e];
        parent[v] = e;
        origin[v] = origin[u];
        heap.push(v, nd);
      }
    }
  }
  return targetGroups.map((group, g) => {
    if (bestAt[g] < 0) return null;
    const node = bestAt[g];
    const t = group[bestTarget[g]];
    const baseEdges: number[] = [];
    for (let v = node; parent[v] >= 0; v = edgeTail(network, parent[v])) baseEdges.push(parent[v]);
    baseEdges.reverse();
    return {
      weight: best[g],
      distance: distance[node] + t.distance,
      duration: duration[node] + t.duration,
      source: origin[node],
      target: bestTarget[g],
      baseEdges,
    };
  });
}

/**
 * One-to-all Dijkstra on the base graph from the source endpoints, stopping past `limit`: each
 * node's cost from the nearest source, Infinity for the nodes beyond the limit or unreachable.
 */
export function boundedDijkstra(network: RoadNetwork, adjacency: Adjacency, costs: EdgeCosts, sources: SearchEndpoint[], limit: number): Float64Array {
  const n = network.nodeCount;
  const tentative = new Float64Array(n).fill(Infinity);
  const settled = new Float64Array(n).fill(Infinity);
  const heap = new FlatQueue<number>();
  for (const p of sources)
    if (p.weight < tentative[p.node]) {
      tentative[p.node] = p.weight;
      heap.push(p.node, p.weight);
    }
  while (heap.length) {
    const d = heap.peekValue()!;
    const u = heap.pop()!;
    if (d > limit) break;
    if (settled[u] < Infinity || d > tentative[u]) continue;
    settled[u] = d;
    for (let i = adjacency.start[u]; i < adjacency.start[u + 1]; i++) {
      const e = adjacency.edge[i];
      const w = costs.weight[e];
      if (w === Infinity) continue;
      const v = edgeHead(network, e);
      const nd = d + w;
      if (nd < tentative[v] && nd <= limit) {
        tentative[v] = nd;
        heap.push(v, nd);
      }
    }
  }
  return settled;
}
