// POST /origin/v1/routes/reachable: the area reachable from a point within a travel time or a
// distance (an isochrone or isodistance), in nested bands. The engine finds the road network within
// each limit (nodes, vertices and the points where edges cross the limit); each band is the concave
// hull (concaveman) of that network, united with the band inside it (polygon-clipping) so bands nest.
import geojsonArea from "@mapbox/geojson-area";
import { polygon } from "@turf/helpers";
import rewind from "@turf/rewind";
import concaveman from "concaveman";
import polygonClipping, { type MultiPolygon as PcMultiPolygon, type Polygon as PcPolygon } from "polygon-clipping";
import type { MultiPolygon, Polygon, Position } from "geojson";
import { z } from "zod";
import { type ReachableArea, TRAFFIC_BANDS, TRAFFIC_NOTE, type TrafficBand } from "../engine/index.ts";
import {
  LIMITS,
  RequestError,
  bboxOf,
  dataNotice,
  defineOperation,
  lngLat,
  noticeSchema,
  pointSchema,
  round,
  snappedOut,
  snappedSchema,
  vehicleDimensionsSchema,
  vehicleTypeSchema,
  isoInstantSchema,
} from "./common.ts";
import { localProjection } from "../engine/road-network.ts";

/**
 * Price: one bounded search over the whole city plus a hull per band costs about as much as a
 * handful of routes, far less than an optimisation (10 sats, spec 4.1).
 */
export const REACHABLE_PRICE_SATS = 5;

/**
 * Hull shape: concaveman's concavity (2, its default: lower digs deeper into the gaps between roads)
 * and the edge length in meters below which it stops digging (3 cells of the engine's 20 m grid).
 */
const HULL_CONCAVITY = 2;
const HULL_LENGTH_THRESHOLD_METERS = 60;
/** Half the width given to a road when a band's network is too small to enclose an area. */
const ROAD_HALF_WIDTH_METERS = 5;
/** Cell size of the interior test that thins a hull's input (withoutInterior). */
const INTERIOR_CELL_METERS = 200;
/** Polygon parts and holes smaller than this (m²) are slivers of the union, not places. */
const MIN_PART_M2 = 1;

const requestSchema = z
  .strictObject({
    center: pointSchema.meta({ description: "Where travel starts; placed on the nearest road the vehicle may use" }),
    minutes: z
      .number()
      .positive()
      .max(LIMITS.reachableMinutes)
      .optional()
      .meta({ description: `Travel-time limit, minutes (0 < minutes ≤ ${LIMITS.reachableMinutes}); give this or \`meters\`, never both` }),
    meters: z
      .number()
      .positive()
      .max(LIMITS.reachableMeters)
      .optional()
      .meta({ description: `Network-distance limit, meters (0 < meters ≤ ${LIMITS.reachableMeters}); give this or \`minutes\`, never both` }),
    buckets: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.reachableBuckets)
      .default(1)
      .meta({ description: "Number of nested bands: band k (0-based) reaches limit·(k+1)/buckets" }),
    vehicle_type: vehicleTypeSchema,
    vehicle: vehicleDimensionsSchema.optional(),
    traffic: z.boolean().default(false).meta({ description: "Apply the time-of-day speed profile (no live traffic feed exists)" }),
    departure: isoInstantSchema.optional().meta({ description: "Departure instant (ISO 8601 with offset) choosing the traffic band; default now" }),
  })
  .meta({ description: "A reachable-area request: a center and a time (`minutes`) or distance (`meters`) limit" });

const positionSchema = z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat]" });
const ringSchema = z.array(positionSchema).meta({ description: "A closed linear ring: the first position repeated last" });
const polygonGeometrySchema = z
  .object({ type: z.literal("Polygon"), coordinates: z.array(ringSchema) })
  .meta({ description: "GeoJSON Polygon: outer ring counter-clockwise, holes clockwise (RFC 7946)" });
const multiPolygonGeometrySchema = z
  .object({ type: z.literal("MultiPolygon"), coordinates: z.array(z.array(ringSchema)) })
  .meta({ description: "GeoJSON MultiPolygon, when a band falls apart into separate areas" });

const bandSchema = z
  .object({
    type: z.literal("Feature"),
    geometry: z.union([polygonGeometrySchema, multiPolygonGeometrySchema]).meta({
      description:
        "GeoJSON Polygon, or MultiPolygon where the hull splits (a spike along a lone road): [lng, lat], outer rings counter-clockwise, holes clockwise",
    }),
    properties: z
      .object({
        band: z
          .number()
          .int()
          .min(0)
          .max(LIMITS.reachableBuckets - 1)
          .meta({ description: "Band index, 0 = innermost (smallest limit)" }),
        minutes: z.number().optional().meta({ description: "This band's travel-time limit, minutes (time requests)" }),
        meters: z.number().optional().meta({ description: "This band's network-distance limit, meters (distance requests)" }),
        reachable_nodes: z.number().min(0).meta({ description: "Road-network junctions reachable within the limit (an integer)" }),
        area_m2: z.number().meta({ description: "Area of the band's polygon, square meters (geodesic)" }),
      })
      .meta({ description: "The band's limit and figures" }),
  })
  .meta({ description: "One band: the concave hull of the road network reachable within its limit (inner bands included)" });

const responseSchema = z
  .object({
    type: z.literal("FeatureCollection"),
    features: z.array(bandSchema).meta({ description: "One Feature per band, innermost first; each contains the ones before it" }),
    center: snappedSchema.meta({ description: "The center as placed on the road network" }),
    bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).meta({ description: "[minLng, minLat, maxLng, maxLat] of the outermost band" }),
    traffic_band: z
      .enum(TRAFFIC_BANDS.map((b) => b.name) as [TrafficBand, ...TrafficBand[]])
      .optional()
      .meta({ description: "Time-of-day band applied when `traffic` is true (docs/route-planning.md)" }),
    traffic_note: z.string().optional().meta({ description: "Present when `traffic` is true: there is no live traffic feed" }),
    ...noticeSchema,
  })
  .meta({ description: "A GeoJSON FeatureCollection of nested reachable-area bands" });

type Ring = [number, number][];
/** A band's geometry as the response carries it. */
type BandGeometry = { type: "Polygon"; coordinates: Ring[] } | { type: "MultiPolygon"; coordinates: Ring[][] };

/** Rounded to 6 decimals (about 0.1 m), consecutive duplicates dropped, the ring closed. */
function cleanRing(ring: Position[]): Ring {
  const out: Ring = [];
  for (const [lng, lat] of ring) {
    const p: [number, number] = [round(lng, 6), round(lat, 6)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  if (out.length > 1 && out[0][0] === out[out.length - 1][0] && out[0][1] === out[out.length - 1][1]) out.pop();
  out.push(out[0]);
  return out;
}

/**
 * The points a hull can use: those in cells of a INTERIOR_CELL_METERS grid that border an empty cell.
 * A point whose cell and 8 neighbours all hold network points lies deep inside the network, where
 * the hull does not reach; dropping them halves concaveman's input for a city-wide band. Works on
 * [lng, lat] (cells of INTERIOR_CELL_METERS in the local projection) so only the survivors are projected.
 */
function withoutInterior(points: [number, number][], projection: ReturnType<typeof localProjection>): [number, number][] {
  if (points.length < 1000) return points;
  const cellX = INTERIOR_CELL_METERS / projection.kx;
  const cellY = INTERIOR_CELL_METERS / projection.ky;
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  // One empty cell of margin all round, so the cells at the edge always border an empty one.
  const columns = Math.floor((maxX - minX) / cellX) + 3;
  const rows = Math.floor((maxY - minY) / cellY) + 3;
  const cellOf = ([x, y]: [number, number]) => Math.floor((x - minX) / cellX) + 1 + columns * (Math.floor((y - minY) / cellY) + 1);
  const occupied = new Uint8Array(columns * rows);
  for (const p of points) occupied[cellOf(p)] = 1;
  const interior = (c: number) =>
    occupied[c - 1] &&
    occupied[c + 1] &&
    occupied[c - columns] &&
    occupied[c + columns] &&
    occupied[c - columns - 1] &&
    occupied[c - columns + 1] &&
    occupied[c + columns - 1] &&
    occupied[c + columns + 1];
  return points.filter((p) => !interior(cellOf(p)));
}

/**
 * The concave hull of one band's network as a polygon. A network too small to enclose an area (a
 * few meters along one road) is widened to a road's width first, so the band is never degenerate.
 */
function hullOf(area: ReachableArea, projection: ReturnType<typeof localProjection>, inner: Polygon | MultiPolygon | undefined): Polygon {
  const points = withoutInterior(area.points, projection).map(projection.forward);
  // The inner band's outline is reachable too: taking its vertices in, the hull mostly holds it already.
  if (inner)
    for (const rings of inner.type === "Polygon" ? [inner.coordinates] : inner.coordinates)
      for (const p of rings[0]) points.push(projection.forward(p as [number, number]));
  const hull = (pts: [number, number][]) => cleanRing(concaveman(pts, HULL_CONCAVITY, HULL_LENGTH_THRESHOLD_METERS).map(projection.inverse));
  let ring = hull(points);
  if (ring.length < 4 || Math.abs(geojsonArea.ring(ring)) < 1) {
    const r = ROAD_HALF_WIDTH_METERS;
    ring = hull(
      points.flatMap(([x, y]): [number, number][] => [
        [x - r, y - r],
        [x + r, y - r],
        [x + r, y + r],
        [x - r, y + r],
      ]),
    );
  }
  return rewind(polygon([ring]).geometry) as Polygon;
}

/**
 * The band's hull united with the band inside it: a place reachable within 10 minutes is within 20.
 * The innermost band goes through the same union alone: a concave hull's ring can touch or cross
 * itself where a spike follows a lone road, and the union splits it into valid simple polygons.
 */
function nested(hull: Polygon, inner: Polygon | MultiPolygon | undefined): Polygon | MultiPolygon {
  // polygon-clipping rather than @turf/union (polyclip-ts): the same Martinez-style sweep, about ten
  // times faster on two hulls of ~1,000 vertices (7 ms against 70 ms measured).
  const merged = inner
    ? polygonClipping.union(hull.coordinates as PcPolygon, inner.coordinates as PcPolygon | PcMultiPolygon)
    : polygonClipping.union(hull.coordinates as PcPolygon);
  if (!merged.length) return hull;
  const geometry: Polygon | MultiPolygon = merged.length === 1 ? { type: "Polygon", coordinates: merged[0] } : { type: "MultiPolygon", coordinates: merged };
  return rewind(geometry) as Polygon | MultiPolygon;
}

/** A ring that encloses an area after rounding (a union can leave slivers along shared edges). */
const enclosesArea = (ring: Ring) => ring.length >= 4 && Math.abs(geojsonArea.ring(ring)) >= MIN_PART_M2;

/**
 * The response's geometry: coordinates rounded, rings cleaned, and the degenerate slivers a union
 * leaves (parts or holes under MIN_PART_M2) dropped; a single remaining part is a Polygon.
 */
function bandGeometry(geometry: Polygon | MultiPolygon): BandGeometry {
  const polygons = geometry.type === "Polygon" ? [geometry.coordinates] : geometry.coordinates;
  const parts = polygons
    .map((rings) => rings.map(cleanRing))
    .filter((rings) => enclosesArea(rings[0]))
    .map(([outer, ...holes]) => [outer, ...holes.filter(enclosesArea)]);
  return parts.length === 1 ? { type: "Polygon", coordinates: parts[0] } : { type: "MultiPolygon", coordinates: parts };
}

/** Exactly one of minutes and meters: both or neither is a 400 naming the two fields. */
function limitOf(input: { minutes?: number; meters?: number }): { metric: "time" | "distance"; field: "minutes" | "meters"; value: number } {
  if (input.minutes !== undefined && input.meters !== undefined)
    throw new RequestError(400, "conflicting_fields", "Give either `minutes` or `meters`, not both", "minutes", { fields: ["minutes", "meters"] });
  if (input.minutes !== undefined) return { metric: "time", field: "minutes", value: input.minutes };
  if (input.meters !== undefined) return { metric: "distance", field: "meters", value: input.meters };
  throw new RequestError(400, "invalid_request", "Give one of `minutes` or `meters`", "minutes", { fields: ["minutes", "meters"] });
}

export const reachableOperation = defineOperation({
  name: "reachable",
  summary: "Reachable area (isochrone) within a time or distance",
  description:
    "The area reachable from `center` within `minutes` of travel or `meters` of road, as nested bands (`buckets`): " +
    "a GeoJSON FeatureCollection with one Polygon or MultiPolygon per band, innermost first. Each band is the concave " +
    "hull of the road network the vehicle reaches within the band's limit (one-way streets, vehicle restrictions and " +
    "the optional time-of-day traffic profile apply), so it follows the roads rather than a circle.",
  priceSats: REACHABLE_PRICE_SATS,
  request: requestSchema,
  response: responseSchema,
  exampleRequest: { center: { lat: 57.7066, lng: 11.9686 }, minutes: 10, buckets: 2, vehicle_type: "car" },
  run(input, ctx) {
    const limit = limitOf(input);
    const unit = limit.metric === "time" ? 60 : 1;
    const limits = Array.from({ length: input.buckets }, (_, k) => (limit.value * (k + 1)) / input.buckets);
    const reach = ctx.engine.reachable(lngLat(input.center), {
      profile: input.vehicle_type,
      vehicle: input.vehicle,
      traffic: input.traffic,
      departure: input.departure ? new Date(input.departure) : ctx.now,
      metric: limit.metric,
      limits: limits.map((l) => l * unit),
    });
    const projection = localProjection(reach.center.location[1]);
    let inner: Polygon | MultiPolygon | undefined;
    const features = reach.areas.map((area, band) => {
      inner = nested(hullOf(area, projection, inner), inner);
      const geometry = bandGeometry(inner);
      return {
        type: "Feature" as const,
        geometry,
        properties: {
          band,
          ...(limit.field === "minutes" ? { minutes: round(limits[band], 3) } : { meters: round(limits[band], 3) }),
          reachable_nodes: area.nodes,
          area_m2: Math.round(geojsonArea.geometry(geometry)),
        },
      };
    });
    const outer = features[features.length - 1].geometry;
    const outerRings = outer.type === "Polygon" ? [outer.coordinates[0]] : outer.coordinates.map((p) => p[0]);
    return {
      type: "FeatureCollection" as const,
      features,
      center: snappedOut(reach.center),
      bbox: bboxOf(outerRings.flat()),
      ...(reach.trafficBand ? { traffic_band: reach.trafficBand, traffic_note: TRAFFIC_NOTE } : {}),
      ...dataNotice(),
    };
  },
});
