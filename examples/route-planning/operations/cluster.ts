// POST /origin/v1/routes/cluster: groups stops into clusters (`num_clusters`) or vehicle loads
// (`vehicles`) by one of six strategies, on straight-line or road-network distances. The algorithms
// live in ../cluster/ (pure); this file validates, builds the distance basis and shapes the answer.
import { z } from "zod";
import {
  STRATEGIES,
  clusterStops,
  haversineMeters,
  roadMetric,
  straightLineMetric,
  type ClusterProblem,
  type ClusterStop,
  type GroupSpec,
  type Metric,
} from "../cluster/index.ts";
import { OutsideCoverageError, type Profile } from "../engine/index.ts";
import {
  LIMITS,
  RequestError,
  dataNotice,
  defineOperation,
  lngLat,
  noticeSchema,
  pointSchema,
  requestErrorFrom,
  round,
  stopIds,
  stopSchema,
  travelOptions,
  vehicleSchema,
  withFieldNames,
  type OperationContext,
  type Point,
  type Vehicle,
  profileSchema,
} from "./common.ts";

/** Price per call, sats: a clustering costs about what a matrix does (spec 4.1 leaves it to us). */
export const CLUSTER_PRICE_SATS = 5;

/** Vehicles per request: the fleet operation's limit, so a fleet that can be routed can be clustered. */
export const CLUSTER_VEHICLES_LIMIT = LIMITS.fleetVehicles;

/** Without `num_clusters` or `vehicles`: k ≈ √(n/2), the usual rule of thumb for a first clustering. */
export function defaultClusterCount(stops: number): number {
  return Math.max(1, Math.round(Math.sqrt(stops / 2)));
}

const strategySchema = z.enum(STRATEGIES).default("balanced").meta({
  description:
    "How stops are grouped: `balanced` compact groups of even size (capacitated k-medoids); `fill_vehicle_first` fills each vehicle in order before opening the next; `min_vehicles` the fewest vehicles that hold the demand; `zone_based` angular sectors around the depot; `time_window` groups of similar time windows; `fairness` groups of even estimated workload (docs/route-planning-cluster.md)",
});

const roadProfileSchema = profileSchema
  .optional()
  .meta({ description: "Profile of the road distances when `road_aware` (default: the vehicles' type when they all share one, else car)" });

export const clusterRequestSchema = z
  .strictObject({
    stops: z
      .array(stopSchema)
      .min(2)
      .max(LIMITS.clusterStops)
      .meta({ description: `Stops to group, 2 to ${LIMITS.clusterStops} (${LIMITS.roadAwareClusterStops} with \`road_aware\`)` }),
    num_clusters: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.clusterStops)
      .optional()
      .meta({ description: "How many groups, at most the number of stops; excludes `vehicles` (neither: √(stops/2) rounded, at least 1)" }),
    vehicles: z.array(vehicleSchema).min(1).max(CLUSTER_VEHICLES_LIMIT).optional().meta({
      description: "One group per vehicle, within its `capacity` and `max_stops`; excludes `num_clusters`; required by fill_vehicle_first and min_vehicles",
    }),
    strategy: strategySchema,
    balance_workload: z
      .boolean()
      .default(false)
      .meta({ description: "Even out the groups' estimated workload (service plus travel) after the strategy, within capacities and without opening groups" }),
    depot: pointSchema
      .optional()
      .meta({ description: "Where the work starts and ends: the center of zone sectors, the start of fill_vehicle_first, part of every workload estimate" }),
    road_aware: z
      .boolean()
      .default(false)
      .meta({ description: `Group by road-network distance (up to ${LIMITS.roadAwareClusterStops} stops) instead of straight-line distance` }),
    vehicle_type: roadProfileSchema,
  })
  .meta({ description: "Stops to group, and how: `num_clusters` or `vehicles` (never both), a strategy, and the distance basis" });
export type ClusterRequest = z.output<typeof clusterRequestSchema>;

const loadSchema = z
  .object({
    items: z.number().meta({ description: "Sum of the stops' `demand.items`" }),
    weight_kg: z.number().meta({ description: "Sum of the stops' `demand.weight_kg`" }),
    volume_m3: z.number().meta({ description: "Sum of the stops' `demand.volume_m3`" }),
    stops: z.number().int().meta({ description: "Number of stops" }),
  })
  .meta({ description: "The group's load totals" });

const clusterSchema = z
  .object({
    id: z.string().meta({ description: "The vehicle's id, or `cluster-1`, `cluster-2`, … for `num_clusters`" }),
    vehicle_id: z.string().optional().meta({ description: "The vehicle that takes the group (only with `vehicles`)" }),
    stop_ids: z.array(z.string()).meta({ description: "Ids of the group's stops, in request order" }),
    load: loadSchema,
    centroid: pointSchema.meta({ description: "Mean position of the group's stops" }),
    radius_meters: z.number().meta({ description: "Straight-line meters from the centroid to the group's farthest stop" }),
    travel_seconds: z.number().meta({
      description:
        "Estimated travel of one tour through the group (from and back to the vehicle's start or the depot when given): road durations when `road_aware`, else straight-line",
    }),
    workload_seconds: z.number().meta({ description: "`travel_seconds` plus the stops' `service_seconds`" }),
  })
  .meta({ description: "One group" });

export const clusterResponseSchema = z
  .object({
    clusters: z.array(clusterSchema).meta({ description: "The non-empty groups" }),
    unassigned: z
      .array(
        z
          .object({
            id: z.string().meta({ description: "Stop id" }),
            reason: z.string().meta({ description: "Why no group took it: capacity, demand larger than every vehicle, or unreachable by road" }),
          })
          .meta({ description: "A stop left out" }),
      )
      .meta({ description: "Stops no group could take; the request does not fail for them" }),
    unused_vehicle_ids: z.array(z.string()).optional().meta({ description: "Vehicles that got no stop (only with `vehicles`)" }),
    strategy: z.enum(STRATEGIES).meta({ description: "The strategy applied" }),
    distance_basis: z.enum(["road", "straight_line"]).meta({ description: "`road`: network distances of `vehicle_type`; `straight_line`: haversine" }),
    vehicle_type: profileSchema.optional().meta({ description: "The profile of the road distances (only with `road_aware`)" }),
    summary: z
      .object({
        clusters: z.number().int().meta({ description: "Number of groups" }),
        assigned_stops: z.number().int().meta({ description: "Stops in a group" }),
        unassigned_stops: z.number().int().meta({ description: "Stops left out" }),
        max_workload_seconds: z.number().meta({ description: "Largest `workload_seconds` of a group" }),
        min_workload_seconds: z.number().meta({ description: "Smallest `workload_seconds` of a group" }),
      })
      .meta({ description: "Totals over the groups" }),
    ...noticeSchema,
  })
  .meta({ description: "Groups of stops with their loads and centroids, plus the stops left out" });
export type ClusterResponse = z.input<typeof clusterResponseSchema>;

/** The request's mutual exclusions and limits that a schema cannot state, each naming its field. */
function checkRequest(input: ClusterRequest): void {
  if (input.num_clusters !== undefined && input.vehicles !== undefined) {
    throw new RequestError(400, "conflicting_fields", "Give either `num_clusters` or `vehicles`, not both", "num_clusters", {
      fields: ["num_clusters", "vehicles"],
    });
  }
  if (input.num_clusters !== undefined && input.num_clusters > input.stops.length) {
    throw new RequestError(
      400,
      "too_many_clusters",
      `num_clusters (${input.num_clusters}) must not exceed the number of stops (${input.stops.length})`,
      "num_clusters",
    );
  }
  if ((input.strategy === "fill_vehicle_first" || input.strategy === "min_vehicles") && input.vehicles === undefined) {
    throw new RequestError(400, "vehicles_required", `strategy ${input.strategy} assigns stops to vehicles by capacity: give \`vehicles\``, "vehicles");
  }
  if (input.road_aware && input.stops.length > LIMITS.roadAwareClusterStops) {
    throw new RequestError(
      400,
      "too_many_stops_for_road_aware",
      `road_aware clusters up to ${LIMITS.roadAwareClusterStops} stops (got ${input.stops.length}); use road_aware false for larger sets`,
      "road_aware",
      { limit: LIMITS.roadAwareClusterStops, stops: input.stops.length },
    );
  }
  if (input.vehicles) stopIds(input.vehicles, "vehicles");
}

/** Every point of the problem with the request field it came from: stops, then depot, then vehicle starts and ends. */
interface NamedPoint {
  point: [number, number];
  field: string;
}

function collectPoints(input: ClusterRequest): { points: NamedPoint[]; depot?: number; starts: (number | undefined)[]; ends: (number | undefined)[] } {
  const points: NamedPoint[] = input.stops.map((s, i) => ({ point: lngLat(s), field: `stops[${i}]` }));
  const add = (p: Point | undefined, field: string) => (p ? points.push({ point: lngLat(p), field }) - 1 : undefined);
  const depot = add(input.depot, "depot");
  const starts = (input.vehicles ?? []).map((v, i) => add(v.start, `vehicles[${i}].start`));
  const ends = (input.vehicles ?? []).map((v, i) => add(v.end, `vehicles[${i}].end`));
  return { points, depot, starts, ends };
}

/** The profile of the road distances: asked for, else the vehicles' shared type, else car. */
function profileFor(input: ClusterRequest): Profile {
  if (input.vehicle_type) return input.vehicle_type;
  const types = new Set((input.vehicles ?? []).map((v) => v.type));
  return types.size === 1 ? [...types][0] : "car";
}

/**
 * The distance basis. Road: one many-to-many matrix of time-optimal paths gives meters and seconds
 * (a snap error names the request's field: `stops[3]`, `depot`, `vehicles[0].start`). Straight-line: haversine,
 * with the covered area still enforced so both bases accept the same requests.
 */
function buildMetric(input: ClusterRequest, points: NamedPoint[], ctx: OperationContext): Metric {
  const coordinates = points.map((p) => p.point);
  if (!input.road_aware) {
    const [minLng, minLat, maxLng, maxLat] = ctx.engine.bbox;
    for (const { point, field } of points) {
      if (point[0] < minLng || point[0] > maxLng || point[1] < minLat || point[1] > maxLat) throw new OutsideCoverageError(field, point, ctx.engine.bbox);
    }
    return straightLineMetric(coordinates);
  }
  const options = travelOptions({ vehicle_type: profileFor(input), optimize_for: "time" });
  const matrix = withFieldNames(
    (field) => field.replace(/^(?:sources|targets)\[(\d+)\]/, (_, i: string) => points[Number(i)].field),
    () => ctx.engine.matrix(coordinates, coordinates, options),
  );
  return roadMetric(matrix.distances, matrix.durations);
}

function clusterStopsOf(input: ClusterRequest): ClusterStop[] {
  const ids = stopIds(input.stops);
  return input.stops.map((s, i) => ({
    id: ids[i],
    lat: s.lat,
    lng: s.lng,
    demand: { items: s.demand?.items ?? 0, weight_kg: s.demand?.weight_kg ?? 0, volume_m3: s.demand?.volume_m3 ?? 0 },
    serviceSeconds: s.service_seconds,
    priority: s.priority,
    window: s.time_window ? { start: Date.parse(s.time_window.start), end: Date.parse(s.time_window.end) } : undefined,
  }));
}

function vehicleGroup(v: Vehicle, i: number, origin: number | undefined, end: number | undefined): GroupSpec {
  const id = v.id ?? String(i);
  return {
    id,
    vehicleId: id,
    limit: { items: v.capacity?.items, weight_kg: v.capacity?.weight_kg, volume_m3: v.capacity?.volume_m3, stops: v.max_stops },
    origin,
    end,
  };
}

function summarize(clusters: ClusterResponse["clusters"], unassigned: number): ClusterResponse["summary"] {
  const workloads = clusters.map((c) => c.workload_seconds);
  return {
    clusters: clusters.length,
    assigned_stops: clusters.reduce((sum, c) => sum + c.stop_ids.length, 0),
    unassigned_stops: unassigned,
    max_workload_seconds: workloads.length ? Math.max(...workloads) : 0,
    min_workload_seconds: workloads.length ? Math.min(...workloads) : 0,
  };
}

export function runCluster(input: ClusterRequest, ctx: OperationContext): ClusterResponse {
  checkRequest(input);
  const stops = clusterStopsOf(input);
  const { points, depot, starts, ends } = collectPoints(input);
  let metric: Metric;
  try {
    metric = buildMetric(input, points, ctx);
  } catch (err) {
    throw requestErrorFrom(err) ?? err;
  }
  const vehicles = input.vehicles;
  const groups: GroupSpec[] = vehicles
    ? vehicles.map((v, i) => vehicleGroup(v, i, starts[i] ?? depot, ends[i]))
    : Array.from({ length: input.num_clusters ?? defaultClusterCount(input.stops.length) }, (_, i) => ({ id: `cluster-${i + 1}`, limit: {}, origin: depot }));
  const problem: ClusterProblem = {
    stops,
    points: points.map((p) => p.point),
    metric,
    groups,
    vehicles: vehicles !== undefined,
    depot,
    strategy: input.strategy,
    balanceWorkload: input.balance_workload,
  };
  const result = clusterStops(problem);
  const clusters = result.clusters.map((c, i) => {
    const lat = c.members.reduce((sum, s) => sum + stops[s].lat, 0) / c.members.length;
    const lng = c.members.reduce((sum, s) => sum + stops[s].lng, 0) / c.members.length;
    const radius = Math.max(...c.members.map((s) => haversineMeters([lng, lat], [stops[s].lng, stops[s].lat])));
    return {
      id: vehicles ? c.spec.id : `cluster-${i + 1}`,
      ...(c.spec.vehicleId !== undefined ? { vehicle_id: c.spec.vehicleId } : {}),
      stop_ids: c.members.map((s) => stops[s].id),
      load: { items: c.load.items, weight_kg: round(c.load.weight_kg, 3), volume_m3: round(c.load.volume_m3, 3), stops: c.load.stops },
      centroid: { lat: round(lat, 6), lng: round(lng, 6) },
      radius_meters: round(radius, 1),
      travel_seconds: round(c.travelSeconds, 1),
      workload_seconds: round(c.workloadSeconds, 1),
    };
  });
  return {
    clusters,
    unassigned: result.unassigned.map((u) => ({ id: stops[u.stop].id, reason: u.reason })),
    ...(vehicles ? { unused_vehicle_ids: result.unusedGroups.map((g) => g.id) } : {}),
    strategy: input.strategy,
    distance_basis: input.road_aware ? "road" : "straight_line",
    ...(input.road_aware ? { vehicle_type: profileFor(input) } : {}),
    summary: summarize(clusters, result.unassigned.length),
    ...dataNotice(),
  };
}

/**
 * Ten deliveries across central Gothenburg for two delivery cars from a depot at Gullbergsvass. Car
 * distances: the origin prepares the car hierarchy before it listens and runs this example then.
 */
export const clusterExampleRequest: z.input<typeof clusterRequestSchema> = {
  stops: [
    { id: "nordstan", name: "Nordstan", lat: 57.7087, lng: 11.9683, demand: { items: 4, weight_kg: 35 }, service_seconds: 300 },
    { id: "kungsportsplatsen", name: "Kungsportsplatsen", lat: 57.7045, lng: 11.9695, demand: { items: 2, weight_kg: 12 }, service_seconds: 180 },
    { id: "haga", name: "Haga Nygata", lat: 57.699, lng: 11.9555, demand: { items: 3, weight_kg: 20 }, service_seconds: 240 },
    { id: "linne", name: "Linnégatan", lat: 57.6955, lng: 11.952, demand: { items: 1, weight_kg: 8 }, service_seconds: 120 },
    { id: "gotaplatsen", name: "Götaplatsen", lat: 57.697, lng: 11.98, demand: { items: 5, weight_kg: 40 }, service_seconds: 300 },
    { id: "liseberg", name: "Liseberg", lat: 57.6952, lng: 11.992, demand: { items: 2, weight_kg: 15 }, service_seconds: 180 },
    { id: "lindholmen", name: "Lindholmen", lat: 57.707, lng: 11.938, demand: { items: 6, weight_kg: 55 }, service_seconds: 360 },
    { id: "eriksberg", name: "Eriksberg", lat: 57.703, lng: 11.914, demand: { items: 2, weight_kg: 18 }, service_seconds: 180 },
    { id: "backaplan", name: "Backaplan", lat: 57.7195, lng: 11.953, demand: { items: 4, weight_kg: 30 }, service_seconds: 240 },
    { id: "gamlestaden", name: "Gamlestaden", lat: 57.728, lng: 12.005, demand: { items: 3, weight_kg: 25 }, service_seconds: 240 },
  ],
  vehicles: [
    { id: "car-1", type: "car", capacity: { items: 20, weight_kg: 200 }, max_stops: 6 },
    { id: "car-2", type: "car", capacity: { items: 20, weight_kg: 200 }, max_stops: 6 },
  ],
  strategy: "balanced",
  depot: { lat: 57.7146, lng: 11.9866 },
  road_aware: true,
};

export const clusterOperation = defineOperation({
  name: "cluster",
  summary: "Group stops into balanced clusters or vehicle loads",
  description:
    "Groups 2 or more stops into `num_clusters` groups or one group per vehicle (never both), by one of six strategies, on straight-line or (with `road_aware`, up to 50 stops) road-network distances. Capacities and `max_stops` are respected; stops that fit nowhere come back in `unassigned` with the reason. Each group has its stop ids, load totals, centroid and an estimated workload. Map data © OpenStreetMap contributors (ODbL).",
  priceSats: CLUSTER_PRICE_SATS,
  request: clusterRequestSchema,
  response: clusterResponseSchema,
  exampleRequest: clusterExampleRequest,
  run: runCluster,
});
