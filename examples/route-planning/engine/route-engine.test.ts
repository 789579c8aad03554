// The engine on the real Gothenburg OSM network: hierarchies agree with plain Dijkstra, matrices with
// pairwise routes, and the restrictions hold on real tagged ways (one-way streets, a roundabout, bike
// contraflow, a 3.4 m underpass, the hazmat-free Götatunneln). One engine for the whole file; its
// hierarchies are cached in the OS temp dir across runs (the cache itself: road-network.test.ts).
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { SearchEndpoint } from "./contraction-hierarchy.ts";
import { type EdgeCosts, buildAdjacency, computeEdgeCosts, dijkstra, dimensionTaggedWays, edgeHead, edgeTail, restrictForVehicle } from "./edge-costs.ts";
import { InvalidCoordinateError, NoRoadNearbyError, OutsideCoverageError, PROFILES, type Profile, RouteEngine, U_TURN_SECONDS } from "./index.ts";
import { effectiveDimensions } from "./profiles.ts";
import { segmentGeometry } from "./snap.ts";
import { seededRandom as random } from "../../shared/seeded-random.ts";

let engine: RouteEngine;
const dataDir = path.join(os.tmpdir(), "l402-hub-route-engine-test");

beforeAll(() => {
  engine = new RouteEngine({ dataDir, prepare: PROFILES.map((profile) => ({ profile })) });
}, 180_000);

const way = (osmId: string) => {
  const w = engine.network.wayIds.indexOf(osmId);
  expect(w, `${osmId} is in the export`).toBeGreaterThanOrEqual(0);
  return w;
};
const segmentsOf = (w: number) => [...engine.network.segmentWay.keys()].filter((s) => engine.network.segmentWay[s] === w);
const usable = (costs: EdgeCosts, s: number) => costs.weight[2 * s] < Infinity || costs.weight[2 * s + 1] < Infinity;
/** A point on segment s at a fraction of its length. */
const at = (s: number, fraction: number) => segmentGeometry(engine.network, s, fraction, fraction)[0];
const node = (n: number): [number, number] => [engine.network.nodeLng[n], engine.network.nodeLat[n]];

/** Random coordinates near roads the profile may use: a vertex of a usable segment, moved up to ~25 m. */
function randomPoints(profile: Profile, count: number, seed: number): [number, number][] {
  const rnd = random(seed);
  const costs = engine.hierarchy(profile, "time").costs;
  const net = engine.network;
  const out: [number, number][] = [];
  while (out.length < count) {
    const s = Math.floor(rnd() * net.segmentCount);
    if (!usable(costs, s)) continue;
    const k = net.geometryStart[s] + Math.floor(rnd() * (net.geometryStart[s + 1] - net.geometryStart[s]));
    out.push([net.geometry[2 * k] + (rnd() - 0.5) * 0.0008, net.geometry[2 * k + 1] + (rnd() - 0.5) * 0.0004]);
  }
  return out;
}

describe("the network", () => {
  it("is the real Gothenburg export, attributed", () => {
    expect(engine.network.wayIds.length).toBeGreaterThan(18_000);
    expect(engine.network.nodeCount).toBeGreaterThan(30_000);
    expect(engine.bbox[0]).toBeCloseTo(11.86, 2);
    expect(engine.bbox[3]).toBeCloseTo(57.76, 2);
    expect(engine.attribution).toBe("© OpenStreetMap contributors");
    expect(engine.coverage).toEqual({ bbox: engine.bbox, attribution: "© OpenStreetMap contributors", license: "ODbL-1.0" });
  });
});

describe("contraction hierarchies equal plain Dijkstra on the base graph", () => {
  for (const profile of PROFILES) {
    it(`${profile}: 300 random node pairs, weights and unpacked paths`, () => {
      const { costs, query } = engine.hierarchy(profile, "time");
      const adjacency = buildAdjacency(engine.network);
      const net = engine.network;
      const routable = new Set<number>();
      for (let e = 0; e < costs.weight.length; e++) if (costs.weight[e] < Infinity) routable.add(edgeTail(net, e));
      const nodes = [...routable];
      const rnd = random(PROFILES.indexOf(profile) + 7);
      const ep = (n: number): SearchEndpoint[] => [{ node: n, weight: 0, distance: 0, duration: 0 }];
      let reachable = 0;
      for (let i = 0; i < 300; i++) {
        const s = nodes[Math.floor(rnd() * nodes.length)];
        const t = nodes[Math.floor(rnd() * nodes.length)];
        const ch = query.shortestPath(ep(s), ep(t));
        const oracle = dijkstra(net, adjacency, costs, ep(s), [ep(t)])[0];
        expect(ch === null, `${s}→${t} reachable by one and not the other`).toBe(oracle === null);
        if (!ch || !oracle) continue;
        reachable++;
        expect(ch.weight).toBeCloseTo(oracle.weight, 6);
        // The unpacked path is a chain of usable base edges from s to t that adds up to the weight.
        let at = s,
          sum = 0,
          meters = 0;
        for (const e of ch.baseEdges) {
          expect(edgeTail(net, e)).toBe(at);
          sum += costs.weight[e];
          meters += costs.distance[e];
          at = edgeHead(net, e);
        }
        expect(at).toBe(t);
        expect(sum).toBeCloseTo(ch.weight, 6);
        expect(meters).toBeCloseTo(ch.distance, 6);
      }
      expect(reachable).toBeGreaterThan(200);
    });
  }

  it("car optimised for distance: 200 random pairs", () => {
    const { costs, query } = engine.hierarchy("car", "distance");
    const adjacency = buildAdjacency(engine.network);
    const rnd = random(99);
    const ep = (n: number): SearchEndpoint[] => [{ node: n, weight: 0, distance: 0, duration: 0 }];
    for (let i = 0; i < 200; i++) {
      const s = Math.floor(rnd() * engine.network.nodeCount);
      const t = Math.floor(rnd() * engine.network.nodeCount);
      const ch = query.shortestPath(ep(s), ep(t));
      const oracle = dijkstra(engine.network, adjacency, costs, ep(s), [ep(t)])[0];
      expect(ch?.weight ?? null).toEqual(oracle === null ? null : expect.closeTo(oracle.weight, 6));
      if (ch) expect(ch.distance).toBeCloseTo(ch.weight, 6);
    }
  });
});

describe("routes between coordinates", () => {
  for (const profile of PROFILES) {
    it(`${profile}: the hierarchy's route equals the restricted search's, snapped mid-edge, 60 random pairs`, () => {
      const points = randomPoints(profile, 120, 40 + PROFILES.indexOf(profile));
      for (let i = 0; i < 120; i += 2) {
        const pair = [points[i], points[i + 1]];
        const fast = engine.route(pair, { profile });
        const exact = engine.route(pair, { profile, search: "restricted" });
        expect(fast === null).toBe(exact === null);
        if (!fast || !exact) continue;
        expect(fast.method).toBe("hierarchy");
        expect(exact.method).toBe("restricted");
        expect(fast.weight).toBeCloseTo(exact.weight, 6);
        expect(fast.duration).toBeCloseTo(
          fast.edges.reduce((t, e) => t + e.duration, 0),
          6,
        );
        expect(fast.distance).toBeCloseTo(
          fast.edges.reduce((t, e) => t + e.distance, 0),
          6,
        );
        expect(fast.coordinates[0][0]).toBeCloseTo(fast.waypoints[0].location[0], 7);
        expect(fast.coordinates.at(-1)![1]).toBeCloseTo(fast.waypoints[1].location[1], 7);
      }
    });
  }

  it("multi-waypoint routes agree too, legs adding up", () => {
    const points = randomPoints("car", 40, 5);
    for (let i = 0; i < 40; i += 4) {
      const stops = points.slice(i, i + 4);
      const fast = engine.route(stops, { profile: "car" });
      const exact = engine.route(stops, { profile: "car", search: "restricted" });
      expect(fast?.weight ?? null).toEqual(exact ? expect.closeTo(exact.weight, 6) : null);
      if (fast) {
        expect(fast.legs).toHaveLength(3);
        expect(fast.duration).toBeCloseTo(
          fast.legs.reduce((t, l) => t + l.duration, 0),
          6,
        );
      }
    }
  });
});

describe("optimize_for", () => {
  it("distance-optimal routes are never longer, time-optimal ones never slower", () => {
    const points = randomPoints("car", 60, 123);
    let differ = 0;
    for (let i = 0; i < 60; i += 2) {
      const pair = [points[i], points[i + 1]];
      const fastest = engine.route(pair, { profile: "car", optimizeFor: "time" });
      const shortest = engine.route(pair, { profile: "car", optimizeFor: "distance" });
      expect(fastest === null).toBe(shortest === null);
      if (!fastest || !shortest) continue;
      expect(shortest.distance).toBeLessThanOrEqual(fastest.distance + 1e-6);
      expect(fastest.duration).toBeLessThanOrEqual(shortest.duration + 1e-6);
      expect(shortest.weight).toBeCloseTo(shortest.distance, 6);
      if (shortest.distance < fastest.distance - 1) differ++;
    }
    expect(differ).toBeGreaterThan(5);
  });
});

describe("matrix", () => {
  for (const profile of ["car", "bike"] as const) {
    it(`${profile}: 12×12 bucket many-to-many equals pairwise routes`, () => {
      const points = randomPoints(profile, 24, 300 + PROFILES.indexOf(profile));
      const sources = points.slice(0, 12);
      const targets = points.slice(12);
      const m = engine.matrix(sources, targets, { profile });
      expect(m.method).toBe("hierarchy");
      let found = 0;
      sources.forEach((s, i) =>
        targets.forEach((t, j) => {
          const r = engine.route([s, t], { profile });
          expect(m.durations[i][j] === null, `${i}→${j}`).toBe(r === null);
          if (!r) return;
          found++;
          expect(m.durations[i][j]).toBeCloseTo(r.duration, 6);
          expect(m.distances[i][j]).toBeCloseTo(r.distance, 4);
        }),
      );
      expect(found).toBeGreaterThan(100);
    });
  }

  it("restricted matrices (vehicle dimensions) equal pairwise restricted routes", () => {
    const points = randomPoints("truck", 10, 77);
    const vehicle = { height_meters: 4.2, hazardous_goods: true };
    const m = engine.matrix(points.slice(0, 5), points.slice(5), { profile: "truck", vehicle });
    expect(m.method).toBe("restricted");
    points.slice(0, 5).forEach((s, i) =>
      points.slice(5).forEach((t, j) => {
        const r = engine.route([s, t], { profile: "truck", vehicle });
        expect(m.durations[i][j]).toEqual(r ? expect.closeTo(r.duration, 6) : null);
      }),
    );
  });

  it("a point to itself is 0", () => {
    const [p] = randomPoints("car", 1, 3);
    const m = engine.matrix([p], [p], { profile: "car" });
    expect(m.distances[0][0]).toBe(0);
    expect(m.durations[0][0]).toBe(0);
  });
});

describe("one-way streets, roundabouts and contraflow on real ways", () => {
  it("Arsenalsgatan (oneway=yes): with the flow is the street itself, against it goes around", () => {
    const w = way("way/4275941");
    expect(engine.network.wayTags[w]).toMatchObject({ highway: "residential", oneway: "yes" });
    const [s] = segmentsOf(w);
    const length = engine.network.segmentLength[s];
    const a = at(s, 0.2),
      b = at(s, 0.8);
    const along = engine.route([a, b], { profile: "car" })!;
    expect(along.distance).toBeCloseTo(0.6 * length, 0);
    expect(along.edges).toEqual([expect.objectContaining({ segment: s, forward: true })]);
    const against = engine.route([b, a], { profile: "car" })!;
    expect(against.distance).toBeGreaterThan(length);
    expect(against.edges.filter((e) => e.segment === s && !e.forward)).toEqual([]);
    // The bike obeys it too: no contraflow is tagged here.
    expect(engine.route([b, a], { profile: "bike" })!.edges.filter((e) => e.segment === s && !e.forward)).toEqual([]);
  });

  it("oneway=-1 reverses the allowed direction (the same real way re-tagged)", () => {
    const w = way("way/4275941");
    const [s] = segmentsOf(w);
    const retagged = { ...engine.network, wayTags: engine.network.wayTags.map((t, i) => (i === w ? { ...t, oneway: "-1" } : t)) };
    const costs = computeEdgeCosts(retagged, { profile: "car", metric: "time", dimensions: {} });
    expect(costs.weight[2 * s]).toBe(Infinity);
    expect(costs.weight[2 * s + 1]).toBeLessThan(Infinity);
    const adjacency = buildAdjacency(retagged);
    const ep = (n: number): SearchEndpoint[] => [{ node: n, weight: 0, distance: 0, duration: 0 }];
    const from = engine.network.segmentFrom[s],
      to = engine.network.segmentTo[s];
    const backward = dijkstra(retagged, adjacency, costs, ep(to), [ep(from)])[0]!;
    expect(backward.baseEdges).toEqual([2 * s + 1]);
    // With the flow reversed the old way in is closed: the street's first node is left some other way, if at all.
    const forward = dijkstra(retagged, adjacency, costs, ep(from), [ep(to)])[0];
    expect(forward === null || !forward.baseEdges.includes(2 * s)).toBe(true);
    expect(dijkstra(engine.network, adjacency, engine.hierarchy("car", "time").costs, ep(from), [ep(to)])[0]!.baseEdges).toEqual([2 * s]);
  });

  it("a roundabout without a oneway tag is one-way (way/4272296)", () => {
    const w = way("way/4272296");
    expect(engine.network.wayTags[w]).toMatchObject({ junction: "roundabout" });
    expect(engine.network.wayTags[w].oneway).toBeUndefined();
    const { costs } = engine.hierarchy("car", "time");
    for (const s of segmentsOf(w)) {
      expect(costs.weight[2 * s]).toBeLessThan(Infinity);
      expect(costs.weight[2 * s + 1]).toBe(Infinity);
    }
  });

  it("bike contraflow where tagged (Andra Långgatan oneway:bicycle=no, Landsvägsgatan cycleway=opposite_lane)", () => {
    for (const id of ["way/4769136", "way/5012855"]) {
      const w = way(id);
      const s = segmentsOf(w).sort((x, y) => engine.network.segmentLength[y] - engine.network.segmentLength[x])[0];
      const a = at(s, 0.2),
        b = at(s, 0.8);
      const bike = engine.route([b, a], { profile: "bike" })!;
      expect(bike.edges, id).toEqual([expect.objectContaining({ segment: s, forward: false })]);
      const car = engine.route([b, a], { profile: "car" })!;
      expect(
        car.edges.filter((e) => e.segment === s && !e.forward),
        id,
      ).toEqual([]);
    }
  });
});

describe("vehicle dimensions on real tagged ways", () => {
  const uses = (edges: { way: number }[], w: number) => edges.some((e) => e.way === w);

  it("restricting the open costs for a vehicle equals computing its costs from scratch", () => {
    const ways = dimensionTaggedWays(engine.network);
    expect(ways.size).toBeGreaterThan(20);
    for (const profile of PROFILES) {
      const open = computeEdgeCosts(engine.network, { profile, metric: "time", dimensions: {} });
      for (const vehicle of [
        {},
        { height_meters: 3.5 },
        { weight_kg: 2000, hazardous_goods: true },
        { length_meters: 13, width_meters: 2.8, axle_load_kg: 4000 },
        effectiveDimensions(profile, undefined),
      ]) {
        const fast = restrictForVehicle(engine.network, open, vehicle, ways);
        const full = computeEdgeCosts(engine.network, { profile, metric: "time", dimensions: vehicle });
        // Compared element by element: a deep toEqual on 90,000-element arrays costs seconds.
        const differing = fast.weight.filter((w, e) => !Object.is(w, full.weight[e]) || !Object.is(fast.duration[e], full.duration[e])).length;
        expect(differing, `${profile} ${JSON.stringify(vehicle)}`).toBe(0);
        expect([...fast.closedByDimensions].sort()).toEqual([...full.closedByDimensions].sort());
      }
    }
  });

  it("Högsboleden's 3.4 m underpass (way/26676166): a car uses it, a 3.5 m vehicle never does", () => {
    const w = way("way/26676166");
    expect(engine.network.wayTags[w].maxheight).toBe("3.4");
    const [s] = segmentsOf(w);
    const start = node(engine.network.segmentFrom[s]);
    const end = node(engine.network.segmentTo[s]);
    const car = engine.route([start, end], { profile: "car" })!;
    expect(uses(car.edges, w)).toBe(true);
    // From here a 3.5 m car is trapped (the ramp leads only into the underpass): no route, not a wrong one.
    expect(engine.route([start, end], { profile: "car", vehicle: { height_meters: 3.5 } })).toBeNull();
    // A 3.3 m car fits under it (its search is the restricted one: lower ways close for it).
    const fits = engine.route([start, end], { profile: "car", vehicle: { height_meters: 3.3 } })!;
    expect(fits.method).toBe("restricted");
    expect(uses(fits.edges, w)).toBe(true);
    // The default truck (3.6 m) is closed out by its hierarchy already; a 3.0 m truck may pass.
    const truck = engine.route([start, end], { profile: "truck" });
    expect(truck === null || !uses(truck.edges, w)).toBe(true);
    const lowTruck = engine.route([start, end], { profile: "truck", vehicle: { height_meters: 3.0 } })!;
    expect(lowTruck.method).toBe("restricted");
    expect(uses(lowTruck.edges, w)).toBe(true);
  });

  it("Götatunneln (hazmat:E=no): a truck uses it, one with hazardous goods never does", () => {
    const w = way("way/117090878");
    expect(engine.network.wayTags[w]).toMatchObject({ name: "Götatunneln", "hazmat:E": "no", tunnel: "yes" });
    const [s] = segmentsOf(w);
    const start = at(s, 0.05),
      end = at(s, 0.95);
    const truck = engine.route([start, end], { profile: "truck" })!;
    expect(truck.edges).toEqual([expect.objectContaining({ way: w, forward: true })]);
    const hazmat = engine.route([start, end], { profile: "truck", vehicle: { hazardous_goods: true } });
    expect(hazmat === null || !uses(hazmat.edges, w)).toBe(true);
    expect(hazmat?.waypoints[0].segment).not.toBe(s);
  });

  it.each([
    ["truck", 4.0],
    ["van", 3.0],
    ["car", 2.3],
  ] as const)("no random %s route %s m high uses a way lower than that", (profile, height) => {
    const points = randomPoints(profile, 60, 11);
    const low = new Set(engine.network.wayTags.flatMap((t, i) => (t.maxheight && Number(t.maxheight) < height ? [i] : [])));
    expect(low.size).toBeGreaterThan(0);
    let routes = 0;
    for (let i = 0; i < 60; i += 2) {
      const r = engine.route([points[i], points[i + 1]], { profile, vehicle: { height_meters: height } });
      if (!r) continue;
      routes++;
      expect(r.method).toBe("restricted");
      expect(r.edges.filter((e) => low.has(e.way))).toEqual([]);
    }
    expect(routes).toBeGreaterThan(20);
  });
});

describe("snapping", () => {
  it("snaps to the nearest edge mid-way, reports the distance, and routes from there", () => {
    const w = way("way/15069216"); // Svenslyckegatan, two-way residential, one 308 m segment
    const [s] = segmentsOf(w);
    const mid = at(s, 0.5);
    // 10 m north-west of the middle of the street.
    const off: [number, number] = [mid[0] - 10 / (111_320 * Math.cos((mid[1] * Math.PI) / 180)) / Math.SQRT2, mid[1] + 10 / 111_320 / Math.SQRT2];
    const snapped = engine.snap(off, { profile: "car" });
    expect(snapped.segment).toBe(s);
    expect(snapped.fraction).toBeGreaterThan(0.4);
    expect(snapped.fraction).toBeLessThan(0.6);
    expect(snapped.distance).toBeGreaterThan(3);
    expect(snapped.distance).toBeLessThanOrEqual(10.01);
    const there = engine.route([at(s, 0.3), off], { profile: "car" })!;
    expect(there.edges).toHaveLength(1);
    const length = engine.network.segmentLength[s];
    expect(there.distance).toBeCloseTo((snapped.fraction - 0.3) * length, 0);
    expect(there.duration).toBeCloseTo(there.distance / (30 / 3.6), 3);
  });

  it("snaps only to edges the profile may use", () => {
    const footway = engine.network.wayTags.findIndex((t) => t.highway === "footway" && !t.bicycle);
    const s = segmentsOf(footway)[0];
    const p = at(s, 0.5);
    const car = engine.snap(p, { profile: "car" });
    expect(engine.network.wayTags[engine.network.segmentWay[car.segment]].highway).not.toBe("footway");
    expect(car.distance).toBeGreaterThan(0);
  });

  it("answers a typed error naming the coverage bbox outside it, and for bad coordinates", () => {
    const inside = randomPoints("car", 1, 1)[0];
    expect(() => engine.route([[11.5, 57.7], inside], { profile: "car" })).toThrow(OutsideCoverageError);
    try {
      engine.matrix([inside], [[12.2, 57.7]], { profile: "car" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(OutsideCoverageError);
      expect((error as OutsideCoverageError).field).toBe("targets[0]");
      expect((error as OutsideCoverageError).bbox).toEqual(engine.bbox);
      expect((error as Error).message).toContain(engine.bbox.join(", "));
    }
    expect(() => engine.route([[Number.NaN, 57.7], inside], { profile: "car" })).toThrow(InvalidCoordinateError);
    expect(() => engine.snap([11.95, 91], { profile: "car" })).toThrow(InvalidCoordinateError);
    // Inside the box but more than 1 km from any road a car may use (the box's western edge).
    expect(() => engine.route([inside, [11.86, 57.65]], { profile: "car" })).toThrow(NoRoadNearbyError);
    expect(() => engine.route([inside, [11.86, 57.65]], { profile: "car" })).toThrow(/waypoints\[1\].*within 1000 m/);
  });
});

describe("unreachable pairs", () => {
  it("answer null in routes and matrices, never an error", () => {
    const { costs } = engine.hierarchy("car", "time");
    const net = engine.network;
    const adjacency = buildAdjacency(net);
    const centre = engine.snap([11.9668, 57.7089], { profile: "car" }); // Gustaf Adolfs torg
    // Everything the centre reaches; a usable segment with neither end reached is an island.
    const reached = new Uint8Array(net.nodeCount);
    const stack = [net.segmentFrom[centre.segment], net.segmentTo[centre.segment]];
    while (stack.length) {
      const u = stack.pop()!;
      if (reached[u]) continue;
      reached[u] = 1;
      for (let i = adjacency.start[u]; i < adjacency.start[u + 1]; i++)
        if (costs.weight[adjacency.edge[i]] < Infinity) stack.push(edgeHead(net, adjacency.edge[i]));
    }
    const island = [...net.segmentWay.keys()].find(
      (s) => usable(costs, s) && !reached[net.segmentFrom[s]] && !reached[net.segmentTo[s]] && net.segmentLength[s] > 40,
    );
    expect(island).toBeDefined();
    const p = at(island!, 0.5);
    expect(engine.snap(p, { profile: "car" }).segment).toBe(island);
    expect(engine.route([centre.input, p], { profile: "car" })).toBeNull();
    expect(engine.route([centre.input, p], { profile: "car", search: "restricted" })).toBeNull();
    const m = engine.matrix([centre.input], [p, centre.input], { profile: "car" });
    expect(m.distances[0]).toEqual([null, 0]);
    expect(m.durations[0][0]).toBeNull();
  });
});

describe("U-turns and traffic", () => {
  it("turning back at a via point costs the profile's U-turn time", () => {
    const [s] = segmentsOf(way("way/15069216"));
    const length = engine.network.segmentLength[s];
    const r = engine.route([at(s, 0.2), at(s, 0.6), at(s, 0.4)], { profile: "car" })!;
    expect(r.legs[1].uTurn).toBe(true);
    expect(r.legs[1].edges).toEqual([expect.objectContaining({ segment: s, forward: false })]);
    const speed = 30 / 3.6;
    expect(r.legs[1].duration).toBeCloseTo((0.2 * length) / speed + U_TURN_SECONDS.car, 3);
    expect(r.duration).toBeCloseTo((0.6 * length) / speed + U_TURN_SECONDS.car, 3);
  });

  it("traffic: true slows a peak-hour trip deterministically and names the band", () => {
    const [a, b] = [
      [11.9668, 57.7089],
      [11.94, 57.695],
    ] as [number, number][];
    const free = engine.route([a, b], { profile: "car" })!;
    const night = engine.route([a, b], { profile: "car", traffic: true, departure: new Date("2026-07-10T01:00:00Z") })!;
    const peak = engine.route([a, b], { profile: "car", traffic: true, departure: new Date("2026-07-10T06:30:00Z") })!;
    expect(night.trafficBand).toBe("night");
    expect(night.duration).toBeCloseTo(free.duration, 6);
    expect(peak.trafficBand).toBe("morning_peak");
    expect(peak.duration).toBeGreaterThan(free.duration * 1.1);
    const again = engine.route([a, b], { profile: "car", traffic: true, departure: new Date("2026-07-10T06:45:00Z") })!;
    expect(again.duration).toBe(peak.duration);
    expect(effectiveDimensions("car", undefined)).toEqual({});
  });
});
