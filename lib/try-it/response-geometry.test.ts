import polyline from "@mapbox/polyline";
import { describe, expect, it } from "vitest";
import { basemapUrl, findBasemapPath, padBbox } from "./basemap-source.ts";
import {
  GEOMETRY_LIMITS,
  decodePolyline,
  describeResponseGeometry,
  findResponseGeometry,
  formatDistance,
  formatDuration,
  lineLengthMeters,
  responseGeometryFromText,
  type LngLat,
} from "./response-geometry.ts";

const A: LngLat = [11.9668, 57.7041];
const B: LngLat = [11.9746, 57.7089];
const C: LngLat = [11.9812, 57.7003];
const attribution = "© OpenStreetMap contributors";

function square([lng, lat]: LngLat, half: number): LngLat[] {
  return [
    [lng - half, lat - half],
    [lng + half, lat - half],
    [lng + half, lat + half],
    [lng - half, lat + half],
    [lng - half, lat - half],
  ];
}

describe("findResponseGeometry", () => {
  it("draws a directions answer: the route line, its waypoints numbered, its steps small", () => {
    const answer = {
      distance: 3210,
      duration: 420,
      bbox: [A[0], C[1], C[0], B[1]],
      geometry: { type: "LineString", coordinates: [A, B, C] },
      legs: [
        {
          distance: 3210,
          steps: [
            {
              maneuver: { location: A, type: "depart", modifier: "left" },
              instruction: "Head north",
              geometry: { type: "LineString", coordinates: [A, B] },
            },
            { maneuver: { location: B, type: "turn", modifier: "right" }, instruction: "Turn right" },
            { maneuver: { location: C, type: "arrive" }, instruction: "Arrive" },
          ],
        },
      ],
      waypoints: [
        { location: A, snap_distance: 3.2 },
        { location: C, snap_distance: 1.1 },
      ],
      attribution,
      license: "ODbL-1.0",
    };
    const g = findResponseGeometry(answer)!;
    expect(g.lines).toEqual([{ coordinates: [A, B, C], label: null }]);
    expect(g.markers.filter((m) => !m.minor).map((m) => [m.number, m.label, m.location])).toEqual([
      [1, "waypoints 1", A],
      [2, "waypoints 2", C],
    ]);
    expect(g.markers.filter((m) => m.minor)).toHaveLength(3);
    expect(g.bbox).toEqual([A[0], C[1], C[0], B[1]]);
    expect(g.attribution).toBe(attribution);
    expect(describeResponseGeometry(g)).toBe("Map of the answer: 1 line (3.2 km, 7 min); 2 numbered points; 3 small points.");
  });

  it("draws steps' own lines only when the answer has no route line", () => {
    const step = (from: LngLat, to: LngLat) => ({ maneuver: { location: from }, geometry: { type: "LineString", coordinates: [from, to] } });
    const g = findResponseGeometry({ legs: [{ steps: [step(A, B), step(B, C)] }] })!;
    expect(g.lines.map((l) => l.coordinates)).toEqual([
      [A, B],
      [B, C],
    ]);
  });

  it("numbers an optimized tour's stops in the answer's order, labelled by their ids", () => {
    const answer = {
      start: { location: A, snap_distance: 2, time: "2026-11-26T08:00:00+01:00" },
      stops: [
        { id: "depot", location: A, arrival: "2026-11-26T08:00:00+01:00" },
        { id: "s2", location: C, arrival: "2026-11-26T08:06:00+01:00" },
        { id: "s1", location: B, arrival: "2026-11-26T08:12:00+01:00" },
      ],
      geometry: { type: "LineString", coordinates: [A, C, B, A] },
      bbox: [0, 0, 0, 0],
      distance: 5400,
      duration: 900,
    };
    const g = findResponseGeometry(answer)!;
    expect(g.markers.map((m) => `${m.symbol}:${m.label}`)).toEqual(["S:start", "1:depot", "2:s2", "3:s1"]);
    expect(g.lines[0].coordinates).toHaveLength(4);
  });

  it("draws each fleet route with its vehicle as label and numbers stops per route", () => {
    const answer = {
      routes: [
        {
          vehicle_id: "van-1",
          stops: [
            { id: "a", location: A },
            { id: "b", location: B },
          ],
          geometry: { type: "LineString", coordinates: [A, B] },
        },
        { vehicle_id: "van-2", stops: [{ id: "c", location: C }], geometry: { type: "LineString", coordinates: [A, C] } },
      ],
      unassigned: [{ id: "far", reason: "capacity" }],
      summary: { distance: 1, duration: 2 },
    };
    const g = findResponseGeometry(answer)!;
    expect(g.lines.map((l) => l.label)).toEqual(["van-1", "van-2"]);
    expect(g.markers.map((m) => `${m.group} ${m.symbol}:${m.label}`)).toEqual(["van-1 1:a", "van-1 2:b", "van-2 1:c"]);
    expect(describeResponseGeometry(g)).toMatch(/^Map of the answer: 2 lines \([\d.]+ km in all\); 3 numbered points\.$/);
  });

  it("shades reachable bands largest first, more opaque as they shrink, and marks the center", () => {
    const answer = {
      type: "FeatureCollection",
      features: [
        { type: "Feature", geometry: { type: "Polygon", coordinates: [square(B, 0.01)] }, properties: { band: 0, minutes: 5 } },
        {
          type: "Feature",
          geometry: { type: "MultiPolygon", coordinates: [[square(B, 0.03)], [square(C, 0.005)]] },
          properties: { band: 2, minutes: 15 },
        },
        { type: "Feature", geometry: { type: "Polygon", coordinates: [square(B, 0.02)] }, properties: { band: 1, minutes: 10 } },
      ],
      center: { location: B, snap_distance: 4 },
      bbox: [0, 0, 0, 0],
      attribution,
    };
    const g = findResponseGeometry(answer)!;
    expect(g.areas.map((a) => a.label)).toEqual(["15 min", "10 min", "5 min"]);
    expect(g.areas[0].polygons).toHaveLength(2);
    const opacities = g.areas.map((a) => a.fillOpacity);
    expect(new Set(opacities).size).toBe(3);
    expect([...opacities].sort((x, y) => x - y)).toEqual(opacities);
    expect(g.markers).toEqual([{ location: B, number: 1, symbol: "C", label: "center", group: null, minor: false }]);
    expect(g.bbox).toEqual([B[0] - 0.03, B[1] - 0.03, B[0] + 0.03, B[1] + 0.03]);
    expect(describeResponseGeometry(g)).toBe("Map of the answer: 3 areas (5 min, 10 min, 15 min); center marked.");
  });

  it("decodes a Mapbox Directions answer's polyline6 route and skips its steps' copies", () => {
    const line: LngLat[] = [A, B, C];
    const encoded = polyline.encode(
      line.map(([lng, lat]) => [lat, lng]),
      6,
    );
    const answer = {
      code: "Ok",
      routes: [
        {
          geometry: encoded,
          distance: 3000,
          duration: 400,
          legs: [{ steps: [{ geometry: encoded, maneuver: { location: A, type: "depart" }, intersections: [{ location: A }, { location: B }] }] }],
        },
      ],
      waypoints: [
        { name: "Avenyn", location: A },
        { name: "", location: C },
      ],
    };
    const g = findResponseGeometry(answer)!;
    expect(g.lines).toHaveLength(1);
    g.lines[0].coordinates.forEach((p, i) => {
      expect(p[0]).toBeCloseTo(line[i][0], 5);
      expect(p[1]).toBeCloseTo(line[i][1], 5);
    });
    expect(g.markers.filter((m) => !m.minor).map((m) => m.label)).toEqual(["Avenyn", "waypoints 2"]);
    // The step's maneuver is a small point; the crossings it passes are not drawn.
    expect(g.markers.filter((m) => m.minor).map((m) => m.location)).toEqual([A]);
    expect(g.distanceMeters).toBe(3000);
    expect(g.durationSeconds).toBe(400);
    // A polyline string outside a Mapbox answer is just a string.
    expect(findResponseGeometry({ geometry: encoded })).toBeNull();
  });

  it("takes precision 5 when that is what puts the line at the waypoints", () => {
    const encoded5 = polyline.encode(
      [A, B].map(([lng, lat]) => [lat, lng]),
      5,
    );
    const decoded = decodePolyline(encoded5, A)!;
    expect(decoded[0][0]).toBeCloseTo(A[0], 4);
    expect(decodePolyline(encoded5)![0][0]).toBeCloseTo(A[0] / 10, 4);
  });

  it("marks cluster centroids ({lat, lng}) and the request's stops", () => {
    const answer = {
      clusters: [
        { id: 0, stop_ids: ["a", "b"], centroid: { lat: 57.7, lng: 11.97 }, load: { items: 2 } },
        { id: 1, stop_ids: ["c"], centroid: { lat: 57.71, lng: 11.98 }, load: { items: 1 } },
      ],
      unassigned: [],
    };
    const request = {
      num_clusters: 2,
      stops: [
        { id: "a", lat: 57.699, lng: 11.969 },
        { id: "b", lat: 57.701, lng: 11.971 },
        { id: "c", lat: 57.711, lng: 11.981 },
      ],
    };
    const g = findResponseGeometry(answer, request)!;
    expect(g.markers.map((m) => `${m.number}:${m.label}`)).toEqual(["1:0", "2:1"]);
    expect(g.requestPoints).toEqual([
      [11.969, 57.699],
      [11.971, 57.701],
      [11.981, 57.711],
    ]);
    expect(g.bbox).toEqual([11.969, 57.699, 11.981, 57.711]);
  });

  it("marks a matrix's snapped sources", () => {
    const g = findResponseGeometry({
      distances: [
        [0, 1],
        [1, 0],
      ],
      durations: [
        [0, 1],
        [1, 0],
      ],
      sources: [{ location: A }, { location: B }],
    })!;
    expect(g.markers.map((m) => m.label)).toEqual(["sources 1", "sources 2"]);
    expect(g.lines).toEqual([]);
  });

  it("returns null for answers with nothing geographic, and for request points alone", () => {
    expect(findResponseGeometry({ ok: true, items: [1, 2, 3], nested: { a: [{ b: "c" }] } })).toBeNull();
    expect(findResponseGeometry({ error: { code: "outside_coverage", bbox: [11.9, 57.6, 12.1, 57.8] } })).toBeNull();
    expect(findResponseGeometry({ location: [500, 12] })).toBeNull();
    expect(findResponseGeometry({ type: "LineString", coordinates: [[1, "x"]] })).toBeNull();
    expect(findResponseGeometry({ id: 1 }, { stops: [{ lat: 57.7, lng: 11.9 }] })).toBeNull();
    expect(findResponseGeometry("text")).toBeNull();
    expect(responseGeometryFromText("not json")).toBeNull();
  });

  it("stops walking past its bounds: deep nesting and huge bodies cost bounded work", () => {
    let deep: unknown = { location: A };
    for (let i = 0; i < GEOMETRY_LIMITS.maxDepth + 5; i++) deep = { next: deep };
    expect(findResponseGeometry(deep)).toBeNull();
    const many = { points: Array.from({ length: GEOMETRY_LIMITS.maxNodes + 10 }, () => ({ location: A })) };
    const g = findResponseGeometry(many)!;
    expect(g.markers.length).toBeLessThan(GEOMETRY_LIMITS.maxNodes);
    expect(g.markers.every((m) => m.minor)).toBe(true);
  });

  it("parses JSON text and the request body", () => {
    const g = responseGeometryFromText(JSON.stringify({ sources: [{ location: A }] }), JSON.stringify({ points: [{ lat: B[1], lng: B[0] }] }))!;
    expect(g.requestPoints).toEqual([B]);
    expect(responseGeometryFromText(JSON.stringify({ sources: [{ location: A }] }), "{broken")!.requestPoints).toEqual([]);
  });
});

describe("figures", () => {
  it("formats distances and durations for people", () => {
    expect([formatDistance(850.4), formatDistance(3210), formatDistance(123_456)]).toEqual(["850 m", "3.2 km", "123 km"]);
    expect([formatDuration(45), formatDuration(420), formatDuration(3900), formatDuration(7200)]).toEqual(["45 s", "7 min", "1 h 5 min", "2 h"]);
  });

  it("measures lines on the sphere", () => {
    // One degree of latitude is about 111.2 km.
    expect(
      lineLengthMeters([
        [12, 57],
        [12, 58],
      ]),
    ).toBeCloseTo(111_195, -2);
  });
});

describe("basemap source", () => {
  const basemap = { method: "GET", path: "/origin/v1/routes/basemap", pricingModel: null, parameters: [{ name: "bbox", in: "query" }] };

  it("finds the free GET …/basemap endpoint with a bbox query parameter, and nothing else", () => {
    const matrix = { method: "POST", path: "/origin/v1/routes/matrix", pricingModel: "per_request", parameters: [] };
    expect(findBasemapPath([matrix, basemap])).toBe("/origin/v1/routes/basemap");
    expect(findBasemapPath([matrix, { ...basemap, pricingModel: "per_request" }])).toBeNull();
    expect(findBasemapPath([{ ...basemap, parameters: [] }])).toBeNull();
    expect(findBasemapPath([{ ...basemap, method: "POST" }])).toBeNull();
    expect(findBasemapPath([{ ...basemap, path: "/v1/basemaps" }])).toBeNull();
  });

  it("pads the box by a fraction and to a minimum size, and writes it as plain decimals", () => {
    const [minLng, minLat, maxLng, maxLat] = padBbox([11.9, 57.7, 12.0, 57.8], 0.1, 0);
    expect([minLng, minLat, maxLng, maxLat].map((n) => Number(n.toFixed(5)))).toEqual([11.89, 57.69, 12.01, 57.81]);
    const point = padBbox([11.97, 57.7, 11.97, 57.7], 0.15, 600);
    expect(
      lineLengthMeters([
        [point[0], 57.7],
        [point[2], 57.7],
      ]),
    ).toBeCloseTo(600, -1);
    expect(
      lineLengthMeters([
        [11.97, point[1]],
        [11.97, point[3]],
      ]),
    ).toBeCloseTo(600, -1);
    expect(basemapUrl("http://localhost:8502/gw/routes/", "/origin/v1/routes/basemap", [1e-7, 57.7, 12, 57.8])).toBe(
      "http://localhost:8502/gw/routes/origin/v1/routes/basemap?bbox=0.00000,57.70000,12.00000,57.80000",
    );
  });
});
