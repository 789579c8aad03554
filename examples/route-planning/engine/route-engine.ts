// The routing engine: the road network, one contraction hierarchy per (profile, metric, traffic
// band) built on first use and cached under DATA_DIR, edge snapping, multi-waypoint routes with a
// U-turn cost at via points, many-to-many matrices, and the network reachable within a time or
// distance (bounded Dijkstra on the base graph). No HTTP here (docs/route-planning.md).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  ChQuery,
  type ContractionHierarchy,
  type SearchEndpoint,
  buildContractionHierarchy,
  deserializeHierarchy,
  serializeHierarchy,
} from "./contraction-hierarchy.ts";
import {
  type Adjacency,
  type EdgeCosts,
  type Metric,
  METRICS,
  boundedDijkstra,
  buildAdjacency,
  chInputEdges,
  computeEdgeCosts,
  dijkstra,
  dimensionTaggedWays,
  restrictForVehicle,
} from "./edge-costs.ts";
import { U_TURN_FUEL_ML } from "./fuel.ts";
import { type Profile, type TrafficBand, type VehicleDimensions, PROFILES, TRAFFIC_BANDS, effectiveDimensions, trafficBandAt } from "./profiles.ts";
import { reachableNetwork } from "./reachable-network.ts";
import { type BBox, type RoadNetwork, OSM_ATTRIBUTION, OSM_LICENSE, loadRoadNetwork } from "./road-network.ts";
import { type SnappedPoint, SnapIndex, segmentGeometry } from "./snap.ts";

/**
 * Bump when the contraction code changes what a cached hierarchy holds. Changes of profiles.ts need
 * no bump: a hierarchy file is named by a hash of the edge costs it was contracted from.
 */
export const CH_VERSION = 1;

/** What responses say about `traffic: true`: there is no live feed behind it. */
export const TRAFFIC_NOTE = "No live traffic feed: traffic applies a fixed, documented time-of-day speed profile per road class (Europe/Stockholm hours).";

/** Seconds a U-turn at a via waypoint costs (turning a bigger vehicle takes longer). */
export const U_TURN_SECONDS: Record<Profile, number> = { car: 30, van: 45, truck: 120, bike: 5 };

/** What a U-turn adds to the weight a search minimises: its seconds, its fuel, nothing for distance. */
export function uTurnWeight(profile: Profile, metric: Metric): number {
  return metric === "time" ? U_TURN_SECONDS[profile] : metric === "fuel" ? U_TURN_FUEL_ML[profile] : 0;
}

export interface TravelOptions {
  profile: Profile;
  /** What the path minimises (default time). Distance, duration and fuel are reported either way. */
  optimizeFor?: Metric;
  /** Dimensions beyond the profile's defaults (profiles.ts DEFAULT_DIMENSIONS). */
  vehicle?: VehicleDimensions;
  /** Apply the time-of-day speed profile at `departure` (default now). No live traffic feed exists. */
  traffic?: boolean;
  departure?: Date;
  /**
   * "restricted" forces the exact Dijkstra on the base graph even when the hierarchy applies: the
   * oracle the tests and benchmarks compare the hierarchy with. "auto" (default) picks.
   */
  search?: "auto" | "restricted";
}

/** A piece of one segment the route travels, in travel order. */
export interface RouteEdge {
  segment: number;
  /** OSM way index (network.wayTags / wayIds). */
  way: number;
  /** true when travelling the segment's own direction (first node to last). */
  forward: boolean;
  fromFraction: number;
  toFraction: number;
  distance: number;
  duration: number;
  /** Estimated millilitres (fuel.ts). */
  fuel: number;
}

export interface RouteLeg {
  distance: number;
  duration: number;
  /** Estimated millilitres, U-turns included (fuel.ts; 0 for a bike). */
  fuel: number;
  edges: RouteEdge[];
  /** [lng, lat] vertices from the leg's snapped start to its snapped end. */
  coordinates: [number, number][];
  /** Whether the leg starts with a U-turn at its (via) waypoint. */
  uTurn: boolean;
  /** U-turns the leg makes on its way (charged like the one at a via point). */
  uTurnsOnTheWay: number;
}

export interface Route {
  /** Meters. */
  distance: number;
  /** Seconds, U-turn costs included. */
  duration: number;
  /** Estimated millilitres of fuel, U-turns included (fuel.ts; 0 for a bike). */
  fuel: number;
  /** What was minimised (seconds, meters or millilitres; U-turn costs included for time and fuel). */
  weight: number;
  waypoints: SnappedPoint[];
  legs: RouteLeg[];
  coordinates: [number, number][];
  edges: RouteEdge[];
  /** "hierarchy" (CH) or "restricted" (exact Dijkstra on the base graph filtered for the vehicle). */
  method: "hierarchy" | "restricted";
  trafficBand?: TrafficBand;
}

export interface Matrix {
  /** Meters [from][to]; null when unreachable. */
  distances: (number | null)[][];
  /** What each path minimised [from][to]: seconds (time), meters (distance) or millilitres (fuel); null when unreachable. */
  weights: (number | null)[][];
  /** Seconds [from][to]; null when unreachable. */
  durations: (number | null)[][];
  sources: SnappedPoint[];
  targets: SnappedPoint[];
  method: "hierarchy" | "restricted";
  trafficBand?: TrafficBand;
}

export interface ReachableOptions extends Omit<TravelOptions, "optimizeFor" | "search"> {
  /** What the limits measure (and the search minimises): seconds of travel or meters. */
  metric: "time" | "distance";
  /** Limits, seconds for time and meters for distance, each > 0. */
  limits: number[];
  /** Segment vertices are thinned to one per grid cell this wide (default 20 m; 0 keeps all); nodes and crossing points all stay. */
  gridMeters?: number;
}

export interface ReachableArea {
  /** The limit (seconds or meters) this area is within. */
  limit: number;
  /** Network nodes within the limit. */
  nodes: number;
  /** [lng, lat] points of the network within the limit: nodes, segment vertices, the crossing points. */
  points: [number, number][];
}

export interface Reachability {
  center: SnappedPoint;
  /** One per limit, in the order given. */
  areas: ReachableArea[];
  /** Every node's cost from the center (seconds or meters); Infinity beyond the largest limit. */
  nodeCost: Float64Array;
  trafficBand?: TrafficBand;
}

export interface RouteEngineOptions {
  dataDir: string;
  sourcePath?: string;
  graphVersion?: number;
  /** Hierarchies to prepare now (profile:metric), e.g. every profile's time metric at start. */
  prepare?: { profile: Profile; metric?: Metric }[];
}

interface Hierarchy {
  costs: EdgeCosts;
  query: ChQuery;
  ch: ContractionHierarchy;
  millis: number;
  from: "built" | "cache";
}

interface Plan {
  costs: EdgeCosts;
  /** The metric searched: the request's, except that a bike's fuel is its distance. */
  metric: Metric;
  hierarchy?: Hierarchy;
  trafficBand?: TrafficBand;
  options: TravelOptions;
}

interface Endpoint extends SearchEndpoint {
  /** 0: along the segment's direction, 1: against it. */
  direction: 0 | 1;
}

interface LegCandidate {
  weight: number;
  distance: number;
  /** Seconds, the leg's own U-turns included. */
  duration: number;
  /** Millilitres, the leg's own U-turns included. */
  fuel: number;
  edges: RouteEdge[];
  /** U-turns within the leg (not the one at its start waypoint). */
  uTurns: number;
}

export class RouteEngine {
  readonly network: RoadNetwork;
  readonly bbox: BBox;
  readonly attribution = OSM_ATTRIBUTION;
  /** What the HTTP layer names in a 422 and in its docs: the box, the data's attribution and licence. */
  readonly coverage: { bbox: BBox; attribution: string; license: string };
  /** Preparation figures: how the network was loaded and how long each hierarchy took. */
  readonly stats: {
    networkMillis: number;
    networkFrom: "built" | "cache";
    snapIndexMillis: number;
    hierarchies: Record<string, { millis: number; from: "built" | "cache" }>;
  };
  private readonly cacheKey: string;
  private readonly dataDir: string;
  private readonly snapIndex: SnapIndex;
  private readonly adjacency: Adjacency;
  private readonly hierarchies = new Map<string, Hierarchy>();
  /** Per profile, metric and band: the costs with no vehicle dimensions, the base of every restricted request. */
  private readonly openCosts = new Map<string, EdgeCosts>();
  private readonly dimensionWays: Map<number, number[]>;

  constructor(options: RouteEngineOptions) {
    const loaded = loadRoadNetwork(options);
    this.network = loaded.network;
    this.bbox = loaded.network.bbox;
    this.coverage = { bbox: this.bbox, attribution: OSM_ATTRIBUTION, license: OSM_LICENSE };
    this.cacheKey = loaded.cacheKey;
    this.dataDir = options.dataDir;
    const started = performance.now();
    this.snapIndex = new SnapIndex(this.network);
    this.adjacency = buildAdjacency(this.network);
    this.dimensionWays = dimensionTaggedWays(this.network);
    this.stats = { networkMillis: loaded.millis, networkFrom: loaded.from, snapIndexMillis: performance.now() - started, hierarchies: {} };
    for (const p of options.prepare ?? []) this.hierarchy(p.profile, p.metric ?? "time");
  }

  /** The hierarchy of a profile and metric (free flow, or a traffic band), loaded or built on first use. */
  hierarchy(profile: Profile, metric: Metric, band?: TrafficBand): Hierarchy {
    // Checked at run time too: the key becomes a file name, and callers may pass request JSON through.
    if (!PROFILES.includes(profile)) throw new RangeError(`profile must be one of ${PROFILES.join(", ")}`);
    if (!METRICS.includes(metric)) throw new RangeError(`metric must be one of ${METRICS.join(", ")}`);
    if (band !== undefined && !TRAFFIC_BANDS.some((b) => b.name === band)) throw new RangeError(`unknown traffic band ${JSON.stringify(band)}`);
    const key = `${profile}-${metric}-${band ?? "free"}`;
    const known = this.hierarchies.get(key);
    if (known) return known;
    const started = performance.now();
    const costs = computeEdgeCosts(this.network, { profile, metric, dimensions: effectiveDimensions(profile, undefined), band });
    // The costs' hash in the name: a change of speeds or access rules can never reuse a stale hierarchy.
    const costHash = createHash("sha256")
      .update(new Uint8Array(costs.weight.buffer, costs.weight.byteOffset, costs.weight.byteLength))
      .digest("hex")
      .slice(0, 16);
    const file = path.join(this.dataDir, "route-planning", `ch-${this.cacheKey}-c${CH_VERSION}-${key}-${costHash}.bin`);
    let ch: ContractionHierarchy;
    let from: "built" | "cache" = "cache";
    const cached = existsSync(file) ? deserializeHierarchy(readFileSync(file)) : null;
    // A file for another graph cannot match this name; the node count guards against anything else.
    if (cached && cached.nodeCount === this.network.nodeCount && cached.rank.length === this.network.nodeCount) ch = cached;
    else {
      from = "built";
      ch = buildContractionHierarchy(chInputEdges(this.network, costs));
      mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, serializeHierarchy(ch));
      renameSync(tmp, file);
    }
    const entry: Hierarchy = { costs, ch, query: new ChQuery(ch), millis: performance.now() - started, from };
    this.hierarchies.set(key, entry);
    this.stats.hierarchies[key] = { millis: entry.millis, from };
    return entry;
  }

  /**
   * How a request is answered: the profile's hierarchy when the vehicle opens and closes exactly
   * the ways the profile's default vehicle does, else the exact restricted search on the base graph.
   */
  private plan(options: TravelOptions): Plan {
    const requested = options.optimizeFor ?? "time";
    // A bike burns no fuel: its fuel weight is its distance, so it shares the distance hierarchy.
    const metric: Metric = requested === "fuel" && options.profile === "bike" ? "distance" : requested;
    const trafficBand = options.traffic ? trafficBandAt(options.departure ?? new Date()) : undefined;
    const band = trafficBand && TRAFFIC_BANDS.find((b) => b.name === trafficBand)!;
    // Bands whose factors are all 1 are free flow: they share its hierarchy.
    const hierarchyBand = band && (band.arterial !== 1 || band.urban !== 1) && options.profile !== "bike" ? trafficBand : undefined;
    const hierarchy = this.hierarchy(options.profile, metric, hierarchyBand);
    const restricted = () => this.vehicleCosts(options.profile, metric, hierarchyBand, options.vehicle);
    if (options.search === "restricted") return { costs: restricted(), metric, trafficBand, options };
    if (!options.vehicle || Object.values(options.vehicle).every((v) => v === undefined))
      return { costs: hierarchy.costs, metric, hierarchy, trafficBand, options };
    const costs = restricted();
    const same =
      costs.closedByDimensions.size === hierarchy.costs.closedByDimensions.size &&
      [...costs.closedByDimensions].every((w) => hierarchy.costs.closedByDimensions.has(w));
    return same ? { costs: hierarchy.costs, metric, hierarchy, trafficBand, options } : { costs, metric, trafficBand, options };
  }

  /**
   * A vehicle's edge costs without any hierarchy: the profile's dimension-free costs (cached per
   * profile, metric and band) less the ways its dimensions close.
   */
  private vehicleCosts(profile: Profile, metric: Metric, band: TrafficBand | undefined, vehicle: VehicleDimensions | undefined): EdgeCosts {
    const key = `${profile}-${metric}-${band ?? "free"}`;
    let open = this.openCosts.get(key);
    if (!open) this.openCosts.set(key, (open = computeEdgeCosts(this.network, { profile, metric, dimensions: {}, band })));
    return restrictForVehicle(this.network, open, effectiveDimensions(profile, vehicle), this.dimensionWays);
  }

  /** Snaps a [lng, lat] to the nearest segment the travel options may use (either direction). */
  snap(point: [number, number], options: TravelOptions, field = "point"): SnappedPoint {
    return this.snapWith(point, this.plan(options).costs, field);
  }

  private snapWith(point: [number, number], costs: EdgeCosts, field: string): SnappedPoint {
    return this.snapIndex.snap(point, (s) => costs.weight[2 * s] < Infinity || costs.weight[2 * s + 1] < Infinity, field);
  }

  /** Leaving a snapped point: toward the segment's last node (along) and/or its first (against). */
  private departures(p: SnappedPoint, costs: EdgeCosts): Endpoint[] {
    const out: Endpoint[] = [];
    const f = p.fraction,
      s = p.segment,
      net = this.network;
    if (costs.weight[2 * s] < Infinity)
      out.push({
        node: net.segmentTo[s],
        weight: (1 - f) * costs.weight[2 * s],
        distance: (1 - f) * costs.distance[2 * s],
        duration: (1 - f) * costs.duration[2 * s],
        direction: 0,
      });
    if (costs.weight[2 * s + 1] < Infinity)
      out.push({
        node: net.segmentFrom[s],
        weight: f * costs.weight[2 * s + 1],
        distance: f * costs.distance[2 * s + 1],
        duration: f * costs.duration[2 * s + 1],
        direction: 1,
      });
    return out;
  }

  /** Reaching a snapped point: from the segment's first node (along) and/or its last (against). */
  private arrivals(p: SnappedPoint, costs: EdgeCosts): Endpoint[] {
    const out: Endpoint[] = [];
    const f = p.fraction,
      s = p.segment,
      net = this.network;
    if (costs.weight[2 * s] < Infinity)
      out.push({
        node: net.segmentFrom[s],
        weight: f * costs.weight[2 * s],
        distance: f * costs.distance[2 * s],
        duration: f * costs.duration[2 * s],
        direction: 0,
      });
    if (costs.weight[2 * s + 1] < Infinity)
      out.push({
        node: net.segmentTo[s],
        weight: (1 - f) * costs.weight[2 * s + 1],
        distance: (1 - f) * costs.distance[2 * s + 1],
        duration: (1 - f) * costs.duration[2 * s + 1],
        direction: 1,
      });
    return out;
  }

  private piece(costs: EdgeCosts, s: number, direction: 0 | 1, fromFraction: number, toFraction: number): RouteEdge {
    const share = Math.abs(toFraction - fromFraction);
    return {
      segment: s,
      way: this.network.segmentWay[s],
      forward: direction === 0,
      fromFraction,
      toFraction,
      distance: share * costs.distance[2 * s + direction],
      duration: share * costs.duration[2 * s + direction],
      fuel: share * costs.fuel[2 * s + direction],
    };
  }

  /** Travelling along one segment from a to b without leaving it, when its direction allows. */
  private direct(a: SnappedPoint, b: SnappedPoint, direction: 0 | 1, costs: EdgeCosts): LegCandidate | null {
    if (a.segment !== b.segment) return null;
    const s = a.segment;
    if (!(costs.weight[2 * s + direction] < Infinity)) return null;
    if (direction === 0 ? b.fraction < a.fraction : b.fraction > a.fraction) return null;
    const share = Math.abs(b.fraction - a.fraction);
    return {
      weight: share * costs.weight[2 * s + direction],
      distance: share * costs.distance[2 * s + direction],
      duration: share * costs.duration[2 * s + direction],
      fuel: share * costs.fuel[2 * s + direction],
      edges: [this.piece(costs, s, direction, a.fraction, b.fraction)],
      uTurns: 0,
    };
  }

  /**
   * The cheapest way from departure `dep` of a to arrival `arr` of b, or null. The search is
   * node-based: where its path turns back on a segment (at the first or last node, or where a dead
   * end forces it) the turn is charged like a turn at a via point (uTurnWeight: its seconds for
   * time, its fuel for fuel; its seconds and fuel are reported whatever the metric).
   */
  private leg(
    plan: Plan,
    a: SnappedPoint,
    dep: Endpoint,
    b: SnappedPoint,
    arr: Endpoint,
    found: { weight: number; distance: number; duration: number; baseEdges: number[] } | null,
  ): LegCandidate | null {
    const { costs } = plan;
    let best: LegCandidate | null = dep.direction === arr.direction ? this.direct(a, b, dep.direction, costs) : null;
    if (found) {
      const pieces = [this.piece(costs, a.segment, dep.direction, a.fraction, dep.direction === 0 ? 1 : 0)];
      for (const e of found.baseEdges) pieces.push(this.piece(costs, e >> 1, (e & 1) as 0 | 1, e & 1 ? 1 : 0, e & 1 ? 0 : 1));
      pieces.push(this.piece(costs, b.segment, arr.direction, arr.direction === 0 ? 0 : 1, b.fraction));
      const edges = pieces.filter((x) => x.fromFraction !== x.toFraction);
      let uTurns = 0;
      for (let i = 1; i < edges.length; i++) if (edges[i].segment === edges[i - 1].segment && edges[i].forward !== edges[i - 1].forward) uTurns++;
      const profile = plan.options.profile;
      const weight = found.weight + uTurns * uTurnWeight(profile, plan.metric);
      const fuel = edges.reduce((t, x) => t + x.fuel, 0) + uTurns * U_TURN_FUEL_ML[profile];
      if (!best || weight < best.weight)
        best = { weight, distance: found.distance, duration: found.duration + uTurns * U_TURN_SECONDS[profile], fuel, edges, uTurns };
    }
    return best;
  }

  /**
   * The route through the points in order, or null when some leg is unreachable (a one-way trap,
   * an island). At a via point the route may turn back, paying uTurnWeight; each leg's best
   * departure direction is chosen over all legs at once (Viterbi over arrival directions).
   * Throws the snap errors (OutsideCoverageError, NoRoadNearbyError, InvalidCoordinateError).
   */
  route(points: [number, number][], options: TravelOptions): Route | null {
    if (points.length < 2) throw new RangeError("a route needs at least 2 points");
    const plan = this.plan(options);
    const { costs } = plan;
    const snapped = points.map((p, i) => this.snapWith(p, costs, `waypoints[${i}]`));
    const penalty = U_TURN_SECONDS[options.profile];
    const penaltyWeight = uTurnWeight(options.profile, plan.metric);
    // state: arrival direction at the current waypoint → cost so far and the legs taken.
    type State = { weight: number; legs: { candidate: LegCandidate; uTurn: boolean }[] };
    let states = new Map<number, State>([[-1, { weight: 0, legs: [] }]]);
    for (let i = 0; i + 1 < snapped.length; i++) {
      const next = new Map<number, State>();
      const deps = this.departures(snapped[i], costs);
      const arrs = this.arrivals(snapped[i + 1], costs);
      for (const dep of deps) {
        // One search per departure: the hierarchy per arrival, Dijkstra for both arrivals at once.
        const paths = plan.hierarchy
          ? arrs.map((arr) => plan.hierarchy!.query.shortestPath([dep], [arr]))
          : dijkstra(
              this.network,
              this.adjacency,
              costs,
              [dep],
              arrs.map((arr) => [arr]),
            );
        for (const [k, arr] of arrs.entries()) {
          const candidate = this.leg(plan, snapped[i], dep, snapped[i + 1], arr, paths[k]);
          if (!candidate) continue;
          for (const [arrivedBy, state] of states) {
            const uTurn = arrivedBy >= 0 && arrivedBy !== dep.direction;
            const weight = state.weight + candidate.weight + (uTurn ? penaltyWeight : 0);
            const known = next.get(arr.direction);
            if (!known || weight < known.weight) next.set(arr.direction, { weight, legs: [...state.legs, { candidate, uTurn }] });
          }
        }
      }
      if (!next.size) return null;
      states = next;
    }
    const final = [...states.values()].reduce((a, b) => (b.weight < a.weight ? b : a));
    const legs: RouteLeg[] = final.legs.map(({ candidate, uTurn }, i) => {
      const coordinates: [number, number][] = [];
      for (const e of candidate.edges) {
        const part = segmentGeometry(this.network, e.segment, e.fromFraction, e.toFraction);
        coordinates.push(...(coordinates.length ? part.slice(1) : part));
      }
      if (!coordinates.length) coordinates.push(snapped[i].location, snapped[i + 1].location);
      return {
        distance: candidate.distance,
        duration: candidate.duration + (uTurn ? penalty : 0),
        fuel: candidate.fuel + (uTurn ? U_TURN_FUEL_ML[options.profile] : 0),
        edges: candidate.edges,
        coordinates,
        uTurn,
        uTurnsOnTheWay: candidate.uTurns,
      };
    });
    const coordinates: [number, number][] = [];
    for (const leg of legs) coordinates.push(...(coordinates.length ? leg.coordinates.slice(1) : leg.coordinates));
    return {
      distance: legs.reduce((t, l) => t + l.distance, 0),
      duration: legs.reduce((t, l) => t + l.duration, 0),
      fuel: legs.reduce((t, l) => t + l.fuel, 0),
      weight: final.weight,
      waypoints: snapped,
      legs,
      coordinates,
      edges: legs.flatMap((l) => l.edges),
      method: plan.hierarchy ? "hierarchy" : "restricted",
      trafficBand: plan.trafficBand,
    };
  }

  /**
   * The network reachable from `center` within each limit: one bounded Dijkstra on the base graph
   * (the vehicle's restricted costs: dimensions, one-way, traffic band), leaving the snapped center in
   * each allowed direction with the partial first segment. Node-based like the route search: a
   * U-turn on the way is not charged. Throws the snap errors (field "center").
   */
  reachable(center: [number, number], options: ReachableOptions): Reachability {
    if (options.metric !== "time" && options.metric !== "distance") throw new RangeError("metric must be time or distance");
    if (!options.limits.length || options.limits.some((l) => !(l > 0 && Number.isFinite(l)))) throw new RangeError("limits must be finite and > 0");
    const trafficBand = options.traffic ? trafficBandAt(options.departure ?? new Date()) : undefined;
    const band = trafficBand && TRAFFIC_BANDS.find((b) => b.name === trafficBand)!;
    const costBand = band && (band.arterial !== 1 || band.urban !== 1) && options.profile !== "bike" ? trafficBand : undefined;
    // The default vehicle's costs are those of its hierarchy when that is loaded (no copy to make).
    const loaded = this.hierarchies.get(`${options.profile}-${options.metric}-${costBand ?? "free"}`);
    const defaultVehicle = !options.vehicle || Object.values(options.vehicle).every((v) => v === undefined);
    const costs = loaded && defaultVehicle ? loaded.costs : this.vehicleCosts(options.profile, options.metric, costBand, options.vehicle);
    const snapped = this.snapWith(center, costs, "center");
    const departures = this.departures(snapped, costs);
    const nodeCost = boundedDijkstra(this.network, this.adjacency, costs, departures, Math.max(...options.limits));
    const areas = options.limits.map((limit) => ({
      limit,
      ...reachableNetwork(this.network, this.adjacency, costs, snapped, departures, nodeCost, limit, options.gridMeters ?? 20),
    }));
    return { center: snapped, areas, nodeCost, trafficBand };
  }

  /**
   * Distances and durations [from][to] between snapped points: the bucket many-to-many on the
   * hierarchy, or one Dijkstra per source when the vehicle needs the restricted graph. Pairs on
   * one segment also consider staying on it. Unreachable pairs are null, never an error.
   */
  matrix(sources: [number, number][], targets: [number, number][], options: TravelOptions): Matrix {
    const plan = this.plan(options);
    const { costs } = plan;
    const from = sources.map((p, i) => this.snapWith(p, costs, `sources[${i}]`));
    const to = targets.map((p, i) => this.snapWith(p, costs, `targets[${i}]`));
    const deps = from.map((p) => this.departures(p, costs));
    const arrs = to.map((p) => this.arrivals(p, costs));
    let weight: Float64Array[], distance: Float64Array[], duration: Float64Array[];
    if (plan.hierarchy) ({ weight, distance, duration } = plan.hierarchy.query.manyToMany(deps, arrs));
    else {
      weight = [];
      distance = [];
      duration = [];
      for (const d of deps) {
        const row = dijkstra(this.network, this.adjacency, costs, d, arrs);
        weight.push(Float64Array.from(row, (r) => r?.weight ?? Infinity));
        distance.push(Float64Array.from(row, (r) => r?.distance ?? NaN));
        duration.push(Float64Array.from(row, (r) => r?.duration ?? NaN));
      }
    }
    for (let i = 0; i < from.length; i++) {
      for (let j = 0; j < to.length; j++) {
        if (from[i].segment !== to[j].segment) continue;
        for (const direction of [0, 1] as const) {
          const d = this.direct(from[i], to[j], direction, costs);
          if (d && d.weight < weight[i][j]) {
            weight[i][j] = d.weight;
            distance[i][j] = d.distance;
            duration[i][j] = d.duration;
          }
        }
      }
    }
    const grid = (values: Float64Array[]) => values.map((row, i) => Array.from(row, (v, j) => (weight[i][j] < Infinity ? v : null)));
    return {
      distances: grid(distance),
      durations: grid(duration),
      weights: grid(weight),
      sources: from,
      targets: to,
      method: plan.hierarchy ? "hierarchy" : "restricted",
      trafficBand: plan.trafficBand,
    };
  }
}
