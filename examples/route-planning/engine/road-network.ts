// The road network: OpenStreetMap ways of central Gothenburg (shipped by geojson-path-finder@2.1.0)
// split at every junction into segments, cached under DATA_DIR keyed by the source's hash and
// GRAPH_VERSION. Profile-free: which segment a vehicle may use, and how fast, is profiles.ts's job.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** Shown wherever the data is served or documented (ODbL 1.0 requires it). */
export const OSM_ATTRIBUTION = "© OpenStreetMap contributors";
export const OSM_LICENSE = "ODbL-1.0";

/** Bump when the graph's shape or the splitting rules change: every cached graph is rebuilt. */
export const GRAPH_VERSION = 1;

/** The shipped export: central Gothenburg, 20,227 ways with their OSM tags. */
export function defaultSourcePath(): string {
  return createRequire(import.meta.url).resolve("geojson-path-finder/test/large-network.json");
}

/** `[minLng, minLat, maxLng, maxLat]`, GeoJSON's bbox order. */
export type BBox = [number, number, number, number];

export type WayTags = Record<string, string>;

/**
 * Junction nodes and the segments between them. A segment is a piece of ONE way between two
 * junctions (a vertex two ways share, a way's end, or a vertex a way visits twice), so every tag,
 * and so every speed, is uniform along it: a point part-way along costs that fraction of it.
 */
export interface RoadNetwork {
  nodeCount: number;
  nodeLng: Float64Array;
  nodeLat: Float64Array;
  segmentCount: number;
  segmentFrom: Int32Array;
  segmentTo: Int32Array;
  /** Meters along the geometry (haversine per vertex pair). */
  segmentLength: Float64Array;
  segmentWay: Int32Array;
  /** Segment s's vertices are geometry[2*geometryStart[s] .. 2*geometryStart[s+1]) as lng, lat pairs. */
  geometryStart: Int32Array;
  geometry: Float64Array;
  /** OSM way ids ("way/123") and tags, by way index. */
  wayIds: string[];
  wayTags: WayTags[];
  bbox: BBox;
}

const EARTH_RADIUS_M = 6_371_008.8;

/** Meters per degree of latitude (and of longitude at the equator) of the local projections. */
export const METERS_PER_DEGREE = 111_320;

/**
 * A local equirectangular projection in meters around a latitude: over a city, straight-line
 * lengths in it are meters to a fraction of a percent (simplification tolerances, hull lengths, grids).
 */
export function localProjection(lat: number) {
  const ky = METERS_PER_DEGREE;
  const kx = ky * Math.cos((lat * Math.PI) / 180);
  return {
    /** Meters per degree of longitude and of latitude. */
    kx,
    ky,
    forward: ([lng, lat]: readonly number[]): [number, number] => [lng * kx, lat * ky],
    inverse: ([x, y]: readonly number[]): [number, number] => [x / kx, y / ky],
  };
}

/** Great-circle distance in meters (mean Earth radius, IUGG). */
export function haversineMeters(lng1: number, lat1: number, lng2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

interface GeoJsonWay {
  id?: string;
  properties?: Record<string, unknown>;
  geometry?: { type: string; coordinates: unknown };
}

/** Ways no profile routes on: not built yet, or not a way at all. Areas (polygons) are skipped too. */
const UNROUTABLE_HIGHWAYS = new Set(["construction", "proposed", "platform", "abandoned", "razed", "bus_stop", "elevator"]);

/** Splits the export's LineString ways at junctions into a segment graph. */
export function buildRoadNetwork(source: { features: GeoJsonWay[] }): RoadNetwork {
  const ways: { id: string; tags: WayTags; coords: number[][] }[] = [];
  for (const feature of source.features) {
    if (feature.geometry?.type !== "LineString") continue;
    const props = feature.properties ?? {};
    const highway = props.highway;
    if (typeof highway !== "string" || UNROUTABLE_HIGHWAYS.has(highway)) continue;
    if (props.area === "yes") continue;
    const coords = feature.geometry.coordinates as number[][];
    if (coords.length < 2) continue;
    const tags: WayTags = {};
    for (const [k, v] of Object.entries(props)) if (k !== "@id" && v != null) tags[k] = String(v);
    ways.push({ id: String(props["@id"] ?? feature.id ?? ""), tags, coords });
  }

  // OSM nodes are shared by exact coordinates in the export: a vertex used twice is a junction.
  const key = (c: number[]) => `${c[0]},${c[1]}`;
  const uses = new Map<string, number>();
  for (const way of ways) {
    way.coords.forEach((c, i) => {
      const k = key(c);
      const ends = i === 0 || i === way.coords.length - 1 ? 2 : 1;
      uses.set(k, (uses.get(k) ?? 0) + ends);
    });
  }
  const nodeIndex = new Map<string, number>();
  const lng: number[] = [];
  const lat: number[] = [];
  const nodeOf = (c: number[]) => {
    const k = key(c);
    let id = nodeIndex.get(k);
    if (id === undefined) {
      id = lng.length;
      nodeIndex.set(k, id);
      lng.push(c[0]);
      lat.push(c[1]);
    }
    return id;
  };

  const from: number[] = [];
  const to: number[] = [];
  const length: number[] = [];
  const wayOf: number[] = [];
  const geometryStart: number[] = [];
  const geometry: number[] = [];
  ways.forEach((way, w) => {
    let start = 0;
    for (let i = 1; i < way.coords.length; i++) {
      if (i < way.coords.length - 1 && (uses.get(key(way.coords[i])) ?? 0) < 2) continue;
      const a = nodeOf(way.coords[start]);
      const b = nodeOf(way.coords[i]);
      if (a !== b) {
        let meters = 0;
        geometryStart.push(geometry.length / 2);
        for (let j = start; j <= i; j++) {
          const c = way.coords[j];
          geometry.push(c[0], c[1]);
          if (j > start) meters += haversineMeters(way.coords[j - 1][0], way.coords[j - 1][1], c[0], c[1]);
        }
        from.push(a);
        to.push(b);
        length.push(meters);
        wayOf.push(w);
      }
      start = i;
    }
  });
  geometryStart.push(geometry.length / 2);

  let minLng = Infinity,
    minLat = Infinity,
    maxLng = -Infinity,
    maxLat = -Infinity;
  for (let i = 0; i < lng.length; i++) {
    minLng = Math.min(minLng, lng[i]);
    maxLng = Math.max(maxLng, lng[i]);
    minLat = Math.min(minLat, lat[i]);
    maxLat = Math.max(maxLat, lat[i]);
  }
  for (let i = 0; i < geometry.length; i += 2) {
    minLng = Math.min(minLng, geometry[i]);
    maxLng = Math.max(maxLng, geometry[i]);
    minLat = Math.min(minLat, geometry[i + 1]);
    maxLat = Math.max(maxLat, geometry[i + 1]);
  }
  return {
    nodeCount: lng.length,
    nodeLng: Float64Array.from(lng),
    nodeLat: Float64Array.from(lat),
    segmentCount: from.length,
    segmentFrom: Int32Array.from(from),
    segmentTo: Int32Array.from(to),
    segmentLength: Float64Array.from(length),
    segmentWay: Int32Array.from(wayOf),
    geometryStart: Int32Array.from(geometryStart),
    geometry: Float64Array.from(geometry),
    wayIds: ways.map((w) => w.id),
    wayTags: ways.map((w) => w.tags),
    bbox: [minLng, minLat, maxLng, maxLat],
  };
}

const TYPED_FIELDS = ["nodeLng", "nodeLat", "segmentFrom", "segmentTo", "segmentLength", "segmentWay", "geometryStart", "geometry"] as const;
type TypedField = (typeof TYPED_FIELDS)[number];

/** Cache file layout: a JSON header line, then each typed array's bytes in TYPED_FIELDS order. */
function serialize(network: RoadNetwork, sourceSha256: string, graphVersion: number): Buffer {
  const header = {
    graphVersion,
    sourceSha256,
    nodeCount: network.nodeCount,
    segmentCount: network.segmentCount,
    wayIds: network.wayIds,
    wayTags: network.wayTags,
    bbox: network.bbox,
    arrays: TYPED_FIELDS.map((f) => ({ field: f, type: network[f].constructor.name, length: network[f].length })),
  };
  const head = Buffer.from(JSON.stringify(header) + "\n");
  // Typed arrays start 8-byte aligned so they can be viewed in place when read back.
  const pad = (8 - (head.length % 8)) % 8;
  const parts: Buffer[] = [head, Buffer.alloc(pad, 0x20)];
  for (const f of TYPED_FIELDS) {
    const a = network[f];
    parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    const tail = (8 - (a.byteLength % 8)) % 8;
    if (tail) parts.push(Buffer.alloc(tail));
  }
  return Buffer.concat(parts);
}

function deserialize(file: Buffer): { network: RoadNetwork; sourceSha256: string; graphVersion: number } {
  const newline = file.indexOf(0x0a);
  const header = JSON.parse(file.subarray(0, newline).toString("utf8"));
  let offset = newline + 1;
  offset += (8 - (offset % 8)) % 8;
  const copy = new Uint8Array(file.byteLength - offset);
  copy.set(file.subarray(offset));
  let at = 0;
  const arrays = {} as Record<TypedField, Float64Array | Int32Array>;
  for (const { field, type, length } of header.arrays as { field: TypedField; type: string; length: number }[]) {
    const Ctor = type === "Int32Array" ? Int32Array : Float64Array;
    arrays[field] = new Ctor(copy.buffer, at, length);
    at += length * Ctor.BYTES_PER_ELEMENT;
    at += (8 - (at % 8)) % 8;
  }
  return {
    graphVersion: header.graphVersion,
    sourceSha256: header.sourceSha256,
    network: {
      nodeCount: header.nodeCount,
      segmentCount: header.segmentCount,
      wayIds: header.wayIds,
      wayTags: header.wayTags,
      bbox: header.bbox,
      ...(arrays as unknown as Pick<RoadNetwork, TypedField>),
    } as RoadNetwork,
  };
}

export interface LoadRoadNetworkOptions {
  /** Where the prepared graph is cached (the service's DATA_DIR). */
  dataDir: string;
  /** The GeoJSON export; the shipped Gothenburg one by default. */
  sourcePath?: string;
  /** For tests of the cache: the code's graph version (GRAPH_VERSION by default). */
  graphVersion?: number;
}

export interface LoadedRoadNetwork {
  network: RoadNetwork;
  /** Identifies this graph (source hash + graph version): derived caches (CH) key on it. */
  cacheKey: string;
  cachePath: string;
  /** "built" when the cache was missing or stale, "cache" when read back. */
  from: "built" | "cache";
  millis: number;
}

/** The network from DATA_DIR's cache when it matches the source and GRAPH_VERSION, else built and cached. */
export function loadRoadNetwork(options: LoadRoadNetworkOptions): LoadedRoadNetwork {
  const started = performance.now();
  const sourcePath = options.sourcePath ?? defaultSourcePath();
  const graphVersion = options.graphVersion ?? GRAPH_VERSION;
  const sourceBytes = readFileSync(sourcePath);
  const sourceSha256 = createHash("sha256").update(sourceBytes).digest("hex");
  const cacheKey = `${sourceSha256.slice(0, 16)}-v${graphVersion}`;
  const dir = path.join(options.dataDir, "route-planning");
  const cachePath = path.join(dir, `road-network-${cacheKey}.bin`);
  if (existsSync(cachePath)) {
    const cached = deserialize(readFileSync(cachePath));
    if (cached.sourceSha256 === sourceSha256 && cached.graphVersion === graphVersion) {
      return { network: cached.network, cacheKey, cachePath, from: "cache", millis: performance.now() - started };
    }
  }
  const network = buildRoadNetwork(JSON.parse(sourceBytes.toString("utf8")));
  mkdirSync(dir, { recursive: true });
  // Stale graphs (and what was derived from them) go: the key changed, so nothing reads them again.
  for (const name of readdirSync(dir)) if (!name.includes(cacheKey)) rmSync(path.join(dir, name), { force: true });
  const tmp = `${cachePath}.${process.pid}.tmp`;
  writeFileSync(tmp, serialize(network, sourceSha256, graphVersion));
  renameSync(tmp, cachePath);
  return { network, cacheKey, cachePath, from: "built", millis: performance.now() - started };
}
