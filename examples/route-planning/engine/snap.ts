// Snapping a coordinate to the nearest routable EDGE (not vertex): a flatbush index over every
// vertex pair of every segment, in a local equirectangular projection so box distances rank
// like meters; the point is projected onto the segment piece and located by its fraction of length.
import Flatbush from "flatbush";
import { type BBox, type RoadNetwork, haversineMeters } from "./road-network.ts";

/** A point outside the network's bounding box: the caller answers 422 naming the box. */
export class OutsideCoverageError extends Error {
  readonly code = "outside_coverage";
  constructor(
    readonly field: string,
    readonly point: [number, number],
    readonly bbox: BBox,
  ) {
    super(`${field} [${point[0]}, ${point[1]}] is outside the covered area [${bbox.join(", ")}] ([minLng, minLat, maxLng, maxLat])`);
  }
}

/** No road this vehicle may use within maxSnapMeters of the point (water, a park, a closed area). */
export class NoRoadNearbyError extends Error {
  readonly code = "no_road_nearby";
  constructor(
    readonly field: string,
    readonly point: [number, number],
    readonly maxSnapMeters: number,
  ) {
    super(`${field} [${point[0]}, ${point[1]}] has no road this vehicle may use within ${maxSnapMeters} m`);
  }
}

/** A coordinate that is not a finite longitude/latitude pair. */
export class InvalidCoordinateError extends Error {
  readonly code = "invalid_coordinate";
  constructor(
    readonly field: string,
    readonly point: unknown,
  ) {
    super(`${field} must be [lng, lat] with lng in [-180, 180] and lat in [-90, 90]`);
  }
}

/** Where a point lies on the network. */
export interface SnappedPoint {
  /** The input, [lng, lat]. */
  input: [number, number];
  /** The nearest point on a routable segment, [lng, lat]. */
  location: [number, number];
  /** Meters from the input to the location. */
  distance: number;
  segment: number;
  /** Fraction of the segment's length from its first node to the location (0..1). */
  fraction: number;
}

export class SnapIndex {
  private readonly index: Flatbush;
  private readonly pieceSegment: Int32Array;
  private readonly pieceVertex: Int32Array;
  private readonly scale: number;

  constructor(private readonly network: RoadNetwork) {
    const { geometryStart, geometry } = network;
    this.scale = Math.cos((((network.bbox[1] + network.bbox[3]) / 2) * Math.PI) / 180);
    let pieces = 0;
    for (let s = 0; s < network.segmentCount; s++) pieces += geometryStart[s + 1] - geometryStart[s] - 1;
    this.index = new Flatbush(pieces);
    this.pieceSegment = new Int32Array(pieces);
    this.pieceVertex = new Int32Array(pieces);
    let p = 0;
    for (let s = 0; s < network.segmentCount; s++) {
      for (let k = geometryStart[s]; k < geometryStart[s + 1] - 1; k++) {
        const x0 = geometry[2 * k] * this.scale,
          y0 = geometry[2 * k + 1];
        const x1 = geometry[2 * k + 2] * this.scale,
          y1 = geometry[2 * k + 3];
        this.index.add(Math.min(x0, x1), Math.min(y0, y1), Math.max(x0, x1), Math.max(y0, y1));
        this.pieceSegment[p] = s;
        this.pieceVertex[p++] = k;
      }
    }
    this.index.finish();
  }

  /** Projected distance² from (x, y) to piece p, and where along it (0..1) the foot lies. */
  private project(p: number, x: number, y: number): { d2: number; t: number } {
    const g = this.network.geometry;
    const k = this.pieceVertex[p];
    const x0 = g[2 * k] * this.scale,
      y0 = g[2 * k + 1];
    const dx = g[2 * k + 2] * this.scale - x0,
      dy = g[2 * k + 3] - y0;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / len2));
    const fx = x0 + t * dx - x,
      fy = y0 + t * dy - y;
    return { d2: fx * fx + fy * fy, t };
  }

  /**
   * The nearest point on a segment `usable(segment)` accepts. Throws OutsideCoverageError outside
   * the bbox, NoRoadNearbyError when nothing usable is within maxSnapMeters.
   */
  snap(point: [number, number], usable: (segment: number) => boolean, field: string, maxSnapMeters = 1000): SnappedPoint {
    const [lng, lat] = point;
    if (!Number.isFinite(lng) || !Number.isFinite(lat) || Math.abs(lng) > 180 || Math.abs(lat) > 90) throw new InvalidCoordinateError(field, point);
    const bbox = this.network.bbox;
    if (lng < bbox[0] || lng > bbox[2] || lat < bbox[1] || lat > bbox[3]) throw new OutsideCoverageError(field, point, bbox);
    const x = lng * this.scale,
      y = lat;
    const filter = (p: number) => usable(this.pieceSegment[p]);
    const first = this.index.neighbors(x, y, 1, Infinity, filter);
    if (!first.length) throw new NoRoadNearbyError(field, point, maxSnapMeters);
    // Box distance is a lower bound of the piece's distance: every piece that might be nearer is within it.
    let best = first[0];
    let bestHit = this.project(best, x, y);
    for (const p of this.index.neighbors(x, y, Infinity, Math.sqrt(bestHit.d2), filter)) {
      const hit = this.project(p, x, y);
      if (hit.d2 < bestHit.d2 || (hit.d2 === bestHit.d2 && p < best)) {
        best = p;
        bestHit = hit;
      }
    }
    const g = this.network.geometry;
    const s = this.pieceSegment[best];
    const k = this.pieceVertex[best];
    const location: [number, number] = [g[2 * k] + bestHit.t * (g[2 * k + 2] - g[2 * k]), g[2 * k + 1] + bestHit.t * (g[2 * k + 3] - g[2 * k + 1])];
    const distance = haversineMeters(lng, lat, location[0], location[1]);
    if (distance > maxSnapMeters) throw new NoRoadNearbyError(field, point, maxSnapMeters);
    let along = 0;
    for (let j = this.network.geometryStart[s]; j < k; j++) along += haversineMeters(g[2 * j], g[2 * j + 1], g[2 * j + 2], g[2 * j + 3]);
    along += haversineMeters(g[2 * k], g[2 * k + 1], location[0], location[1]);
    const total = this.network.segmentLength[s];
    return { input: [lng, lat], location, distance, segment: s, fraction: total > 0 ? Math.min(1, along / total) : 0 };
  }
}

/** The vertices of segment s between two fractions of its length, in the direction of travel. */
export function segmentGeometry(network: RoadNetwork, s: number, fromFraction: number, toFraction: number): [number, number][] {
  const g = network.geometry;
  const first = network.geometryStart[s];
  const last = network.geometryStart[s + 1] - 1;
  const total = network.segmentLength[s];
  const lo = Math.min(fromFraction, toFraction) * total;
  const hi = Math.max(fromFraction, toFraction) * total;
  const out: [number, number][] = [];
  let along = 0;
  const at = (k: number, meters: number, piece: number): [number, number] => {
    const t = piece > 0 ? (meters - along) / piece : 0;
    return [g[2 * k] + t * (g[2 * k + 2] - g[2 * k]), g[2 * k + 1] + t * (g[2 * k + 3] - g[2 * k + 1])];
  };
  for (let k = first; k < last; k++) {
    const piece = haversineMeters(g[2 * k], g[2 * k + 1], g[2 * k + 2], g[2 * k + 3]);
    const end = along + piece;
    if (!out.length && lo <= end) out.push(lo <= along ? [g[2 * k], g[2 * k + 1]] : at(k, lo, piece));
    if (out.length) {
      if (hi <= end) {
        out.push(at(k, hi, piece));
        break;
      }
      out.push([g[2 * k + 2], g[2 * k + 3]]);
    }
    along = end;
  }
  if (out.length === 1) out.push(out[0]);
  return fromFraction <= toFraction ? out : out.reverse();
}
