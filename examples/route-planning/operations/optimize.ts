// POST /origin/v1/routes/optimize: one vehicle, the best order to visit 2-100 stops (a TSP) with
// optional time windows and service times. The engine's matrix feeds the solver (../optimize/),
// then one route through the ordered stops gives the geometry, distance, duration and arrivals.
import { z } from "zod";
import type { Route } from "../engine/index.ts";
import { solveTsp } from "../optimize/tsp.ts";
import {
  LIMITS,
  RequestError,
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
  snappedOut,
  stopIds,
  stopSchema,
  travelOptions,
  vehicleTypeSchema,
  type Stop,
  isoInstantSchema,
  profileSchema,
} from "./common.ts";
import { type FieldPoint, renamed, stopMatrix } from "./stop-matrix.ts";
import { isoAt, secondsAfter } from "./stop-schedule.ts";

const isoInstant = isoInstantSchema;

const request = z
  .strictObject({
    stops: z
      .array(stopSchema)
      .min(2)
      .max(LIMITS.optimizeStops)
      .meta({ description: `Stops to visit, 2 to ${LIMITS.optimizeStops}, in any order` }),
    start: pointSchema.optional().meta({ description: "Where the vehicle starts. Without `end` the tour returns here" }),
    end: pointSchema.optional().meta({ description: "Where the route must end (an open route). Neither start nor end: the route starts and ends at stops" }),
    optimize_for: optimizeForSchema,
    vehicle_type: vehicleTypeSchema,
    departure: isoInstant.optional().meta({ description: "When the vehicle leaves (ISO 8601 with offset; default: now). Arrival times count from it" }),
    geometry: z
      .enum(["full", "simplified", "none"])
      .default("simplified")
      .meta({ description: "Route line: every vertex, about 20 m Douglas-Peucker, or omitted" }),
  })
  .meta({ description: "Stops to sequence for one vehicle, with optional start, end and time windows" });

const timeWindowOut = z
  .object({
    start: z.string().meta({ description: "ISO 8601 instant: earliest service start" }),
    end: z.string().meta({ description: "ISO 8601 instant: latest arrival" }),
  })
  .meta({ description: "The stop's time window, as given" });

const stopOut = z
  .object({
    id: z.string().meta({ description: "The stop's id (given, or its index in the request)" }),
    sequence: z.number().int().meta({ description: "Visiting position, 1 for the first stop" }),
    lat: z.number().meta({ description: "Latitude as given" }),
    lng: z.number().meta({ description: "Longitude as given" }),
    name: z.string().optional().meta({ description: "Display name, as given" }),
    address: z.string().optional().meta({ description: "Address, as given" }),
    time_window: timeWindowOut.optional(),
    service_seconds: z.number().meta({ description: "Seconds spent at the stop, as given (default 0)" }),
    arrival: z.string().meta({ description: "ISO 8601 instant the vehicle arrives" }),
    departure: z.string().meta({ description: "ISO 8601 instant it leaves (after waiting and service)" }),
    wait_seconds: z.number().meta({ description: "Seconds waited for the time window to open" }),
    late_seconds: z.number().meta({ description: "Seconds the arrival is past the window's end (0 when met)" }),
    location: z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat] where the stop was placed on the road network" }),
    snap_distance: z.number().meta({ description: "Meters from the given point to the road" }),
  })
  .meta({ description: "A stop in visiting order, with its schedule" });

const endpointOut = z
  .object({
    location: z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat] on the road network" }),
    snap_distance: z.number().meta({ description: "Meters from the given point to the road" }),
    time: z.string().meta({ description: "ISO 8601 instant: leaving the start, or arriving at the end" }),
  })
  .meta({ description: "The route's start or end point" });

const response = z
  .object({
    stops: z.array(stopOut).meta({ description: "The request's stops, re-sequenced into the visiting order" }),
    distance: z.number().meta({ description: "Meters driven, start to end" }),
    duration: z.number().meta({ description: "Seconds driven (U-turn costs included; no service or waiting)" }),
    total_seconds: z.number().meta({ description: "Seconds from departure to the end of the route: driving, waiting and service" }),
    service_seconds: z.number().meta({ description: "Seconds of service at all stops" }),
    wait_seconds: z.number().meta({ description: "Seconds waited for time windows, all stops" }),
    departure: z.string().meta({ description: "ISO 8601 instant the route begins" }),
    finish: z.string().meta({ description: "ISO 8601 instant the route is over (at the end, back at the start, or leaving the last stop)" }),
    round_trip: z.boolean().meta({ description: "Whether the route returns to its start (a start without an end)" }),
    start: endpointOut.optional(),
    end: endpointOut.optional(),
    unmet_time_windows: z
      .array(
        z
          .object({
            id: z.string().meta({ description: "The stop's id" }),
            late_seconds: z.number().meta({ description: "Seconds the arrival is past the window's end" }),
          })
          .meta({ description: "A time window no order could meet" }),
      )
      .meta({ description: "Stops whose windows are missed: lateness is minimised before distance or time, never hidden" }),
    geometry: geometrySchema.optional(),
    bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).meta({ description: "[minLng, minLat, maxLng, maxLat] of the route" }),
    optimize_for: z.enum(["time", "distance", "fuel"]).meta({ description: "What the order minimises" }),
    vehicle_type: profileSchema.meta({ description: "The profile driven" }),
    ...noticeSchema,
  })
  .meta({ description: "The stops in their best visiting order, with the route through them" });

export type OptimizeRequest = z.output<typeof request>;
export type OptimizeResponse = z.input<typeof response>;

/** The search budget of one request: deterministic rounds, and a wall-clock cap as a safety net. */
const TIME_LIMIT_MS = 5000;

export const optimizeOperation = defineOperation({
  name: "optimize",
  summary: "Best visiting order of stops for one vehicle",
  description:
    "Solves the travelling-salesman problem over real road travel times or distances: with a `start` and no `end` the tour returns to the start; with an `end` the route is open and ends there; with neither it starts and ends at the stops it chooses. Time windows (`time_window`) and service durations (`service_seconds`) are honoured: early arrivals wait, late ones are reported in `unmet_time_windows` (lateness is minimised before time or distance). Deterministic: the same request gives the same answer.",
  priceSats: 10,
  request,
  response,
  exampleRequest: {
    start: { lat: 57.7066, lng: 11.9686 },
    stops: [
      { id: "jarntorget", name: "Järntorget", lat: 57.6998, lng: 11.9527, service_seconds: 300 },
      { id: "gotaplatsen", name: "Götaplatsen", lat: 57.6973, lng: 11.9797, service_seconds: 300 },
      {
        id: "lindholmen",
        name: "Lindholmen",
        lat: 57.7068,
        lng: 11.9382,
        service_seconds: 600,
        time_window: { start: "2026-11-26T10:30:00+01:00", end: "2026-11-26T11:30:00+01:00" },
      },
      { id: "haga", name: "Haga", lat: 57.6989, lng: 11.9634, service_seconds: 300 },
      { id: "centralen", name: "Centralstationen", lat: 57.7089, lng: 11.9733, service_seconds: 300 },
    ],
    optimize_for: "time",
    vehicle_type: "van",
    departure: "2026-11-26T10:00:00+01:00",
    geometry: "simplified",
  },
  run(input, ctx) {
    const ids = stopIds(input.stops);
    const departure = input.departure ? new Date(input.departure) : ctx.now;
    const options = travelOptions({ vehicle_type: input.vehicle_type, optimize_for: input.optimize_for, departure });
    const n = input.stops.length;
    const points: FieldPoint[] = input.stops.map((s, i) => ({ point: s, field: `stops[${i}]` }));
    const startNode = input.start ? points.push({ point: input.start, field: "start" }) - 1 : undefined;
    const endNode = input.end ? points.push({ point: input.end, field: "end" }) - 1 : undefined;
    const matrix = stopMatrix(ctx.engine, points, options);
    refuseCutOffStops(matrix.cost, n, ids, startNode, endNode ?? startNode);

    const solution = solveTsp(
      {
        cost: matrix.cost,
        duration: matrix.duration,
        stops: n,
        start: startNode,
        end: endNode,
        service: input.stops.map((s) => s.service_seconds),
        windows: input.stops.map((s) => (s.time_window ? [secondsAfter(departure, s.time_window.start), secondsAfter(departure, s.time_window.end)] : null)),
      },
      { timeLimitMs: TIME_LIMIT_MS },
    );
    if (!solution.complete) throw noOrder(ids, solution.unreached);

    const visiting: FieldPoint[] = [
      ...(startNode !== undefined ? [points[startNode]] : []),
      ...solution.order.map((i) => points[i]),
      ...(endNode !== undefined ? [points[endNode]] : startNode !== undefined ? [points[startNode]] : []),
    ];
    let route: Route | null;
    try {
      route = ctx.engine.route(
        visiting.map((p) => lngLat(p.point)),
        options,
      );
    } catch (err) {
      throw renamed(err, visiting);
    }
    if (!route) throw noOrder(ids, []);
    return answer(input, ids, solution.order, route, departure, startNode !== undefined);
  },
});

/**
 * A stop no order can include is named in a 422 before any search: one nothing reaches, one that
 * reaches nothing (unless it can be the last stop), or one cut off from the start or the end.
 */
function refuseCutOffStops(cost: (number | null)[][], n: number, ids: string[], start?: number, end?: number): void {
  for (let i = 0; i < n; i++) {
    const others = [...Array(n).keys()].filter((j) => j !== i);
    const reached = start !== undefined ? cost[start][i] !== null : others.some((j) => cost[j][i] !== null);
    const leaves = end !== undefined ? cost[i][end] !== null : true;
    if (!reached || !leaves) {
      const what = !reached
        ? start !== undefined
          ? "cannot be reached from `start`"
          : "cannot be reached from any other stop"
        : "cannot reach the route's end";
      throw new RequestError(422, "unreachable_stop", `stops[${i}] ("${ids[i]}") ${what} on the road network (one-way streets or an island)`, `stops[${i}]`, {
        id: ids[i],
      });
    }
  }
}

function noOrder(ids: string[], unreached: number[]): RequestError {
  const named = unreached.map((i) => `stops[${i}] ("${ids[i]}")`).join(", ");
  return new RequestError(
    422,
    "no_route",
    unreached.length
      ? `no visiting order reaches ${named}: one-way streets or an island cut them off`
      : "no route visits every stop in order (one-way streets or an island)",
    unreached.length ? `stops[${unreached[0]}]` : "stops",
    { ids: unreached.map((i) => ids[i]) },
  );
}

/** The answer: the schedule walks the route's legs (the durations the client sees), not the matrix. */
function answer(input: OptimizeRequest, ids: string[], order: number[], route: Route, departure: Date, hasStart: boolean): OptimizeResponse {
  const offset = hasStart ? 1 : 0;
  let t = 0;
  let serviceTotal = 0,
    waitTotal = 0;
  const stops = order.map((i, k) => {
    const stop = input.stops[i];
    // Without a start the route begins at its first stop: that stop is reached at departure.
    if (k > 0 || hasStart) t += route.legs[k - 1 + offset].duration;
    const arrival = t;
    const open = stop.time_window ? secondsAfter(departure, stop.time_window.start) : -Infinity;
    const close = stop.time_window ? secondsAfter(departure, stop.time_window.end) : Infinity;
    const begin = Math.max(arrival, open);
    t = begin + stop.service_seconds;
    serviceTotal += stop.service_seconds;
    waitTotal += begin - arrival;
    return {
      ...echo(stop),
      id: ids[i],
      sequence: k + 1,
      arrival: isoAt(departure, arrival),
      departure: isoAt(departure, t),
      wait_seconds: round(begin - arrival, 1),
      late_seconds: round(Math.max(0, arrival - close), 1),
      ...snappedOut(route.waypoints[k + offset]),
    };
  });
  // The leg after the last stop: back to the start (round trip) or on to the end.
  if (hasStart || input.end) t += route.legs[route.legs.length - 1].duration;
  const geometry = routeGeometry(route.coordinates, input.geometry);
  const endWaypoint = route.waypoints[route.waypoints.length - 1];
  return {
    stops,
    distance: round(route.distance, 1),
    duration: round(route.duration, 1),
    total_seconds: round(t, 1),
    service_seconds: round(serviceTotal, 1),
    wait_seconds: round(waitTotal, 1),
    departure: isoAt(departure, 0),
    finish: isoAt(departure, t),
    round_trip: hasStart && !input.end,
    start: hasStart ? { ...snappedOut(route.waypoints[0]), time: isoAt(departure, 0) } : undefined,
    end: input.end || hasStart ? { ...snappedOut(endWaypoint), time: isoAt(departure, t) } : undefined,
    unmet_time_windows: stops.filter((s) => s.late_seconds > 0).map((s) => ({ id: s.id, late_seconds: s.late_seconds })),
    geometry,
    bbox: bboxOf(route.coordinates),
    optimize_for: input.optimize_for,
    vehicle_type: input.vehicle_type,
    ...dataNotice(),
  };
}

/** The stop's own fields as the client sent them (defaults filled in by the schema). */
function echo(stop: Stop): Pick<Stop, "lat" | "lng" | "name" | "address" | "time_window" | "service_seconds"> & { lat: number; lng: number } {
  const { lat, lng, name, address, time_window, service_seconds } = stop;
  return { lat, lng, name, address, time_window, service_seconds };
}
