// What try-it can draw on a map from any JSON answer, found generically (no API's names in it):
// GeoJSON geometries, Features and FeatureCollections anywhere in the body; polyline strings of a
// Mapbox Directions answer (`code: "Ok"` + `routes`); points as `location: [lng, lat]` or
// `{lat, lng}` objects (stops, waypoints, centroids), numbered in order within their list; and the
// box around all of it. Pure and browser-safe.
import polyline from "@mapbox/polyline";

/** [longitude, latitude] in degrees, GeoJSON's order. */
export type LngLat = [number, number];
/** [minLng, minLat, maxLng, maxLat]. */
export type Bbox = [number, number, number, number];

export type MapLine = { coordinates: LngLat[]; label: string | null };
/** One area: its polygons, each a list of rings (the first the outline, the others holes). */
export type MapArea = { polygons: LngLat[][][]; label: string | null; fillOpacity: number };
/**
 * A point of the answer. `number` counts from 1 within its list (the array the point's object sits
 * in); minor points (turn-by-turn steps, very long lists) are drawn small and unnumbered.
 */
export type MapMarker = {
  location: LngLat;
  number: number;
  /** What the marker shows: its number in its list, or a point of its own (a route's `start`, a `center`) the key's initial. */
  symbol: string;
  label: string;
  /** The label of the object whose list the point is in (a fleet route's vehicle), if it has one. */
  group: string | null;
  minor: boolean;
};

export type ResponseGeometry = {
  lines: MapLine[];
  /** Largest first, so smaller bands are drawn on top; fill opacity grows as the areas shrink. */
  areas: MapArea[];
  markers: MapMarker[];
  /** Points of the request body (`{lat, lng}` and `location` points): drawn as small rings. */
  requestPoints: LngLat[];
  bbox: Bbox;
  /** The answer's top-level `attribution` string (map data credit), if any. */
  attribution: string | null;
  /** The answer's top-level (or a Mapbox answer's first route's) `distance`, in meters, if any. */
  distanceMeters: number | null;
  /** The answer's top-level (or a Mapbox answer's first route's) `duration`, in seconds, if any. */
  durationSeconds: number | null;
};

/** Bounds of the search, so a huge or hostile body costs a bounded amount of work. */
export const GEOMETRY_LIMITS = { maxDepth: 24, maxNodes: 200_000, maxPositions: 300_000 } as const;

/** Lists with more points than this are drawn as small dots: numbers would cover the map. */
const MAX_NUMBERED_IN_LIST = 60;
/** Keys whose points are turn-by-turn detail (OSRM, Mapbox, Valhalla, GraphHopper), not stops. */
const MINOR_KEYS = new Set(["steps", "maneuver", "maneuvers", "instructions"]);
/** Keys not looked into: every crossing a route passes (OSRM, Mapbox) would bury the map in dots. */
const SKIPPED_KEYS = new Set(["intersections"]);
const GEOMETRY_TYPES = new Set(["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]);
const LABEL_KEYS = ["name", "label", "title", "id", "vehicle_id"] as const;

type Path = readonly (string | number)[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** A [lng, lat(, alt)] position inside the world's ranges, or null. */
function asPosition(value: unknown): LngLat | null {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) return null;
  const [lng, lat] = value;
  if (!isFiniteNumber(lng) || !isFiniteNumber(lat) || Math.abs(lng) > 180 || Math.abs(lat) > 90) return null;
  return [lng, lat];
}

/** `{lat, lng}` (or lon, or latitude/longitude) as a position, or null. */
function latLngObjectPosition(value: Record<string, unknown>): LngLat | null {
  const lat = value.lat ?? value.latitude;
  const lng = value.lng ?? value.lon ?? value.longitude;
  return asPosition([lng, lat]);
}

/** A label for an object: its name, label, title or id, when one is a short string or a number. */
function ownLabel(value: Record<string, unknown> | null | undefined): string | null {
  if (!value) return null;
  for (const key of LABEL_KEYS) {
    const v = value[key];
    if ((typeof v === "string" && v.trim() !== "" && v.length <= 80) || isFiniteNumber(v)) return String(v);
  }
  return null;
}

/** An area's label from its properties: a name, or the limit of a reachability band. */
function areaLabel(properties: Record<string, unknown> | null): string | null {
  if (!properties) return null;
  if (isFiniteNumber(properties.minutes)) return `${properties.minutes} min`;
  if (isFiniteNumber(properties.seconds)) return formatDuration(properties.seconds);
  if (isFiniteNumber(properties.meters)) return formatDistance(properties.meters);
  if (isFiniteNumber(properties.contour)) return String(properties.contour);
  return ownLabel(properties) ?? (isFiniteNumber(properties.band) ? `band ${properties.band}` : null);
}

/** A Mapbox Directions v5 answer: its route geometries are encoded polylines. */
function isMapboxDirections(value: Record<string, unknown>): boolean {
  return value.code === "Ok" && Array.isArray(value.routes);
}

/** Whether a point is turn-by-turn detail rather than a stop of its own. */
function isMinorPath(path: Path): boolean {
  return path.some((key) => typeof key === "string" && MINOR_KEYS.has(key));
}

/** The list a point's object belongs to: its path with the innermost array index left out. */
function seriesKey(path: Path): string {
  let last = -1;
  path.forEach((key, i) => {
    if (typeof key === "number") last = i;
  });
  return path.map((key, i) => (i === last ? "[]" : String(key))).join(".");
}

/** The nearest key name of a path ("stops" for stops.3, "centroid" for clusters.2.centroid). */
function nearestKey(path: Path): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === "string") return path[i] as string;
  return "point";
}

class GeometryCollector {
  /** `detail`: a turn-by-turn step's own line, which repeats a stretch of its route's line. */
  lines: (MapLine & { detail: boolean })[] = [];
  areas: Omit<MapArea, "fillOpacity">[] = [];
  points: { location: LngLat; path: Path; label: string | null; group?: string | null }[] = [];
  private nodes = 0;
  private positions = 0;

  /** Whether the budget allows visiting one more node. */
  visit(): boolean {
    this.nodes += 1;
    return this.nodes <= GEOMETRY_LIMITS.maxNodes && this.positions <= GEOMETRY_LIMITS.maxPositions;
  }

  private countPositions(n: number): boolean {
    this.positions += n;
    return this.positions <= GEOMETRY_LIMITS.maxPositions;
  }

  /** A list of positions, or null when any is not one (then the object is not GeoJSON). */
  private positionList(value: unknown, min: number): LngLat[] | null {
    if (!Array.isArray(value) || value.length < min) return null;
    if (!this.countPositions(value.length)) return null;
    const out: LngLat[] = [];
    for (const item of value) {
      const p = asPosition(item);
      if (!p) return null;
      out.push(p);
    }
    return out;
  }

  private polygon(value: unknown): LngLat[][] | null {
    if (!Array.isArray(value) || value.length === 0) return null;
    const rings: LngLat[][] = [];
    for (const ring of value) {
      const r = this.positionList(ring, 4);
      if (!r) return null;
      rings.push(r);
    }
    return rings;
  }

  private many<T>(value: unknown, one: (v: unknown) => T | null): T[] | null {
    if (!Array.isArray(value)) return null;
    const out: T[] = [];
    for (const item of value) {
      const v = one(item);
      if (v === null) return null;
      out.push(v);
    }
    return out;
  }

  /** Adds a GeoJSON geometry object; false when it is not a valid one. */
  geometry(value: Record<string, unknown>, path: Path, label: string | null, properties: Record<string, unknown> | null, depth: number): boolean {
    const c = value.coordinates;
    switch (value.type) {
      case "Point": {
        const p = asPosition(c);
        if (p) this.points.push({ location: p, path, label });
        return p !== null;
      }
      case "MultiPoint": {
        const ps = this.positionList(c, 1);
        ps?.forEach((p, i) => this.points.push({ location: p, path: [...path, i], label }));
        return ps !== null;
      }
      case "LineString": {
        const line = this.positionList(c, 2);
        if (line) this.lines.push({ coordinates: line, label, detail: isMinorPath(path) });
        return line !== null;
      }
      case "MultiLineString": {
        const lines = this.many(c, (l) => this.positionList(l, 2));
        lines?.forEach((coordinates) => this.lines.push({ coordinates, label, detail: isMinorPath(path) }));
        return lines !== null;
      }
      case "Polygon": {
        const polygon = this.polygon(c);
        if (polygon) this.areas.push({ polygons: [polygon], label: areaLabel(properties) ?? label });
        return polygon !== null;
      }
      case "MultiPolygon": {
        const polygons = this.many(c, (p) => this.polygon(p));
        if (polygons?.length) this.areas.push({ polygons, label: areaLabel(properties) ?? label });
        return polygons !== null;
      }
      case "GeometryCollection": {
        if (!Array.isArray(value.geometries)) return false;
        value.geometries.forEach((g, i) => {
          if (isRecord(g) && depth < GEOMETRY_LIMITS.maxDepth) this.geometry(g, [...path, "geometries", i], label, properties, depth + 1);
        });
        return true;
      }
      default:
        return false;
    }
  }

  /** Decodes a Mapbox answer's route polylines (precision 6, or 5 when that fits its waypoints). */
  mapboxRoutes(value: Record<string, unknown>): void {
    const firstWaypoint = Array.isArray(value.waypoints) && isRecord(value.waypoints[0]) ? asPosition(value.waypoints[0].location) : null;
    (value.routes as unknown[]).forEach((route, i) => {
      if (!isRecord(route) || typeof route.geometry !== "string") return;
      const line = decodePolyline(route.geometry, firstWaypoint);
      if (line && this.countPositions(line.length)) this.lines.push({ coordinates: line, label: ownLabel(route) ?? `route ${i + 1}`, detail: false });
    });
  }
}

/** A polyline string as [lng, lat] positions; the precision whose start is nearer `near` wins. */
export function decodePolyline(encoded: string, near: LngLat | null = null): LngLat[] | null {
  if (encoded.length === 0 || encoded.length > 2_000_000) return null;
  const decode = (precision: number): LngLat[] | null => {
    try {
      const out = polyline.decode(encoded, precision).map(([lat, lng]) => asPosition([lng, lat]));
      return out.length >= 2 && out.every((p) => p !== null) ? (out as LngLat[]) : null;
    } catch {
      return null;
    }
  };
  const six = decode(6);
  if (!near) return six;
  const five = decode(5);
  const off = (line: LngLat[] | null) => (line ? Math.hypot(line[0][0] - near[0], line[0][1] - near[1]) : Infinity);
  return off(five) < off(six) ? five : six;
}

/**
 * The labels around a value: `parent`, of the object holding it under a key (a cluster for its
 * centroid); `list`, of the object holding the list it is in (a fleet route for its stops).
 */
type Around = { parent: string | null; list: string | null };
const nothingAround: Around = { parent: null, list: null };

function walk(collector: GeometryCollector, value: unknown, path: Path, depth: number, around: Around = nothingAround): void {
  if (depth > GEOMETRY_LIMITS.maxDepth || !collector.visit()) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (typeof item === "object" && item !== null) walk(collector, item, [...path, i], depth + 1, { parent: null, list: around.parent });
    });
    return;
  }
  if (!isRecord(value)) return;

  if (value.type === "FeatureCollection" && Array.isArray(value.features)) {
    value.features.forEach((feature, i) => walk(collector, feature, [...path, "features", i], depth + 1));
    walkRest(collector, value, path, depth, new Set(["type", "features", "bbox"]), around);
    return;
  }
  if (value.type === "Feature" && "geometry" in value) {
    const properties = isRecord(value.properties) ? value.properties : null;
    if (isRecord(value.geometry)) collector.geometry(value.geometry, path, ownLabel(properties) ?? ownLabel(value), properties, depth + 1);
    return;
  }
  if (typeof value.type === "string" && GEOMETRY_TYPES.has(value.type) && collector.geometry(value, path, null, null, depth)) return;

  // A geometry right under an object (a route's `geometry`) is labelled by that object.
  const skip = new Set(["bbox"]);
  if (isMapboxDirections(value)) collector.mapboxRoutes(value);
  if (isRecord(value.geometry) && typeof value.geometry.type === "string" && GEOMETRY_TYPES.has(value.geometry.type)) {
    if (collector.geometry(value.geometry, [...path, "geometry"], ownLabel(value), null, depth + 1)) skip.add("geometry");
  }
  const location = asPosition(value.location);
  const point = location ?? latLngObjectPosition(value);
  if (point) {
    const label = ownLabel(value) ?? (typeof path.at(-1) === "string" ? around.parent : null);
    collector.points.push({ location: point, path, label, group: around.list });
    skip.add("location");
  }
  walkRest(collector, value, path, depth, skip, around);
}

function walkRest(collector: GeometryCollector, value: Record<string, unknown>, path: Path, depth: number, skip: Set<string>, around: Around): void {
  for (const [key, child] of Object.entries(value)) {
    if (skip.has(key) || SKIPPED_KEYS.has(key) || typeof child !== "object" || child === null) continue;
    walk(collector, child, [...path, key], depth + 1, { parent: ownLabel(value), list: around.list });
  }
}

/** Numbers the points within each list; turn-by-turn and very long lists become minor. */
function numberPoints(points: GeometryCollector["points"]): MapMarker[] {
  const bySeries = new Map<string, number>();
  for (const p of points) bySeries.set(seriesKey(p.path), (bySeries.get(seriesKey(p.path)) ?? 0) + 1);
  const counters = new Map<string, number>();
  return points.map((p) => {
    const series = seriesKey(p.path);
    const number = (counters.get(series) ?? 0) + 1;
    counters.set(series, number);
    const minor = isMinorPath(p.path) || (bySeries.get(series) ?? 0) > MAX_NUMBERED_IN_LIST;
    const inList = p.path.some((k) => typeof k === "number");
    const key = nearestKey(p.path);
    return {
      location: p.location,
      number,
      symbol: inList ? String(number) : key.charAt(0).toUpperCase(),
      label: p.label ?? (inList ? `${key} ${number}` : key),
      group: p.group ?? null,
      minor,
    };
  });
}

function ringArea(ring: LngLat[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j][0] - ring[i][0]) * (ring[j][1] + ring[i][1]);
  return Math.abs(sum / 2);
}

function areaSize(area: Omit<MapArea, "fillOpacity">): number {
  return area.polygons.reduce((sum, rings) => sum + ringArea(rings[0]), 0);
}

/** Largest first, each a little more opaque than the one it sits in: nested bands stay readable. */
function shadeAreas(areas: Omit<MapArea, "fillOpacity">[]): MapArea[] {
  const sorted = [...areas].sort((a, b) => areaSize(b) - areaSize(a));
  const step = sorted.length > 1 ? 0.3 / (sorted.length - 1) : 0;
  return sorted.map((area, i) => ({ ...area, fillOpacity: Math.round((0.12 + step * i) * 100) / 100 }));
}

function extend(box: Bbox | null, [lng, lat]: LngLat): Bbox {
  if (!box) return [lng, lat, lng, lat];
  return [Math.min(box[0], lng), Math.min(box[1], lat), Math.max(box[2], lng), Math.max(box[3], lat)];
}

/** The box around every position given; null for none. */
export function bboxOf(positions: Iterable<LngLat>): Bbox | null {
  let box: Bbox | null = null;
  for (const p of positions) box = extend(box, p);
  return box;
}

function* allPositions(lines: MapLine[], areas: MapArea[], markers: MapMarker[], extra: LngLat[]): Generator<LngLat> {
  for (const line of lines) yield* line.coordinates;
  for (const area of areas) for (const rings of area.polygons) yield* rings[0];
  for (const marker of markers) yield marker.location;
  yield* extra;
}

/** A number the answer states at its top level or, for a Mapbox answer, on its first route. */
function statedNumber(body: Record<string, unknown>, key: string): number | null {
  if (isFiniteNumber(body[key])) return body[key];
  if (isMapboxDirections(body)) {
    const route = (body.routes as unknown[])[0];
    if (isRecord(route) && isFiniteNumber(route[key])) return route[key];
  }
  return null;
}

/** The points of a request body, to show where the visitor asked about. */
function requestPoints(request: unknown): LngLat[] {
  const collector = new GeometryCollector();
  walk(collector, request, [], 0);
  return collector.points.map((p) => p.location);
}

/**
 * What to draw of a JSON answer, or null when it holds nothing geographic. `request` (the parsed
 * request body) adds the asked-about points, only beside an answer that is geographic itself.
 */
export function findResponseGeometry(body: unknown, request?: unknown): ResponseGeometry | null {
  if (typeof body !== "object" || body === null) return null;
  const collector = new GeometryCollector();
  walk(collector, body, [], 0);
  const markers = numberPoints(collector.points);
  const areas = shadeAreas(collector.areas);
  // Steps' lines repeat their route's: drawn only when the answer has no other line.
  const routeLines = collector.lines.filter((l) => !l.detail);
  const lines: MapLine[] = (routeLines.length ? routeLines : collector.lines).map(({ coordinates, label }) => ({ coordinates, label }));
  if (lines.length === 0 && areas.length === 0 && markers.length === 0) return null;
  const asked = request === undefined ? [] : requestPoints(request);
  const bbox = bboxOf(allPositions(lines, areas, markers, asked))!;
  const top = isRecord(body) ? body : {};
  return {
    lines,
    areas,
    markers,
    requestPoints: asked,
    bbox,
    attribution: typeof top.attribution === "string" && top.attribution.length <= 300 ? top.attribution : null,
    distanceMeters: statedNumber(top, "distance"),
    durationSeconds: statedNumber(top, "duration"),
  };
}

/** Parses JSON text (an answer, and the request body when there was one) and finds its geometry. */
export function responseGeometryFromText(text: string, requestText?: string | null): ResponseGeometry | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  let request: unknown = undefined;
  if (requestText) {
    try {
      request = JSON.parse(requestText);
    } catch {
      request = undefined;
    }
  }
  return findResponseGeometry(body, request);
}

const EARTH_RADIUS_METERS = 6_371_008.8;

/** Great-circle distance between two positions, meters. */
export function haversineMeters([lng1, lat1]: LngLat, [lng2, lat2]: LngLat): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Length of a line, meters. */
export function lineLengthMeters(coordinates: LngLat[]): number {
  let sum = 0;
  for (let i = 1; i < coordinates.length; i++) sum += haversineMeters(coordinates[i - 1], coordinates[i]);
  return sum;
}

/** "850 m", "3.2 km", "42 km". */
export function formatDistance(meters: number): string {
  if (meters < 1000) return `${Math.round(meters)} m`;
  return meters < 100_000 ? `${(meters / 1000).toFixed(1)} km` : `${Math.round(meters / 1000)} km`;
}

/** "45 s", "7 min", "1 h 5 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/**
 * The map's caption and text alternative: what is drawn, with the distance and duration the
 * answer states (else the lines' own length), e.g. "1 line (3.2 km, 7 min); 2 numbered points".
 */
export function describeResponseGeometry(geometry: ResponseGeometry): string {
  const parts: string[] = [];
  const { lines, areas, markers } = geometry;
  if (lines.length) {
    const meters = geometry.distanceMeters ?? lines.reduce((sum, l) => sum + lineLengthMeters(l.coordinates), 0);
    const figures = [formatDistance(meters), ...(geometry.durationSeconds !== null ? [formatDuration(geometry.durationSeconds)] : [])];
    parts.push(`${plural(lines.length, "line", "lines")} (${figures.join(", ")}${lines.length > 1 && geometry.distanceMeters === null ? " in all" : ""})`);
  }
  if (areas.length) {
    const labels = areas.map((a) => a.label).filter((l): l is string => l !== null);
    const listed = labels.length === areas.length && areas.length <= 8 ? ` (${[...labels].reverse().join(", ")})` : "";
    parts.push(`${plural(areas.length, "area", "areas")}${listed}`);
  }
  const numbered = markers.filter((m) => !m.minor && /^\d+$/.test(m.symbol)).length;
  const named = markers.filter((m) => !m.minor && !/^\d+$/.test(m.symbol)).map((m) => m.label);
  const minor = markers.filter((m) => m.minor).length;
  if (numbered) parts.push(plural(numbered, "numbered point", "numbered points"));
  if (named.length) parts.push(`${named.length <= 4 ? named.join(", ") : plural(named.length, "point", "points")} marked`);
  if (minor) parts.push(plural(minor, "small point", "small points"));
  if (geometry.requestPoints.length) parts.push(plural(geometry.requestPoints.length, "requested point (ring)", "requested points (rings)"));
  return `Map of the answer: ${parts.join("; ")}.`;
}
