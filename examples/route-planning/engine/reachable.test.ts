// engine.reachable on the real Gothenburg network: node costs equal a plain Dijkstra to each node,
// the areas count exactly the nodes within each limit, distance limits respect straight-line
// geometry, and restrictions (profile, vehicle dimensions, traffic, one-way) change what is reached.
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SearchEndpoint } from "./contraction-hierarchy.ts";
import { buildAdjacency, computeEdgeCosts, dijkstra } from "./edge-costs.ts";
import { OutsideCoverageError, RouteEngine, type SnappedPoint } from "./index.ts";
import { effectiveDimensions } from "./profiles.ts";
import { haversineMeters } from "./road-network.ts";
import { segmentGeometry } from "./snap.ts";
import type { EdgeCosts } from "./edge-costs.ts";

let engine: RouteEngine;
const brunnsparken: [number, number] = [11.9686, 57.7066];

beforeAll(() => {
  engine = new RouteEngine({ dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test") });
}, 180_000);

/** Leaving a snapped point in each allowed direction, as the test's own oracle computes it. */
function departures(p: SnappedPoint, costs: EdgeCosts): SearchEndpoint[] {
  const net = engine.network;
  const s = p.segment;
  const out: SearchEndpoint[] = [];
  if (costs.weight[2 * s] < Infinity) out.push({ node: net.segmentTo[s], weight: (1 - p.fraction) * costs.weight[2 * s], distance: 0, duration: 0 });
  if (costs.weight[2 * s + 1] < Infinity) out.push({ node: net.segmentFrom[s], weight: p.fraction * costs.weight[2 * s + 1], distance: 0, duration: 0 });
  return out;
}

const within = (cost: Float64Array, limit: number) => cost.reduce((n, c) => n + (c <= limit ? 1 : 0), 0);

describe("reachable", () => {
  it("car, 5 and 10 minutes: node costs equal plain Dijkstra, areas count the nodes within each limit", () => {
    const r = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [300, 600] });
    const costs = computeEdgeCosts(engine.network, { profile: "car", metric: "time", dimensions: effectiveDimensions("car", undefined) });
    expect(r.center.segment).toBeGreaterThanOrEqual(0);
    expect(r.areas.map((a) => a.limit)).toEqual([300, 600]);
    expect(r.areas[0].nodes).toBe(within(r.nodeCost, 300));
    expect(r.areas[1].nodes).toBe(within(r.nodeCost, 600));
    expect(r.areas[0].nodes).toBeGreaterThan(500);
    expect(r.areas[1].nodes).toBeGreaterThan(r.areas[0].nodes);
    expect(r.areas[1].points.length).toBeGreaterThan(r.areas[0].points.length);
    // Every node's cost against a Dijkstra to that node alone: the reached ones and a sample of the rest.
    const adjacency = buildAdjacency(engine.network);
    const reached = [...r.nodeCost.keys()].filter((n) => r.nodeCost[n] <= 600);
    const sample = reached.filter((_, i) => i % 40 === 0);
    const beyond = [...r.nodeCost.keys()].filter((n) => r.nodeCost[n] === Infinity).filter((_, i) => i % 400 === 0);
    const oracle = dijkstra(
      engine.network,
      adjacency,
      costs,
      departures(r.center, costs),
      [...sample, ...beyond].map((node) => [{ node, weight: 0, distance: 0, duration: 0 }]),
    );
    sample.forEach((node, i) => expect(oracle[i]!.weight, `node ${node}`).toBeCloseTo(r.nodeCost[node], 6));
    beyond.forEach((node, i) => expect(oracle[sample.length + i]?.weight ?? Infinity, `node ${node}`).toBeGreaterThan(600));
    expect(sample.length).toBeGreaterThan(100);
    expect(beyond.length).toBeGreaterThan(10);
  });

  it("distance: nothing reached lies farther in a straight line than the limit allows", () => {
    const r = engine.reachable(brunnsparken, { profile: "car", metric: "distance", limits: [1000, 2000] });
    const [lng, lat] = r.center.location;
    for (const area of r.areas) {
      // Grid thinning moves a point by at most a 20 m cell's diagonal.
      for (const [x, y] of area.points) expect(haversineMeters(lng, lat, x, y)).toBeLessThanOrEqual(area.limit + 30);
      const far = Math.max(...area.points.map(([x, y]) => haversineMeters(lng, lat, x, y)));
      expect(far).toBeGreaterThan(area.limit * 0.5);
    }
    for (let n = 0; n < engine.network.nodeCount; n++)
      if (r.nodeCost[n] <= 2000) expect(haversineMeters(lng, lat, engine.network.nodeLng[n], engine.network.nodeLat[n])).toBeLessThanOrEqual(2000 + 1e-6);
  });

  it("a limit shorter than the first segment ends on it, at the crossing point", () => {
    const r = engine.reachable(brunnsparken, { profile: "car", metric: "distance", limits: [3], gridMeters: 0 });
    expect(r.areas[0].nodes).toBeLessThanOrEqual(1);
    const [lng, lat] = r.center.location;
    const far = Math.max(...r.areas[0].points.map(([x, y]) => haversineMeters(lng, lat, x, y)));
    expect(far).toBeGreaterThan(2.5);
    expect(far).toBeLessThanOrEqual(3.01);
  });

  it("gridMeters thins the points; 0 keeps every vertex", () => {
    const all = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [300], gridMeters: 0 });
    const thin = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [300], gridMeters: 50 });
    expect(thin.areas[0].points.length).toBeLessThan(all.areas[0].points.length / 2);
    expect(thin.areas[0].nodes).toBe(all.areas[0].nodes);
  });

  it("restrictions: a truck reaches less than a car, a tall hazmat truck never more than a truck", () => {
    const car = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [600] });
    const truck = engine.reachable(brunnsparken, { profile: "truck", metric: "time", limits: [600] });
    const tall = engine.reachable(brunnsparken, { profile: "truck", metric: "time", limits: [600], vehicle: { height_meters: 4.2, hazardous_goods: true } });
    expect(truck.areas[0].nodes).toBeLessThan(car.areas[0].nodes);
    let later = 0;
    for (let n = 0; n < engine.network.nodeCount; n++) {
      // Closing ways never makes a node cheaper to reach.
      if (tall.nodeCost[n] < Infinity) expect(tall.nodeCost[n]).toBeGreaterThanOrEqual(truck.nodeCost[n] - 1e-9);
      if (tall.nodeCost[n] > truck.nodeCost[n] + 1) later++;
    }
    expect(later).toBeGreaterThan(0);
  });

  it("traffic: a morning-peak departure reaches fewer nodes than a night one", () => {
    const night = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [600], traffic: true, departure: new Date("2026-07-10T01:00:00Z") });
    const peak = engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [600], traffic: true, departure: new Date("2026-07-10T06:30:00Z") });
    expect(night.trafficBand).toBe("night");
    expect(peak.trafficBand).toBe("morning_peak");
    expect(peak.areas[0].nodes).toBeLessThan(night.areas[0].nodes);
  });

  it("one-way: starting on a one-way street leaves only in its direction", () => {
    const net = engine.network;
    const s = net.segmentWay.findIndex((w) => net.wayIds[w] === "way/4275941");
    expect(net.wayTags[net.segmentWay[s]]).toMatchObject({ highway: "residential", oneway: "yes" });
    const length = net.segmentLength[s];
    const r = engine.reachable(segmentGeometry(net, s, 0.5, 0.5)[0], { profile: "car", metric: "distance", limits: [length, 5000] });
    expect(r.center.segment).toBe(s);
    expect(r.nodeCost[net.segmentTo[s]]).toBeCloseTo(0.5 * length, 3);
    // The first node is behind the car: reaching it means driving round the block.
    expect(r.nodeCost[net.segmentFrom[s]]).toBeGreaterThan(length);
    expect(r.nodeCost[net.segmentFrom[s]]).toBeLessThan(5000);
  });

  it("refuses a center outside the coverage box and limits that are not positive", () => {
    expect(() => engine.reachable([18.07, 59.33], { profile: "car", metric: "time", limits: [600] })).toThrow(OutsideCoverageError);
    expect(() => engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [0] })).toThrow(RangeError);
    expect(() => engine.reachable(brunnsparken, { profile: "car", metric: "time", limits: [] })).toThrow(RangeError);
  });
});
