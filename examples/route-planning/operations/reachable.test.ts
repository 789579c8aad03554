// POST /reachable: valid GeoJSON bands (closed counter-clockwise rings) that contain the center and
// the reachable network, nest and grow with the limit; minutes xor meters; restrictions and traffic
// change the answer; a center outside the coverage is the engine's OutsideCoverageError (422).
import geojsonArea from "@mapbox/geojson-area";
import booleanPointInPolygon from "@turf/boolean-point-in-polygon";
import booleanValid from "@turf/boolean-valid";
import concaveman from "concaveman";
import { beforeAll, describe, expect, it } from "vitest";
import { OutsideCoverageError } from "../engine/index.ts";
import { RequestError, requestErrorFrom, round } from "./common.ts";
import { REACHABLE_PRICE_SATS, reachableOperation } from "./reachable.ts";
import { testContext, testEngine } from "./test-engine.ts";

type Answer = ReturnType<typeof reachableOperation.run>;
type Band = Answer["features"][number];
type Ring = [number, number][];

/** Runs the operation as the HTTP layer would: the request parsed, the answer checked against the response schema. */
function ask(body: Record<string, unknown>): Answer {
  const answer = reachableOperation.run(reachableOperation.request.parse(body), testContext());
  reachableOperation.response.parse(answer);
  return answer;
}
const brunnsparken = { lat: 57.7066, lng: 11.9686 };

beforeAll(() => {
  testEngine();
}, 180_000);

const polygonsOf = (band: Band): Ring[][] => (band.geometry.type === "Polygon" ? [band.geometry.coordinates] : band.geometry.coordinates);
/** Twice the signed area in degrees² (shoelace): positive for a counter-clockwise ring. */
const signedArea = (ring: Ring) => ring.slice(1).reduce((t, [x, y], i) => t + (ring[i][0] * y - x * ring[i][1]), 0);
const inside = (band: Band, point: [number, number]) => booleanPointInPolygon(point, band.geometry);

/**
 * RFC 7946 polygons: closed rings of 4+ positions, outer rings counter-clockwise, holes clockwise,
 * and valid simple features (no self-intersection, parts that do not overlap).
 */
function expectValidGeoJson(band: Band) {
  expect(booleanValid(band.geometry as Parameters<typeof booleanValid>[0])).toBe(true);
  for (const [outer, ...holes] of polygonsOf(band)) {
    for (const ring of [outer, ...holes]) {
      expect(ring.length).toBeGreaterThanOrEqual(4);
      expect(ring[0]).toEqual(ring[ring.length - 1]);
      for (const [lng, lat] of ring) {
        expect(Number.isFinite(lng) && Number.isFinite(lat)).toBe(true);
      }
    }
    expect(signedArea(outer)).toBeGreaterThan(0);
    for (const hole of holes) expect(signedArea(hole)).toBeLessThan(0);
  }
}

describe("/reachable", () => {
  it("the example: a FeatureCollection of 2 valid nested bands around Brunnsparken, innermost first", () => {
    const answer = ask(reachableOperation.exampleRequest as Record<string, unknown>);
    expect(reachableOperation.response.parse(answer)).toBeTruthy();
    expect(reachableOperation.name).toBe("reachable");
    expect(reachableOperation.priceSats).toBe(REACHABLE_PRICE_SATS);
    expect(answer.type).toBe("FeatureCollection");
    expect(answer.features.map((f) => f.properties.minutes)).toEqual([5, 10]);
    expect(answer.features.map((f) => f.properties.band)).toEqual([0, 1]);
    expect(answer.attribution).toBe("© OpenStreetMap contributors");
    expect(answer.license).toBe("ODbL-1.0");
    expect(answer.center.snap_distance).toBeLessThan(50);
    for (const band of answer.features) {
      expect(band.type).toBe("Feature");
      expectValidGeoJson(band);
      expect(inside(band, answer.center.location)).toBe(true);
      expect(band.properties.area_m2).toBeCloseTo(geojsonArea.geometry(band.geometry), -1);
    }
    const [inner, outer] = answer.features;
    expect(outer.properties.area_m2).toBeGreaterThan(inner.properties.area_m2);
    expect(outer.properties.reachable_nodes).toBeGreaterThan(inner.properties.reachable_nodes);
    // The outer band holds the inner one: every vertex of the inner band lies in the outer.
    const innerVertices = polygonsOf(inner).flatMap((p) => p[0]);
    const outside = innerVertices.filter((v) => !inside(outer, v)).length;
    expect(outside).toBe(0);
    const [minLng, minLat, maxLng, maxLat] = answer.bbox;
    for (const [lng, lat] of polygonsOf(outer).flatMap((p) => p[0])) {
      expect(lng >= minLng && lng <= maxLng && lat >= minLat && lat <= maxLat).toBe(true);
    }
  });

  it("each band contains (almost) every node the engine reaches within its limit", () => {
    const answer = ask({ center: brunnsparken, minutes: 6, buckets: 3 });
    const engine = testEngine();
    const reach = engine.reachable([brunnsparken.lng, brunnsparken.lat], { profile: "car", metric: "time", limits: [120, 240, 360] });
    answer.features.forEach((band, k) => {
      expectValidGeoJson(band);
      const nodes = [...reach.nodeCost.keys()].filter((n) => reach.nodeCost[n] <= reach.areas[k].limit);
      expect(band.properties.reachable_nodes).toBe(nodes.length);
      // At the response's precision (6 decimals): nodes on the hull are its vertices, rounded alike.
      const missed = nodes.filter((n) => !inside(band, [round(engine.network.nodeLng[n], 6), round(engine.network.nodeLat[n], 6)])).length;
      // Rounding can still put a node on a hull edge a few centimeters outside: no more than 1 %.
      expect(missed / nodes.length).toBeLessThanOrEqual(0.01);
      if (k > 0) expect(band.properties.area_m2).toBeGreaterThan(answer.features[k - 1].properties.area_m2);
      // A concave hull hugs the roads: clearly smaller than the convex hull of the same network.
      const convex = concaveman(reach.areas[k].points, Infinity);
      expect(band.properties.area_m2).toBeLessThan(0.9 * Math.abs(geojsonArea.ring(convex)));
    });
  });

  it("meters: bands at limit·k/buckets, areas growing, the farthest vertex not beyond the limit", () => {
    const answer = ask({ center: brunnsparken, meters: 1500, buckets: 3, vehicle_type: "bike" });
    expect(answer.features.map((f) => f.properties.meters)).toEqual([500, 1000, 1500]);
    expect(answer.features.every((f) => f.properties.minutes === undefined)).toBe(true);
    const areas = answer.features.map((f) => f.properties.area_m2);
    expect(areas[1]).toBeGreaterThan(areas[0]);
    expect(areas[2]).toBeGreaterThan(areas[1]);
    // A disc of the limit's radius bounds what is reachable by road.
    expect(areas[2]).toBeLessThan(Math.PI * 1500 ** 2);
  });

  it("bands are valid around centers across the city, for time and distance", () => {
    const centers = [
      { lat: 57.69, lng: 11.94 },
      { lat: 57.72, lng: 12.0 },
      { lat: 57.7, lng: 11.9 },
      { lat: 57.68, lng: 12.05 },
      { lat: 57.735, lng: 11.95 },
    ];
    for (const center of centers)
      for (const limit of [
        { minutes: 10, buckets: 2 },
        { meters: 3000, buckets: 3 },
        { minutes: 4, vehicle_type: "truck" },
      ]) {
        const answer = ask({ center, ...limit });
        for (const band of answer.features) {
          expectValidGeoJson(band);
          expect(inside(band, answer.center.location)).toBe(true);
        }
      }
  });

  it("a tiny limit still gives a valid polygon around the center", () => {
    const answer = ask({ center: brunnsparken, meters: 1 });
    expectValidGeoJson(answer.features[0]);
    expect(inside(answer.features[0], answer.center.location)).toBe(true);
    expect(answer.features[0].properties.area_m2).toBeGreaterThan(0);
  });

  it("minutes xor meters: both or neither is a 400 naming both fields", () => {
    for (const body of [
      { center: brunnsparken, minutes: 5, meters: 500 },
      { center: brunnsparken, buckets: 2 },
    ]) {
      let error: unknown;
      try {
        ask(body);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(RequestError);
      expect(error).toMatchObject({ status: 400, field: "minutes", details: { fields: ["minutes", "meters"] } });
      expect((error as Error).message).toMatch(/minutes.*meters/);
    }
  });

  it("validates limits, buckets and the vehicle type", () => {
    const parse = (body: Record<string, unknown>) => reachableOperation.request.safeParse({ center: brunnsparken, ...body }).success;
    expect(parse({ minutes: 120 })).toBe(true);
    expect(parse({ minutes: 121 })).toBe(false);
    expect(parse({ minutes: 0 })).toBe(false);
    expect(parse({ meters: 100_001 })).toBe(false);
    expect(parse({ minutes: 5, buckets: 0 })).toBe(false);
    expect(parse({ minutes: 5, buckets: 11 })).toBe(false);
    expect(parse({ minutes: 5, buckets: 1.5 })).toBe(false);
    expect(parse({ minutes: 5, vehicle_type: "boat" })).toBe(false);
    expect(reachableOperation.request.safeParse({ minutes: 5 }).success).toBe(false);
  });

  it("restrictions: a truck reaches a different, smaller network than a car", () => {
    const car = ask({ center: brunnsparken, minutes: 8 });
    const truck = ask({ center: brunnsparken, minutes: 8, vehicle_type: "truck" });
    const tall = ask({ center: brunnsparken, minutes: 8, vehicle_type: "truck", vehicle: { height_meters: 4.2, hazardous_goods: true } });
    expect(truck.features[0].properties.reachable_nodes).toBeLessThan(car.features[0].properties.reachable_nodes);
    expect(tall.features[0].properties.reachable_nodes).toBeLessThanOrEqual(truck.features[0].properties.reachable_nodes);
    expect(truck.features[0].geometry).not.toEqual(car.features[0].geometry);
  });

  it("traffic: names the band, says there is no live feed, and a peak departure reaches less", () => {
    const night = ask({ center: brunnsparken, minutes: 8, traffic: true, departure: "2026-07-10T03:00:00+02:00" });
    const peak = ask({ center: brunnsparken, minutes: 8, traffic: true, departure: "2026-07-10T08:00:00+02:00" });
    expect(night.traffic_band).toBe("night");
    expect(peak.traffic_band).toBe("morning_peak");
    expect(peak.traffic_note).toMatch(/No live traffic feed/);
    expect(peak.features[0].properties.reachable_nodes).toBeLessThan(night.features[0].properties.reachable_nodes);
    expect(ask({ center: brunnsparken, minutes: 8 }).traffic_band).toBeUndefined();
  });

  it("a center outside the coverage is the engine's OutsideCoverageError, a 422 naming the box", () => {
    let error: unknown;
    try {
      ask({ center: { lat: 59.33, lng: 18.07 }, minutes: 10 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(OutsideCoverageError);
    expect(requestErrorFrom(error)).toMatchObject({ status: 422, code: "outside_coverage", field: "center", details: { coverage_bbox: testEngine().bbox } });
  });
});
