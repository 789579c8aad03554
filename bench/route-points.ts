// Reproducible inputs for the route-planning benchmarks: seeded random numbers and points near
// roads a profile may use, spread over the whole network.
import type { Profile, RouteEngine } from "@/examples/route-planning/engine/index.ts";
import { seededRandom } from "@/examples/shared/seeded-random.ts";

/** The examples' seeded generator (mulberry32): the same seed gives the same points on every run. */
export const random = seededRandom;

/** [lng, lat] points within a few tens of meters of roads the profile may use. */
export function pointsNearRoads(engine: RouteEngine, profile: Profile, count: number, seed: number): [number, number][] {
  const rnd = random(seed);
  const { costs } = engine.hierarchy(profile, "time");
  const net = engine.network;
  const out: [number, number][] = [];
  while (out.length < count) {
    const s = Math.floor(rnd() * net.segmentCount);
    if (!(costs.weight[2 * s] < Infinity || costs.weight[2 * s + 1] < Infinity)) continue;
    const k = net.geometryStart[s];
    out.push([net.geometry[2 * k] + (rnd() - 0.5) * 0.0004, net.geometry[2 * k + 1] + (rnd() - 0.5) * 0.0002]);
  }
  return out;
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
export const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 0)} ms`;

/**
 * Like pointsNearRoads, but only points a vehicle can both reach from and return to the city centre
 * (Brunnsparken): a tour through them always exists, as a real delivery list's would.
 */
export function connectedPoints(engine: RouteEngine, profile: Profile, count: number, seed: number): [number, number][] {
  const centre: [number, number] = [11.9686, 57.7066];
  const candidates = pointsNearRoads(engine, profile, count * 2, seed);
  const out = engine.matrix(candidates, [centre], { profile }).durations;
  const back = engine.matrix([centre], candidates, { profile }).durations[0];
  const kept = candidates.filter((_, i) => out[i][0] !== null && back[i] !== null);
  if (kept.length < count) throw new Error(`only ${kept.length} of ${candidates.length} points connect to the centre`);
  return kept.slice(0, count);
}
