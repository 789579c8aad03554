// The travel matrix the optimizers work on: every stop and depot to every other, for one vehicle
// profile, with the engine's snap errors renamed to the request field they came from. The fleet
// operation may tolerate points a profile cannot reach at all (their rows become null).
import { NoRoadNearbyError, type RouteEngine, type SnappedPoint, type TravelOptions } from "../engine/index.ts";
import { type Point, RequestError, lngLat, requestErrorFrom } from "./common.ts";

/** A point and the request field that named it (`stops[3]`, `vehicles[1].start`, `start`). */
export interface FieldPoint {
  point: Point;
  field: string;
}

export interface StopMatrix {
  /** What the optimizer minimises: seconds for time, meters for distance, millilitres for fuel. */
  cost: (number | null)[][];
  /** Seconds (arrival times). */
  duration: (number | null)[][];
  distance: (number | null)[][];
  /** Where each point snapped, or null when this profile has no road near it (tolerated only). */
  snapped: (SnappedPoint | null)[];
}

/**
 * The matrix over `points` for `options`. Snap errors become RequestErrors naming the point's
 * field; with `tolerateNoRoad` a point without a usable road is left out (null row and column).
 */
export function stopMatrix(engine: RouteEngine, points: FieldPoint[], options: TravelOptions, tolerateNoRoad = false): StopMatrix {
  const coordinates = points.map((p) => lngLat(p.point));
  try {
    return fromEngine(engine.matrix(coordinates, coordinates, options), options);
  } catch (err) {
    if (!(err instanceof NoRoadNearbyError) || !tolerateNoRoad) throw renamed(err, points);
  }
  // Some point has no road for this profile: find which, and leave those out.
  const usable: number[] = [];
  for (const [i, p] of coordinates.entries()) {
    try {
      engine.snap(p, options, points[i].field);
      usable.push(i);
    } catch (err) {
      if (!(err instanceof NoRoadNearbyError)) throw renamed(err, points);
    }
  }
  const size = points.length;
  const empty = () => Array.from({ length: size }, () => new Array<number | null>(size).fill(null));
  const out: StopMatrix = { cost: empty(), duration: empty(), distance: empty(), snapped: new Array(size).fill(null) };
  if (!usable.length) return out;
  const inner = fromEngine(
    engine.matrix(
      usable.map((i) => coordinates[i]),
      usable.map((i) => coordinates[i]),
      options,
    ),
    options,
  );
  for (const [a, i] of usable.entries()) {
    out.snapped[i] = inner.snapped[a];
    for (const [b, j] of usable.entries()) {
      out.cost[i][j] = inner.cost[a][b];
      out.duration[i][j] = inner.duration[a][b];
      out.distance[i][j] = inner.distance[a][b];
    }
  }
  return out;
}

function fromEngine(m: ReturnType<RouteEngine["matrix"]>, options: TravelOptions): StopMatrix {
  // Fuel: the engine's weights are the millilitres of the fuel-minimising paths (U-turns included).
  const metric = options.optimizeFor ?? "time";
  const cost = metric === "time" ? m.durations : metric === "fuel" ? m.weights : m.distances;
  return { cost, duration: m.durations, distance: m.distances, snapped: m.sources };
}

/** The engine names `sources[i]`/`targets[i]`/`waypoints[i]`; the client sent `stops[i]` or `start`. */
export function renamed(err: unknown, points: FieldPoint[]): unknown {
  const request = requestErrorFrom(err);
  if (!request) return err;
  const index = /^(?:sources|targets|waypoints)\[(\d+)\]$/.exec(request.field ?? "")?.[1];
  if (index === undefined) return request;
  const field = points[Number(index)]?.field ?? request.field;
  return new RequestError(request.status, request.code, request.message.replace(request.field!, field), field, request.details);
}
