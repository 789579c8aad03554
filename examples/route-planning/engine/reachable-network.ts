// The road network reachable within a limit, as points for a hull: the nodes whose cost is within
// it, every vertex of the segments travelled whole, and the point where each edge leaving the
// reachable set crosses the limit (interpolated along the segment's geometry), so a hull of them
// hugs the roads. Segment vertices are thinned on a metric grid (one per cell); nodes and crossing
// points are all kept.
import type { Adjacency, EdgeCosts } from "./edge-costs.ts";
import type { RoadNetwork } from "./road-network.ts";
import { type SnappedPoint, segmentGeometry } from "./snap.ts";
import { localProjection } from "./road-network.ts";

/** Collects [lng, lat] points, thinning to one per cell of a grid `cellMeters` wide (0: all) unless told to keep one. */
class ThinnedPoints {
  readonly points: [number, number][] = [];
  private readonly occupied: Uint8Array | undefined;
  private readonly kx: number;
  private readonly ky: number;
  private readonly columns: number;

  constructor(
    private readonly bbox: [number, number, number, number],
    cellMeters: number,
  ) {
    const { kx, ky } = localProjection((bbox[1] + bbox[3]) / 2);
    this.kx = cellMeters > 0 ? kx / cellMeters : 0;
    this.ky = cellMeters > 0 ? ky / cellMeters : 0;
    this.columns = Math.ceil((bbox[2] - bbox[0]) * this.kx) + 1;
    const rows = Math.ceil((bbox[3] - bbox[1]) * this.ky) + 1;
    // A bitmap over the coverage box: at 20 m about 450,000 cells, cheaper than hashing each vertex.
    this.occupied = cellMeters > 0 ? new Uint8Array(this.columns * rows) : undefined;
  }

  /** Adds a point unless its cell holds one already; `keep` adds it anyway (and marks the cell). */
  add(lng: number, lat: number, keep = false) {
    if (this.occupied) {
      const cell = Math.floor((lng - this.bbox[0]) * this.kx) + this.columns * Math.floor((lat - this.bbox[1]) * this.ky);
      if (this.occupied[cell] && !keep) return;
      this.occupied[cell] = 1;
    }
    this.points.push([lng, lat]);
  }
}

/** A departure from the center: toward the segment's last node (0) or its first (1), and its cost. */
export interface CenterDeparture {
  direction: 0 | 1;
  weight: number;
}

export interface ReachableNetwork {
  /** Nodes whose cost from the center is within the limit. */
  nodes: number;
  /** [lng, lat] of the reachable network, thinned to one per grid cell. */
  points: [number, number][];
}

/**
 * The network within `limit` of the center, given every node's cost (`nodeCost`, Infinity beyond
 * the search) and the center's departures along its own segment.
 */
export function reachableNetwork(
  network: RoadNetwork,
  adjacency: Adjacency,
  costs: EdgeCosts,
  center: SnappedPoint,
  departures: CenterDeparture[],
  nodeCost: Float64Array,
  limit: number,
  cellMeters: number,
): ReachableNetwork {
  const out = new ThinnedPoints(network.bbox, cellMeters);
  const g = network.geometry;
  // Nodes, the center and the crossing points are always kept (a hull of them then contains every
  // node exactly); the vertices in between only fill empty cells.
  const addPiece = (s: number, fromFraction: number, toFraction: number) => {
    const piece = segmentGeometry(network, s, fromFraction, toFraction);
    piece.forEach(([lng, lat], i) => out.add(lng, lat, i === piece.length - 1));
  };
  out.add(center.location[0], center.location[1], true);
  // The center's own segment: from the snapped point as far as the limit allows in each direction.
  const s0 = center.segment;
  for (const { direction } of departures) {
    const w = costs.weight[2 * s0 + direction];
    const share = w > 0 ? Math.min(1, limit / w) : 1;
    addPiece(s0, center.fraction, direction === 0 ? Math.min(1, center.fraction + share) : Math.max(0, center.fraction - share));
  }
  let nodes = 0;
  for (let u = 0; u < network.nodeCount; u++) {
    const d = nodeCost[u];
    if (!(d <= limit)) continue;
    nodes++;
    out.add(network.nodeLng[u], network.nodeLat[u], true);
    for (let i = adjacency.start[u]; i < adjacency.start[u + 1]; i++) {
      const e = adjacency.edge[i];
      const w = costs.weight[e];
      if (w === Infinity) continue;
      const s = e >> 1;
      if (d + w <= limit) {
        // Travelled whole: every vertex (the far node is added when its own turn comes).
        for (let k = network.geometryStart[s]; k < network.geometryStart[s + 1]; k++) out.add(g[2 * k], g[2 * k + 1]);
        continue;
      }
      // Crosses the limit part-way: the piece from u up to the crossing point.
      const share = (limit - d) / w;
      if (e & 1) addPiece(s, 1, 1 - share);
      else addPiece(s, 0, share);
    }
  }
  return { nodes, points: out.points };
}
