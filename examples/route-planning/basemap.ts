// GET /origin/v1/routes/basemap?bbox=minLng,minLat,maxLng,maxLat: the road ways of a box as GeoJSON
// lines, the tile-free vector background the API page draws answers on (no tile server is reachable
// from these machines, and the data is the same OSM export the routes are computed on). The larger
// the box, the fewer classes and the coarser the lines, so an answer stays a few hundred kilobytes.
import Flatbush from "flatbush";
import { z } from "zod";
import { OSM_ATTRIBUTION, OSM_LICENSE, OutsideCoverageError, type RouteEngine } from "./engine/index.ts";
import { haversineMeters } from "./engine/road-network.ts";
import { round, simplifyLine } from "./operations/common.ts";

export const basemapQuerySchema = z.strictObject({
  bbox: z
    .string()
    .regex(/^-?\d+(\.\d+)?(,-?\d+(\.\d+)?){3}$/, "must be minLng,minLat,maxLng,maxLat in degrees")
    .transform((s) => s.split(",").map(Number) as [number, number, number, number])
    .refine((b) => b.every(Number.isFinite) && b.every((v, i) => Math.abs(v) <= (i % 2 ? 90 : 180)), "must be longitudes within ±180 and latitudes within ±90")
    .refine(([minLng, minLat, maxLng, maxLat]) => minLng < maxLng && minLat < maxLat, "min must be below max")
    .meta({ description: "The box to draw: minLng,minLat,maxLng,maxLat", example: "11.95,57.69,11.99,57.71" }),
});

/** Classes drawn at each level of detail; the widest box gets the main roads only. */
const MAIN = ["motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link"];
const STREETS = [...MAIN, "unclassified", "residential", "living_street", "road"];
const LEVELS = [
  { maxSpanMeters: 2_500, classes: null, toleranceMeters: 1 },
  { maxSpanMeters: 7_000, classes: new Set(STREETS), toleranceMeters: 4 },
  { maxSpanMeters: Infinity, classes: new Set(MAIN), toleranceMeters: 10 },
] as const;

const indexes = new WeakMap<RouteEngine, Flatbush>();

/** A box index over every segment's extent, built once per engine. */
function segmentIndex(engine: RouteEngine): Flatbush {
  let index = indexes.get(engine);
  if (index) return index;
  const net = engine.network;
  index = new Flatbush(net.segmentCount);
  for (let s = 0; s < net.segmentCount; s++) {
    let minX = Infinity,
      minY = Infinity,
      maxX = -Infinity,
      maxY = -Infinity;
    for (let v = net.geometryStart[s]; v < net.geometryStart[s + 1]; v++) {
      const x = net.geometry[2 * v],
        y = net.geometry[2 * v + 1];
      if (x < minX) minX = x;
      if (y < minY) minY = y;
      if (x > maxX) maxX = x;
      if (y > maxY) maxY = y;
    }
    index.add(minX, minY, maxX, maxY);
  }
  index.finish();
  indexes.set(engine, index);
  return index;
}

export function basemap(engine: RouteEngine, query: z.output<typeof basemapQuerySchema>) {
  const [minLng, minLat, maxLng, maxLat] = query.bbox;
  const [cMinLng, cMinLat, cMaxLng, cMaxLat] = engine.bbox;
  if (maxLng < cMinLng || minLng > cMaxLng || maxLat < cMinLat || minLat > cMaxLat) {
    throw new OutsideCoverageError("bbox", [minLng, minLat], engine.bbox);
  }
  const span = Math.max(haversineMeters(minLng, minLat, maxLng, minLat), haversineMeters(minLng, minLat, minLng, maxLat));
  const level = LEVELS.find((l) => span <= l.maxSpanMeters) ?? LEVELS[LEVELS.length - 1];
  const net = engine.network;
  const features = [];
  for (const s of segmentIndex(engine).search(minLng, minLat, maxLng, maxLat)) {
    const highway = net.wayTags[net.segmentWay[s]].highway ?? "road";
    if (level.classes && !level.classes.has(highway)) continue;
    const line: [number, number][] = [];
    for (let v = net.geometryStart[s]; v < net.geometryStart[s + 1]; v++) line.push([net.geometry[2 * v], net.geometry[2 * v + 1]]);
    const coordinates = simplifyLine(line, level.toleranceMeters).map(([lng, lat]) => [round(lng, 5), round(lat, 5)]);
    features.push({ type: "Feature" as const, properties: { highway }, geometry: { type: "LineString" as const, coordinates } });
  }
  return {
    type: "FeatureCollection" as const,
    bbox: query.bbox,
    features,
    detail: level.classes ? (level.classes.size === MAIN.length ? "main_roads" : "streets") : "all_ways",
    attribution: OSM_ATTRIBUTION,
    license: OSM_LICENSE,
  };
}
