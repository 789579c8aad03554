// POST /origin/v1/routes/optimize-fleet: assign up to 500 stops to up to 50 vehicles and order each
// route (a VRP) with capacities, stop limits, time windows, shifts and per-vehicle start/end. Stops
// that fit nowhere come back in `unassigned` with a reason; the call never fails for them.
import { z } from "zod";
import type { Profile } from "../engine/index.ts";
import type { Load, SearchProblem, SearchVehicle } from "../optimize/route-search.ts";
import { solveVrp } from "../optimize/vrp.ts";
import {
  LIMITS,
  bboxOf,
  dataNotice,
  defineOperation,
  geometrySchema,
  lngLat,
  noticeSchema,
  optimizeForSchema,
  pointSchema,
  routeGeometry,
  round,
  stopIds,
  stopSchema,
  travelOptions,
  vehicleSchema,
  type OperationContext,
  type Point,
  isoInstantSchema,
  profileSchema,
} from "./common.ts";
import { type FieldPoint, type StopMatrix, renamed, stopMatrix } from "./stop-matrix.ts";
import { isoAt, secondsAfter } from "./stop-schedule.ts";

const optionsSchema = z
  .strictObject({
    optimize_for: optimizeForSchema,
    balance_workload: z.boolean().default(false).meta({ description: "Minimise the longest route's working time first, then the total" }),
    time_windows: z.enum(["strict", "soft"]).default("strict").meta({
      description:
        "strict: a stop is never served after its window's end (it is unassigned with reason time_window instead); soft: late service is allowed, lateness is minimised first and reported per stop",
    }),
    return_to_start: z.boolean().default(true).meta({ description: "Vehicles without an `end` (theirs or the request's) return to their start" }),
    include_geometry: z.boolean().default(false).meta({ description: "Return each route's line (simplified, about 20 m)" }),
    departure: isoInstantSchema.optional().meta({ description: "When vehicles without a shift leave (ISO 8601 with offset; default: now)" }),
  })
  .meta({ description: "How the fleet is planned" });

const request = z
  .strictObject({
    stops: z
      .array(stopSchema)
      .min(1)
      .max(LIMITS.fleetStops)
      .meta({ description: `Stops to serve, 1 to ${LIMITS.fleetStops}` }),
    vehicles: z
      .array(vehicleSchema)
      .min(1)
      .max(LIMITS.fleetVehicles)
      .meta({ description: `Vehicles, 1 to ${LIMITS.fleetVehicles}` }),
    start: pointSchema.optional().meta({ description: "Depot every vehicle without its own `start` leaves from" }),
    end: pointSchema.optional().meta({ description: "Where vehicles without their own `end` finish (default: back at their start)" }),
    options: optionsSchema.default({ optimize_for: "time", balance_workload: false, time_windows: "strict", return_to_start: true, include_geometry: false }),
  })
  .meta({ description: "Stops and vehicles to plan routes for" });

const loadOut = z
  .object({
    items: z.number().meta({ description: "Parcels or units carried" }),
    weight_kg: z.number().meta({ description: "Weight carried, kg" }),
    volume_m3: z.number().meta({ description: "Volume carried, m³" }),
  })
  .meta({ description: "What the route's stops demand in total" });

const routeStopOut = z
  .object({
    id: z.string().meta({ description: "The stop's id" }),
    sequence: z.number().int().meta({ description: "Position on the route, 1 for the first stop" }),
    name: z.string().optional().meta({ description: "Display name, as given" }),
    arrival: z.string().meta({ description: "ISO 8601 instant the vehicle arrives" }),
    departure: z.string().meta({ description: "ISO 8601 instant it leaves (after waiting and service)" }),
    wait_seconds: z.number().meta({ description: "Seconds waited for the time window to open" }),
    late_seconds: z.number().meta({ description: "Seconds past the window's end at arrival (soft windows only; else 0)" }),
    location: z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat] on the road network" }),
  })
  .meta({ description: "A stop on a vehicle's route" });

const routeOut = z
  .object({
    vehicle_id: z.string().meta({ description: "The vehicle's id (given, or its index in the request)" }),
    vehicle_type: profileSchema.meta({ description: "The profile it drives" }),
    stops: z.array(routeStopOut).meta({ description: "Its stops in visiting order (empty: the vehicle is not used)" }),
    distance: z.number().meta({ description: "Meters driven" }),
    duration: z.number().meta({ description: "Seconds driven (no service or waiting)" }),
    total_seconds: z.number().meta({ description: "Working time: from leaving the start to the end of the route, driving, waiting and service" }),
    start_time: z.string().meta({ description: "ISO 8601 instant the vehicle leaves (its shift start, else the departure)" }),
    end_time: z.string().meta({ description: "ISO 8601 instant the route is over" }),
    load: loadOut,
    geometry: geometrySchema.optional().meta({ description: "The route's line, only with options.include_geometry" }),
    bbox: z
      .tuple([z.number(), z.number(), z.number(), z.number()])
      .optional()
      .meta({ description: "[minLng, minLat, maxLng, maxLat] of the line, with the geometry" }),
  })
  .meta({ description: "One vehicle's route" });

const response = z
  .object({
    routes: z.array(routeOut).meta({ description: "One route per vehicle, in the request's order" }),
    unassigned: z
      .array(
        z
          .object({
            id: z.string().meta({ description: "The stop's id" }),
            reason: z.enum(["capacity", "max_stops", "time_window", "shift", "unreachable"]).meta({
              description:
                "Why no vehicle serves it: capacity (no room), max_stops (stop limits full), time_window (its window cannot be met), shift (no vehicle can serve it within its shift), unreachable (no road connects it to any vehicle's route)",
            }),
          })
          .meta({ description: "A stop no vehicle serves" }),
      )
      .meta({ description: "Stops that fit nowhere; lower priorities are left out first" }),
    summary: z
      .object({
        vehicles_used: z.number().int().meta({ description: "Vehicles with at least one stop" }),
        stops_assigned: z.number().int().meta({ description: "Stops on some route" }),
        stops_unassigned: z.number().int().meta({ description: "Stops in `unassigned`" }),
        distance: z.number().meta({ description: "Meters driven, all routes" }),
        duration: z.number().meta({ description: "Seconds driven, all routes" }),
        max_route_duration: z.number().meta({ description: "The longest route's working time, seconds (what balance_workload minimises)" }),
      })
      .meta({ description: "Totals over the fleet" }),
    ...noticeSchema,
  })
  .meta({ description: "Routes per vehicle, unassigned stops and totals" });

export type OptimizeFleetRequest = z.output<typeof request>;
export type OptimizeFleetResponse = z.input<typeof response>;

/** Wall-clock cap of the search: the rounds budget ends first on this machine; the cap is a safety net. */
const TIME_LIMIT_MS = 10_000;

export const optimizeFleetOperation = defineOperation({
  name: "optimize-fleet",
  summary: "Assign stops to vehicles and order each route",
  description:
    "Plans routes for a fleet over real road travel times or distances: capacities (items, weight, volume), per-vehicle stop limits (`max_stops`), time windows (strict or soft), shifts, per-vehicle start and end, return to start, and `balance_workload`. Vehicles of different types drive their own profiles. Stops that fit nowhere come back in `unassigned` with a reason; higher `priority` stops are kept first. Deterministic: the same request gives the same answer.",
  priceSats: 10,
  request,
  response,
  exampleRequest: {
    start: { lat: 57.7066, lng: 11.9686 },
    stops: [
      { id: "jarntorget", lat: 57.6998, lng: 11.9527, demand: { items: 4, weight_kg: 30 }, service_seconds: 180 },
      { id: "gotaplatsen", lat: 57.6973, lng: 11.9797, demand: { items: 2, weight_kg: 12 }, service_seconds: 180 },
      {
        id: "lindholmen",
        lat: 57.7068,
        lng: 11.9382,
        demand: { items: 6, weight_kg: 80 },
        service_seconds: 300,
        time_window: { start: "2026-11-26T09:00:00+01:00", end: "2026-11-26T10:30:00+01:00" },
      },
      { id: "haga", lat: 57.6989, lng: 11.9634, demand: { items: 3, weight_kg: 20 }, service_seconds: 120 },
      { id: "centralen", lat: 57.7089, lng: 11.9733, demand: { items: 5, weight_kg: 40 }, service_seconds: 240 },
      { id: "liseberg", lat: 57.6952, lng: 11.9925, demand: { items: 2, weight_kg: 15 }, service_seconds: 120, priority: 2 },
    ],
    vehicles: [
      { id: "van-1", type: "van", capacity: { items: 12, weight_kg: 800 }, max_stops: 4 },
      { id: "van-2", type: "van", capacity: { items: 12, weight_kg: 800 }, shift: { start: "2026-11-26T08:30:00+01:00", end: "2026-11-26T12:00:00+01:00" } },
    ],
    options: {
      optimize_for: "time",
      balance_workload: true,
      time_windows: "strict",
      return_to_start: true,
      include_geometry: false,
      departure: "2026-11-26T08:30:00+01:00",
    },
  },
  run(input, ctx) {
    const ids = stopIds(input.stops);
    const vehicleIds = stopIds(input.vehicles, "vehicles");
    const departure = input.options.departure ? new Date(input.options.departure) : ctx.now;
    const places = placesOf(input);
    const matrices = matricesOf(input, places.points, ctx);
    const problem: SearchProblem = {
      stops: input.stops.map((s) => ({
        service: s.service_seconds,
        windowStart: s.time_window ? secondsAfter(departure, s.time_window.start) : -Infinity,
        windowEnd: s.time_window ? secondsAfter(departure, s.time_window.end) : Infinity,
        demand: [s.demand?.items ?? 0, s.demand?.weight_kg ?? 0, s.demand?.volume_m3 ?? 0],
        priority: s.priority,
      })),
      vehicles: input.vehicles.map((v, i): SearchVehicle => ({
        matrix: matrices.profiles.indexOf(v.type),
        start: places.start[i],
        end: places.end[i],
        startTime: v.shift ? secondsAfter(departure, v.shift.start) : 0,
        shiftEnd: v.shift ? secondsAfter(departure, v.shift.end) : Infinity,
        capacity: [v.capacity?.items ?? Infinity, v.capacity?.weight_kg ?? Infinity, v.capacity?.volume_m3 ?? Infinity] as Load,
        maxStops: v.max_stops ?? Infinity,
      })),
      matrices: matrices.byProfile.map((m) => ({ cost: m.cost, duration: m.duration })),
      strictWindows: input.options.time_windows === "strict",
      balance: input.options.balance_workload,
    };
    const solution = solveVrp(problem, { timeLimitMs: TIME_LIMIT_MS });

    const routes = solution.routes.map((r) => {
      const vehicle = input.vehicles[r.vehicle];
      const m = matrices.byProfile[problem.vehicles[r.vehicle].matrix];
      const startTime = problem.vehicles[r.vehicle].startTime;
      const nodes = [places.start[r.vehicle], ...r.stops, places.end[r.vehicle]].filter((x): x is number => x !== null);
      const driven = r.stops.length ? legsTotal(m, nodes) : { distance: 0, duration: 0 };
      const load = r.eval.load;
      const geometry =
        input.options.include_geometry && r.stops.length
          ? routeLine(
              input,
              ctx,
              vehicle.type,
              nodes.map((k) => places.points[k]),
            )
          : undefined;
      return {
        vehicle_id: vehicleIds[r.vehicle],
        vehicle_type: vehicle.type,
        stops: r.visits.map((v, k) => ({
          id: ids[v.stop],
          sequence: k + 1,
          name: input.stops[v.stop].name,
          arrival: isoAt(departure, v.arrival),
          departure: isoAt(departure, v.departure),
          wait_seconds: round(v.wait, 1),
          late_seconds: round(v.late, 1),
          location: snappedLocation(m, v.stop, input.stops[v.stop]),
        })),
        distance: round(driven.distance, 1),
        duration: round(driven.duration, 1),
        total_seconds: round(r.eval.duration, 1),
        start_time: isoAt(departure, startTime),
        end_time: isoAt(departure, r.stops.length ? r.eval.finish : startTime),
        load: { items: load[0], weight_kg: round(load[1], 3), volume_m3: round(load[2], 3) },
        geometry: geometry?.line,
        bbox: geometry?.bbox,
      };
    });
    const used = routes.filter((r) => r.stops.length);
    return {
      routes,
      unassigned: solution.unassigned.map((u) => ({ id: ids[u.stop], reason: u.reason })),
      summary: {
        vehicles_used: used.length,
        stops_assigned: used.reduce((t, r) => t + r.stops.length, 0),
        stops_unassigned: solution.unassigned.length,
        distance: round(
          routes.reduce((t, r) => t + r.distance, 0),
          1,
        ),
        duration: round(
          routes.reduce((t, r) => t + r.duration, 0),
          1,
        ),
        max_route_duration: Math.max(0, ...used.map((r) => r.total_seconds)),
      },
      ...dataNotice(),
    };
  },
});

/**
 * The matrix nodes: stops first, then each distinct depot point once. Per vehicle, the node it
 * starts and ends at: its own, else the request's; without an end it returns to its start when
 * return_to_start holds, else its route ends at its last stop. No start at all: it begins at its first stop.
 */
function placesOf(input: OptimizeFleetRequest): { points: FieldPoint[]; start: (number | null)[]; end: (number | null)[] } {
  const points: FieldPoint[] = input.stops.map((s, i) => ({ point: s, field: `stops[${i}]` }));
  const known = new Map<string, number>();
  const node = (p: Point | undefined, field: string): number | null => {
    if (!p) return null;
    const key = `${p.lng},${p.lat}`;
    let k = known.get(key);
    if (k === undefined) known.set(key, (k = points.push({ point: p, field }) - 1));
    return k;
  };
  const start = input.vehicles.map((v, i) => node(v.start ?? input.start, v.start ? `vehicles[${i}].start` : "start"));
  const end = input.vehicles.map((v, i) => {
    const explicit = v.end ?? input.end;
    if (explicit) return node(explicit, v.end ? `vehicles[${i}].end` : "end");
    return input.options.return_to_start ? start[i] : null;
  });
  return { points, start, end };
}

/** One matrix per vehicle type in use; a point a type has no road near is unreachable for it. */
function matricesOf(input: OptimizeFleetRequest, points: FieldPoint[], ctx: OperationContext): { profiles: Profile[]; byProfile: StopMatrix[] } {
  const profiles = [...new Set(input.vehicles.map((v) => v.type))];
  const byProfile = profiles.map((profile) =>
    stopMatrix(ctx.engine, points, travelOptions({ vehicle_type: profile, optimize_for: input.options.optimize_for }), true),
  );
  return { profiles, byProfile };
}

function legsTotal(m: StopMatrix, nodes: number[]): { distance: number; duration: number } {
  let distance = 0,
    duration = 0;
  for (let k = 1; k < nodes.length; k++) {
    distance += m.distance[nodes[k - 1]][nodes[k]] ?? 0;
    duration += m.duration[nodes[k - 1]][nodes[k]] ?? 0;
  }
  return { distance, duration };
}

function snappedLocation(m: StopMatrix, node: number, given: Point): [number, number] {
  const at = m.snapped[node]?.location ?? lngLat(given);
  return [round(at[0], 6), round(at[1], 6)];
}

/** The route's line through its points (only when asked: one engine route per used vehicle). */
function routeLine(
  input: OptimizeFleetRequest,
  ctx: OperationContext,
  type: Profile,
  points: FieldPoint[],
): { line: ReturnType<typeof routeGeometry>; bbox: ReturnType<typeof bboxOf> } | undefined {
  if (points.length < 2) return undefined;
  try {
    const route = ctx.engine.route(
      points.map((p) => lngLat(p.point)),
      travelOptions({ vehicle_type: type, optimize_for: input.options.optimize_for }),
    );
    if (!route) return undefined;
    return { line: routeGeometry(route.coordinates, "simplified"), bbox: bboxOf(route.coordinates) };
  } catch (err) {
    throw renamed(err, points);
  }
}
