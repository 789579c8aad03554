// What every route-planning operation shares: the request vocabulary of spec 2.1 (points, stops,
// vehicles, enums) as zod schemas, the error an operation throws for a bad request, the travel
// options handed to the engine, and the geometry helpers. An operation is a pure function of the
// engine and its validated input: the HTTP layer (../origin.ts) parses, calls it and writes JSON.
import simplify from "simplify-js";
import { z } from "zod";
import {
  InvalidCoordinateError,
  NoRoadNearbyError,
  OSM_ATTRIBUTION,
  OSM_LICENSE,
  OutsideCoverageError,
  PROFILES,
  type Profile,
  type RouteEngine,
  type TravelOptions,
} from "../engine/index.ts";
import { localProjection } from "../engine/road-network.ts";

/** A request the operation refuses: the status, a stable code, a message and the field it names. */
export class RequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 413 | 422,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "RequestError";
  }
}

/**
 * The engine's snap errors as request errors: outside the covered area and no road nearby are 422
 * (the request is well formed, the place is not served), a bad coordinate is 400.
 */
export function requestErrorFrom(err: unknown): RequestError | null {
  if (err instanceof RequestError) return err;
  if (err instanceof OutsideCoverageError) return new RequestError(422, err.code, err.message, err.field, { coverage_bbox: err.bbox, point: err.point });
  if (err instanceof NoRoadNearbyError)
    return new RequestError(422, err.code, err.message, err.field, { point: err.point, max_snap_meters: err.maxSnapMeters });
  if (err instanceof InvalidCoordinateError) return new RequestError(400, err.code, err.message, err.field);
  return null;
}

/**
 * Runs `fn`, naming the request's field in a snap error when the engine named its own argument
 * (the matrix's `sources[3]` is the request's `points[3]`).
 */
export function withFieldNames<T>(rename: (engineField: string) => string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    const known = requestErrorFrom(err);
    if (!known?.field) throw err;
    const field = rename(known.field);
    throw new RequestError(known.status, known.code, known.message.replace(known.field, field), field, known.details);
  }
}

/** Limits of one request (spec 8 leaves them to us; docs/route-planning.md lists them). */
export const LIMITS = {
  waypoints: 25,
  matrixPoints: 100,
  optimizeStops: 100,
  fleetStops: 500,
  fleetVehicles: 50,
  clusterStops: 1000,
  roadAwareClusterStops: 50,
  reachableMinutes: 120,
  reachableMeters: 100_000,
  reachableBuckets: 10,
} as const;

export const pointSchema = z
  .strictObject({
    lat: z.number().min(-90).max(90).meta({ description: "Latitude, degrees (WGS 84)", example: 57.7089 }),
    lng: z.number().min(-180).max(180).meta({ description: "Longitude, degrees (WGS 84)", example: 11.9746 }),
  })
  .meta({ description: "A point: `lat` and `lng` in degrees" });
export type Point = z.output<typeof pointSchema>;

/** [lng, lat], the order of GeoJSON and of the engine. */
export function lngLat(p: Point): [number, number] {
  return [p.lng, p.lat];
}

/** A routing profile: car, van, truck or bike (the engine's PROFILES). */
export const profileSchema = z.enum(PROFILES);

export const vehicleTypeSchema = profileSchema
  .default("car")
  .meta({ description: "Profile: which ways, speeds and restrictions apply (trucks follow heavy-vehicle restrictions)" });

export const optimizeForSchema = z
  .enum(["time", "distance", "fuel"])
  .default("time")
  .meta({ description: "What the route minimises: travel time, distance, or estimated fuel" });

export const matrixOptimizeForSchema = z.enum(["time", "distance"]).default("time").meta({ description: "What each pair's path minimises" });

export const vehicleDimensionsSchema = z
  .strictObject({
    weight_kg: z.number().positive().max(100_000).optional().meta({ description: "Gross weight, kg (maxweight)" }),
    height_meters: z.number().positive().max(10).optional().meta({ description: "Height, m (maxheight)" }),
    width_meters: z.number().positive().max(5).optional().meta({ description: "Width, m (maxwidth)" }),
    length_meters: z.number().positive().max(30).optional().meta({ description: "Length, m (maxlength)" }),
    axle_load_kg: z.number().positive().max(30_000).optional().meta({ description: "Heaviest axle load, kg (maxaxleload)" }),
    hazardous_goods: z.boolean().optional().meta({ description: "Carries hazardous goods (hazmat)" }),
  })
  .meta({ description: "Vehicle dimensions; each field replaces the profile's default (docs/route-planning.md)" });

export const demandSchema = z
  .strictObject({
    items: z.number().int().min(0).max(1_000_000).default(0).meta({ description: "Parcels or units" }),
    weight_kg: z.number().min(0).max(1_000_000).default(0).meta({ description: "Weight, kg" }),
    volume_m3: z.number().min(0).max(10_000).default(0).meta({ description: "Volume, m³" }),
  })
  .meta({ description: "What a stop takes from (or adds to) a vehicle's load" });
export type Demand = z.output<typeof demandSchema>;

export const capacitySchema = z
  .strictObject({
    items: z.number().int().min(0).max(1_000_000).optional().meta({ description: "Parcels or units the vehicle holds (absent: no limit)" }),
    weight_kg: z.number().min(0).max(1_000_000).optional().meta({ description: "Payload, kg (absent: no limit)" }),
    volume_m3: z.number().min(0).max(10_000).optional().meta({ description: "Cargo volume, m³ (absent: no limit)" }),
  })
  .meta({ description: "A vehicle's capacity; an absent dimension is unlimited" });
export type Capacity = z.output<typeof capacitySchema>;

/** Instants an answer can carry: far-off years would give nonsense schedules (and non-ISO expanded years). */
const EARLIEST = Date.parse("2000-01-01T00:00:00Z");
const LATEST = Date.parse("2100-01-01T00:00:00Z");

/** An ISO 8601 instant with its offset, between the years 2000 and 2099: every time field of the API. */
export const isoInstantSchema = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) >= EARLIEST && Date.parse(v) < LATEST, "must be between 2000-01-01 and 2099-12-31")
  .meta({ description: "ISO 8601 instant with offset, e.g. 2026-11-26T08:00:00+01:00" });
const isoInstant = isoInstantSchema;

export const timeWindowSchema = z
  .strictObject({ start: isoInstant, end: isoInstant })
  .refine((w) => Date.parse(w.start) <= Date.parse(w.end), { message: "start must not be after end", path: ["end"] })
  .meta({ description: "When service may start at the stop (arrivals before `start` wait; after `end` the window is missed)" });
export type TimeWindow = z.output<typeof timeWindowSchema>;

export const stopSchema = pointSchema
  .extend({
    id: z.string().min(1).max(100).optional().meta({ description: "Your id for the stop (default: its index as a string)" }),
    address: z.string().max(500).optional().meta({ description: "Free text, returned as given" }),
    name: z.string().max(200).optional().meta({ description: "Display name, returned as given" }),
    time_window: timeWindowSchema.optional(),
    service_seconds: z.number().min(0).max(86_400).default(0).meta({ description: "Time spent at the stop, seconds" }),
    demand: demandSchema.optional(),
    priority: z.number().int().min(0).max(10).default(0).meta({ description: "0 (default) to 10: higher is kept first when not every stop fits" }),
  })
  .meta({ description: "A stop: a point plus optional id, name, time window, service duration, demand and priority" });
export type Stop = z.output<typeof stopSchema>;

/** Stop (or vehicle) ids: the given ones, else the index; duplicates are refused (answers refer to them by id). */
export function stopIds(stops: readonly { id?: string }[], field = "stops"): string[] {
  const ids = stops.map((s, i) => s.id ?? String(i));
  const seen = new Map<string, number>();
  for (const [i, id] of ids.entries()) {
    const first = seen.get(id);
    if (first !== undefined) throw new RequestError(400, "duplicate_id", `${field}[${i}].id "${id}" repeats ${field}[${first}].id`, `${field}[${i}].id`);
    seen.set(id, i);
  }
  return ids;
}

export const vehicleSchema = z
  .strictObject({
    id: z.string().min(1).max(100).optional().meta({ description: "Your id for the vehicle (default: its index as a string)" }),
    type: profileSchema.default("van").meta({ description: "Profile the vehicle drives with" }),
    capacity: capacitySchema.optional(),
    max_stops: z.number().int().min(1).max(1000).optional().meta({ description: "Most stops the vehicle may serve" }),
    start: pointSchema.optional().meta({ description: "Where the vehicle starts (default: the request's `start`)" }),
    end: pointSchema.optional().meta({ description: "Where it ends (default: the request's `end`, else back at its start)" }),
    shift: timeWindowSchema.optional().meta({ description: "When the vehicle may work; its route starts at `shift.start`" }),
  })
  .meta({ description: "A vehicle: optional id, type, capacity, stop limit (`max_stops`) and start/end" });
export type Vehicle = z.output<typeof vehicleSchema>;

export function travelOptions(input: {
  vehicle_type?: Profile;
  optimize_for?: "time" | "distance" | "fuel";
  vehicle?: z.output<typeof vehicleDimensionsSchema>;
  traffic?: boolean;
  departure?: Date;
}): TravelOptions {
  return {
    profile: input.vehicle_type ?? "car",
    optimizeFor: input.optimize_for ?? "time",
    vehicle: input.vehicle,
    traffic: input.traffic,
    departure: input.departure,
  };
}

/** The data notice every answer carries (ODbL requires attribution wherever the data is served). */
export function dataNotice(): { attribution: string; license: string } {
  return { attribution: OSM_ATTRIBUTION, license: OSM_LICENSE };
}

export const geometrySchema = z
  .object({
    type: z.literal("LineString").meta({ description: "Always LineString" }),
    coordinates: z.array(z.tuple([z.number(), z.number()])).meta({ description: "[lng, lat] vertices" }),
  })
  .meta({ description: "GeoJSON LineString, coordinates [lng, lat]" });
export type LineString = z.output<typeof geometrySchema>;

export type BBox = [number, number, number, number];

/** [minLng, minLat, maxLng, maxLat] of a list of [lng, lat]. */
export function bboxOf(coordinates: readonly (readonly [number, number])[]): BBox {
  let minLng = Infinity,
    minLat = Infinity,
    maxLng = -Infinity,
    maxLat = -Infinity;
  for (const [lng, lat] of coordinates) {
    if (lng < minLng) minLng = lng;
    if (lat < minLat) minLat = lat;
    if (lng > maxLng) maxLng = lng;
    if (lat > maxLat) maxLat = lat;
  }
  return [minLng, minLat, maxLng, maxLat].map((v) => round(v, 6)) as BBox;
}

/** Rounds to `digits` decimals (coordinates to 6: about 0.1 m; meters and seconds to 1). */
export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Douglas-Peucker thinning to `toleranceMeters` (the spec's "simplified": about 20 m), in a local
 * equirectangular projection so the tolerance is in meters; the first and last vertex always stay.
 */
export function simplifyLine(coordinates: [number, number][], toleranceMeters = 20): [number, number][] {
  if (coordinates.length <= 2) return coordinates;
  const { forward } = localProjection((coordinates[0][1] + coordinates[coordinates.length - 1][1]) / 2);
  const projected = coordinates.map((point, index) => {
    const [x, y] = forward(point);
    return { x, y, index };
  });
  const kept = simplify(projected, toleranceMeters, true) as typeof projected;
  return kept.map((p) => coordinates[p.index]);
}

/** A LineString of [lng, lat] rounded to 6 decimals, consecutive duplicates dropped. */
export function lineString(coordinates: [number, number][]): LineString {
  const out: [number, number][] = [];
  for (const [lng, lat] of coordinates) {
    const p: [number, number] = [round(lng, 6), round(lat, 6)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  if (out.length === 1) out.push(out[0]);
  return { type: "LineString", coordinates: out };
}

/** `geometry` option of directions and friends: every vertex, about 20 m Douglas-Peucker, or none. */
export function routeGeometry(coordinates: [number, number][], mode: "full" | "simplified" | "none"): LineString | undefined {
  if (mode === "none") return undefined;
  return lineString(mode === "full" ? coordinates : simplifyLine(coordinates, 20));
}

/** The snapped location of an input point, as answers report it. */
export const snappedSchema = z
  .object({
    location: z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat] on the road network" }),
    snap_distance: z.number().meta({ description: "Meters from the given point to the road" }),
  })
  .meta({ description: "Where a given point was placed on the road network" });

export function snappedOut(p: { location: [number, number]; distance: number }): z.output<typeof snappedSchema> {
  return { location: [round(p.location[0], 6), round(p.location[1], 6)], snap_distance: round(p.distance, 1) };
}

/** Common answer fields: attribution of the data. */
export const noticeSchema = {
  attribution: z.string().meta({ description: "© OpenStreetMap contributors" }),
  license: z.string().meta({ description: "ODbL-1.0" }),
};

/** Context an operation runs in: the engine and the clock. */
export interface OperationContext {
  engine: RouteEngine;
  now: Date;
}

/**
 * One operation: its path under /origin/v1/routes, docs, price, request and response schemas, an
 * example request, and the function that answers. `run` throws RequestError for a bad request.
 */
export interface Operation<I = unknown, O = unknown> {
  /** "directions" → POST /origin/v1/routes/directions. */
  name: string;
  summary: string;
  description: string;
  priceSats: number;
  request: z.ZodType<I>;
  response: z.ZodType<O>;
  exampleRequest: unknown;
  run(input: I, ctx: OperationContext): O;
}

/** Helps inference: `defineOperation({...})` keeps I and O from the schemas. */
export function defineOperation<RQ extends z.ZodType, RS extends z.ZodType>(op: {
  name: string;
  summary: string;
  description: string;
  priceSats: number;
  request: RQ;
  response: RS;
  exampleRequest: z.input<RQ>;
  run(input: z.output<RQ>, ctx: OperationContext): z.input<RS>;
}): Operation<z.output<RQ>, z.input<RS>> {
  return op as unknown as Operation<z.output<RQ>, z.input<RS>>;
}
