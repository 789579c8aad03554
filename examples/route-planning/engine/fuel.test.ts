// optimize_for: fuel on the real Gothenburg network: the curves are U-shaped where documented, edge
// fuel follows the (traffic-adjusted) speed, fuel routes equal the exact restricted search and burn
// no more than the fastest or the shortest route, U-turns cost fuel, and a bike's fuel is distance.
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { computeEdgeCosts } from "./edge-costs.ts";
import { FUEL_CURVES, U_TURN_FUEL_ML, U_TURN_SECONDS, fuelLitresPer100Km, fuelMillilitres, type Profile, RouteEngine, uTurnWeight } from "./index.ts";
import { trafficFactor, wayAccess } from "./profiles.ts";
import { segmentGeometry } from "./snap.ts";
import { seededRandom as random } from "../../shared/seeded-random.ts";

let engine: RouteEngine;

beforeAll(() => {
  engine = new RouteEngine({ dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test") });
}, 180_000);

/** Random coordinates on vertices of segments the profile may use. */
function randomPoints(profile: Profile, count: number, seed: number): [number, number][] {
  const rnd = random(seed);
  const costs = computeEdgeCosts(engine.network, { profile, metric: "time", dimensions: {} });
  const net = engine.network;
  const out: [number, number][] = [];
  while (out.length < count) {
    const s = Math.floor(rnd() * net.segmentCount);
    if (costs.weight[2 * s] === Infinity && costs.weight[2 * s + 1] === Infinity) continue;
    const k = net.geometryStart[s] + Math.floor(rnd() * (net.geometryStart[s + 1] - net.geometryStart[s]));
    out.push([net.geometry[2 * k] + (rnd() - 0.5) * 0.0008, net.geometry[2 * k + 1] + (rnd() - 0.5) * 0.0004]);
  }
  return out;
}

describe("the fuel curves", () => {
  it.each([
    ["car", 70, 5.56],
    ["van", 70, 8.22],
    ["truck", 55, 24.9],
  ] as const)("%s: U-shaped with its minimum near %d km/h (%d l/100 km)", (profile, best, litres) => {
    const { stopGo, drag } = FUEL_CURVES[profile];
    expect(Math.cbrt(stopGo / (2 * drag))).toBeCloseTo(best, -1);
    expect(fuelLitresPer100Km(profile, best)).toBeCloseTo(litres, 1);
    // Slow stop-and-go and fast driving both burn more than the best speed.
    expect(fuelLitresPer100Km(profile, 15)).toBeGreaterThan(fuelLitresPer100Km(profile, best) * 1.5);
    expect(fuelLitresPer100Km(profile, 110)).toBeGreaterThan(fuelLitresPer100Km(profile, best));
    expect(fuelLitresPer100Km(profile, 1)).toBe(fuelLitresPer100Km(profile, 5));
  });

  it("a bike burns none; 1 km at 70 km/h by car is 55.6 ml", () => {
    expect(fuelLitresPer100Km("bike", 16)).toBe(0);
    expect(fuelMillilitres("car", 1000, 70)).toBeCloseTo(55.6, 1);
  });

  it("a U-turn costs its seconds for time, its fuel for fuel, nothing for distance", () => {
    expect(uTurnWeight("truck", "time")).toBe(U_TURN_SECONDS.truck);
    expect(uTurnWeight("truck", "fuel")).toBe(U_TURN_FUEL_ML.truck);
    expect(uTurnWeight("truck", "distance")).toBe(0);
    expect(U_TURN_FUEL_ML.truck).toBeGreaterThan(U_TURN_FUEL_ML.van);
    expect(U_TURN_FUEL_ML.van).toBeGreaterThan(U_TURN_FUEL_ML.car);
  });
});

describe("edge fuel", () => {
  it("is the curve at the edge's speed, traffic factors applied, and the fuel metric's weight", () => {
    const net = engine.network;
    const free = computeEdgeCosts(net, { profile: "van", metric: "fuel", dimensions: {} });
    const peak = computeEdgeCosts(net, { profile: "van", metric: "fuel", dimensions: {}, band: "morning_peak" });
    let slowed = 0;
    for (let s = 0; s < net.segmentCount; s += 97) {
      const tags = net.wayTags[net.segmentWay[s]];
      const access = wayAccess("van", tags);
      if (!access.forward) continue;
      const meters = net.segmentLength[s];
      expect(free.fuel[2 * s]).toBeCloseTo(fuelMillilitres("van", meters, access.speedKmh), 9);
      expect(free.weight[2 * s]).toBe(free.fuel[2 * s]);
      const factor = trafficFactor("morning_peak", "van", tags.highway);
      expect(peak.fuel[2 * s]).toBeCloseTo(fuelMillilitres("van", meters, access.speedKmh * factor), 9);
      // Below the curve's minimum a slower speed burns more.
      if (factor < 1 && access.speedKmh <= 70) {
        expect(peak.fuel[2 * s]).toBeGreaterThan(free.fuel[2 * s]);
        slowed++;
      }
    }
    expect(slowed).toBeGreaterThan(10);
  });

  it("time and distance costs carry fuel too; a bike's fuel weight is its distance", () => {
    const net = engine.network;
    const time = computeEdgeCosts(net, { profile: "car", metric: "time", dimensions: {} });
    const fuel = computeEdgeCosts(net, { profile: "car", metric: "fuel", dimensions: {} });
    expect(time.fuel).toEqual(fuel.fuel);
    const bike = computeEdgeCosts(net, { profile: "bike", metric: "fuel", dimensions: {} });
    expect(bike.weight).toEqual(bike.distance);
    expect(bike.fuel.every((f) => f === 0 || f === Infinity)).toBe(true);
  });
});

describe("fuel-optimal routes", () => {
  for (const profile of ["car", "truck"] as const) {
    it(`${profile}: equal the restricted search and burn no more than the fastest or the shortest route`, () => {
      const points = randomPoints(profile, 80, profile === "car" ? 41 : 43);
      let cheaperThanFastest = 0;
      let found = 0;
      for (let i = 0; i < points.length; i += 2) {
        const pair = [points[i], points[i + 1]];
        const eco = engine.route(pair, { profile, optimizeFor: "fuel" });
        const exact = engine.route(pair, { profile, optimizeFor: "fuel", search: "restricted" });
        expect(eco === null).toBe(exact === null);
        if (!eco || !exact) continue;
        found++;
        expect(eco.method).toBe("hierarchy");
        expect(exact.method).toBe("restricted");
        expect(eco.weight).toBeCloseTo(exact.weight, 6);
        // The weight minimised is the fuel reported, U-turns included.
        expect(eco.weight).toBeCloseTo(eco.fuel, 6);
        expect(eco.fuel).toBeCloseTo(
          eco.edges.reduce((t, e) => t + e.fuel, 0) + eco.legs.reduce((t, l) => t + (l.uTurnsOnTheWay + (l.uTurn ? 1 : 0)) * U_TURN_FUEL_ML[profile], 0),
          6,
        );
        const fastest = engine.route(pair, { profile, optimizeFor: "time" })!;
        const shortest = engine.route(pair, { profile, optimizeFor: "distance" })!;
        expect(eco.fuel).toBeLessThanOrEqual(fastest.fuel + 1e-6);
        expect(eco.fuel).toBeLessThanOrEqual(shortest.fuel + 1e-6);
        // And fuel is what each route's edges burn at their speeds: the fastest route's fuel is its own.
        expect(fastest.fuel).toBeGreaterThan(0);
        if (eco.fuel < fastest.fuel - 1) cheaperThanFastest++;
      }
      expect(found).toBeGreaterThan(30);
      // The metric matters: on some trips the economical route is not the fastest one.
      expect(cheaperThanFastest).toBeGreaterThan(2);
    });
  }

  it("with vehicle dimensions, the restricted fuel search is exact and obeys them", () => {
    const [a, b] = [
      [11.9668, 57.7089],
      [11.94, 57.695],
    ] as [number, number][];
    const tall = engine.route([a, b], { profile: "truck", optimizeFor: "fuel", vehicle: { height_meters: 4.2, hazardous_goods: true } })!;
    const plain = engine.route([a, b], { profile: "truck", optimizeFor: "fuel" })!;
    expect(tall.method).toBe("restricted");
    expect(tall.fuel).toBeGreaterThanOrEqual(plain.fuel - 1e-6);
  });

  it("traffic makes the same trip burn more at peak hour", () => {
    const [a, b] = [
      [11.9668, 57.7089],
      [11.94, 57.695],
    ] as [number, number][];
    const night = engine.route([a, b], { profile: "car", optimizeFor: "fuel", traffic: true, departure: new Date("2026-07-10T01:00:00Z") })!;
    const peak = engine.route([a, b], { profile: "car", optimizeFor: "fuel", traffic: true, departure: new Date("2026-07-10T06:30:00Z") })!;
    expect(peak.trafficBand).toBe("morning_peak");
    expect(peak.fuel).toBeGreaterThan(night.fuel);
  });

  it("a U-turn at a via point adds the profile's U-turn fuel", () => {
    const net = engine.network;
    const s = net.segmentWay.findIndex((w) => net.wayIds[w] === "way/15069216");
    const at = (f: number) => segmentGeometry(net, s, f, f)[0];
    const r = engine.route([at(0.2), at(0.6), at(0.4)], { profile: "car", optimizeFor: "fuel" })!;
    expect(r.legs[1].uTurn).toBe(true);
    expect(r.legs[1].fuel).toBeCloseTo(r.legs[1].edges[0].fuel + U_TURN_FUEL_ML.car, 6);
    expect(r.fuel).toBeCloseTo(r.edges.reduce((t, e) => t + e.fuel, 0) + U_TURN_FUEL_ML.car, 6);
  });

  it("a bike's fuel route is its shortest route and burns nothing", () => {
    const [a, b] = randomPoints("bike", 2, 5);
    const eco = engine.route([a, b], { profile: "bike", optimizeFor: "fuel" })!;
    const shortest = engine.route([a, b], { profile: "bike", optimizeFor: "distance" })!;
    expect(eco.distance).toBeCloseTo(shortest.distance, 6);
    expect(eco.fuel).toBe(0);
    expect(engine.stats.hierarchies["bike-fuel-free"]).toBeUndefined();
  });

  it("a fuel matrix matches pairwise fuel routes", () => {
    const points = randomPoints("van", 8, 77);
    const m = engine.matrix(points.slice(0, 4), points.slice(4), { profile: "van", optimizeFor: "fuel" });
    points.slice(0, 4).forEach((s, i) =>
      points.slice(4).forEach((t, j) => {
        const r = engine.route([s, t], { profile: "van", optimizeFor: "fuel" });
        expect(m.distances[i][j] === null).toBe(r === null);
        // Node-based like the route, but the route also charges U-turns at its ends: compare where there are none.
        if (r && r.legs[0].uTurnsOnTheWay === 0) expect(m.distances[i][j]).toBeCloseTo(r.distance, 3);
      }),
    );
  });
});
