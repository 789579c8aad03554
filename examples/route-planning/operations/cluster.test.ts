// The /cluster operation on the real Gothenburg engine: road-aware grouping across Göta älv,
// the example request, the schemas (and their OpenAPI form), determinism and every refusal with
// the field it names.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  clusterExampleRequest,
  clusterOperation,
  clusterRequestSchema,
  clusterResponseSchema,
  defaultClusterCount,
  runCluster,
  type ClusterRequest,
} from "./cluster.ts";
import { LIMITS, RequestError } from "./common.ts";
import { testContext } from "./test-engine.ts";

const ctx = testContext();

/** Parses like the HTTP layer, then runs. */
function call(body: unknown) {
  return runCluster(clusterRequestSchema.parse(body), ctx);
}

/** The RequestError a body gets (fails the test when it is answered instead). */
function refusal(body: unknown): RequestError {
  try {
    call(body);
  } catch (err) {
    if (err instanceof RequestError) return err;
    throw err;
  }
  throw new Error("expected a RequestError");
}

/** The paths zod names for a body it refuses. */
function schemaIssues(body: unknown): string[] {
  const parsed = clusterRequestSchema.safeParse(body);
  expect(parsed.success).toBe(false);
  return parsed.error!.issues.map((i) => i.path.join("."));
}

const near = (lat: number, lng: number, i: number) => ({ id: `p${i}`, lat: lat + (i % 5) * 0.0004, lng: lng + Math.floor(i / 5) * 0.0006 });

/**
 * Two on Hisingen (Lindholmen, Eriksberg) and two straight across the river on the south bank
 * (Masthugget, Klippan): about 900 m apart as the crow flies, 5–7 km by road over a bridge.
 */
const acrossTheRiver = [
  { id: "lindholmen", lat: 57.707, lng: 11.938 },
  { id: "eriksberg", lat: 57.7035, lng: 11.915 },
  { id: "masthugget", lat: 57.699, lng: 11.939 },
  { id: "klippan", lat: 57.695, lng: 11.915 },
];

const sorted = (groups: string[][]) => groups.map((g) => [...g].sort()).sort((a, b) => a[0].localeCompare(b[0]));

describe("road_aware", () => {
  it("groups by road across Göta älv where straight-line distance pairs stops across the water", () => {
    const straight = call({ stops: acrossTheRiver, num_clusters: 2 });
    const road = call({ stops: acrossTheRiver, num_clusters: 2, road_aware: true });
    expect(straight.distance_basis).toBe("straight_line");
    expect(road.distance_basis).toBe("road");
    expect(road.vehicle_type).toBe("car");
    expect(sorted(straight.clusters.map((c) => c.stop_ids))).toEqual([
      ["eriksberg", "klippan"],
      ["lindholmen", "masthugget"],
    ]);
    expect(sorted(road.clusters.map((c) => c.stop_ids))).toEqual([
      ["eriksberg", "lindholmen"],
      ["klippan", "masthugget"],
    ]);
    // Road travel over a bridge costs far more than the straight-line estimate of the same pairs.
    expect(road.summary.max_workload_seconds).toBeGreaterThan(0);
  });

  it("leaves a stop on an isolated road and one in a one-way trap unassigned with the reason; straight-line places them", () => {
    const stops = [
      ...acrossTheRiver,
      // A service road with no connection to the network (it snaps 114 m away, null to every point).
      { id: "island", lat: 57.686957, lng: 11.940412 },
      // A one-way edge in Frihamnen that leads out but that no route reaches.
      { id: "trap", lat: 57.717872, lng: 11.962967 },
    ];
    const depot = { lat: 57.7146, lng: 11.9866 };
    const road = call({ stops, num_clusters: 2, depot, road_aware: true });
    expect(road.unassigned).toEqual([
      { id: "island", reason: "not reachable by road both ways from the depot (an island or a one-way trap)" },
      { id: "trap", reason: "not reachable by road both ways from the depot (an island or a one-way trap)" },
    ]);
    expect(road.clusters.flatMap((c) => c.stop_ids).sort()).toEqual(["eriksberg", "klippan", "lindholmen", "masthugget"]);
    for (const c of road.clusters) expect(Number.isFinite(c.workload_seconds)).toBe(true);
    // Without a depot the largest set of stops that reach each other both ways is kept.
    expect(call({ stops, num_clusters: 2, road_aware: true }).unassigned.map((u) => u.id)).toEqual(["island", "trap"]);
    expect(call({ stops, num_clusters: 2, depot }).unassigned).toEqual([]);
  });

  it("uses the vehicles' shared type for the road distances unless vehicle_type says otherwise", () => {
    const vehicles = [
      { id: "a", type: "truck" },
      { id: "b", type: "truck" },
    ];
    expect(call({ stops: acrossTheRiver, vehicles, road_aware: true }).vehicle_type).toBe("truck");
    expect(call({ stops: acrossTheRiver, vehicles, road_aware: true, vehicle_type: "bike" }).vehicle_type).toBe("bike");
  });

  it("repeats its answer exactly", () => {
    const body = { ...clusterExampleRequest, strategy: "fairness" };
    expect(call(body)).toEqual(call(body));
  });

  it(`takes ${LIMITS.roadAwareClusterStops} stops, and refuses one more naming road_aware and the limit`, () => {
    const stops = Array.from({ length: LIMITS.roadAwareClusterStops }, (_, i) => near(57.69, 11.94, i));
    const answer = call({ stops, num_clusters: 5, road_aware: true });
    expect(answer.clusters.flatMap((c) => c.stop_ids).length + answer.unassigned.length).toBe(stops.length);
    const err = refusal({ stops: [...stops, near(57.7, 11.96, 99)], num_clusters: 5, road_aware: true });
    expect(err.status).toBe(400);
    expect(err.field).toBe("road_aware");
    expect(err.message).toContain(String(LIMITS.roadAwareClusterStops));
    expect(err.details).toEqual({ limit: LIMITS.roadAwareClusterStops, stops: LIMITS.roadAwareClusterStops + 1 });
    // Straight-line takes the same set.
    expect(call({ stops: [...stops, near(57.7, 11.96, 99)], num_clusters: 5 }).clusters).toHaveLength(5);
  });
});

describe("the example request", () => {
  it("answers with groups within the cars' capacities, centroids inside the area and the OSM notice", () => {
    const answer = call(clusterExampleRequest);
    expect(clusterResponseSchema.safeParse(answer).success).toBe(true);
    expect(answer.clusters.map((c) => c.vehicle_id)).toEqual(["car-1", "car-2"]);
    expect(answer.unassigned).toEqual([]);
    expect(answer.unused_vehicle_ids).toEqual([]);
    for (const c of answer.clusters) {
      expect(c.load.items).toBeLessThanOrEqual(20);
      expect(c.load.stops).toBeLessThanOrEqual(6);
      expect(c.centroid.lat).toBeGreaterThan(57.6482);
      expect(c.centroid.lat).toBeLessThan(57.762);
      expect(c.centroid.lng).toBeGreaterThan(11.8596);
      expect(c.centroid.lng).toBeLessThan(12.0935);
      expect(c.workload_seconds).toBeGreaterThan(c.travel_seconds);
    }
    expect(answer.summary).toMatchObject({ clusters: 2, assigned_stops: 10, unassigned_stops: 0 });
    expect(answer.vehicle_type).toBe("car");
    expect(answer.attribution).toContain("OpenStreetMap");
    expect(answer.license).toContain("ODbL");
  });

  it("reports loads and centroids computed from the stops", () => {
    const answer = call({
      stops: [
        { id: "a", lat: 57.7, lng: 11.96, demand: { items: 2, weight_kg: 1.5, volume_m3: 0.2 } },
        { id: "b", lat: 57.702, lng: 11.962, demand: { items: 3, weight_kg: 2.25, volume_m3: 0.1 }, service_seconds: 120 },
      ],
      num_clusters: 1,
    });
    expect(answer.clusters).toEqual([
      {
        id: "cluster-1",
        stop_ids: ["a", "b"],
        load: { items: 5, weight_kg: 3.75, volume_m3: 0.3, stops: 2 },
        centroid: { lat: 57.701, lng: 11.961 },
        // Half of the 252.2 m between them; the loop a→b→a at 1.3 × 504.4 m / (25 km/h).
        radius_meters: 126.1,
        travel_seconds: 94.4,
        workload_seconds: 94.4 + 120,
      },
    ]);
  });

  it("defaults to √(n/2) clusters when neither num_clusters nor vehicles is given", () => {
    const stops = Array.from({ length: 32 }, (_, i) => near(57.69, 11.94, i));
    expect(defaultClusterCount(32)).toBe(4);
    expect(call({ stops }).clusters).toHaveLength(4);
  });

  it("lists unused vehicles and the stops no vehicle can take, without failing", () => {
    const answer = call({
      stops: [
        { id: "small", lat: 57.7, lng: 11.96, demand: { weight_kg: 10 } },
        { id: "piano", lat: 57.701, lng: 11.961, demand: { weight_kg: 450 } },
      ],
      vehicles: [
        { id: "bike", type: "bike", capacity: { weight_kg: 40 } },
        { id: "van", capacity: { weight_kg: 400 } },
      ],
      strategy: "min_vehicles",
    });
    expect(answer.clusters.map((c) => c.id)).toEqual(["bike"]);
    expect(answer.unused_vehicle_ids).toEqual(["van"]);
    expect(answer.unassigned).toEqual([{ id: "piano", reason: "demand exceeds every vehicle's capacity (weight_kg)" }]);
    // A vehicle that can take none of the stops is listed as unused, whatever the strategy.
    const full = call({ stops: acrossTheRiver.map((s) => ({ ...s, demand: { items: 1 } })), vehicles: [{ id: "a" }, { id: "b", capacity: { items: 0 } }] });
    expect(full.clusters.map((c) => c.id)).toEqual(["a"]);
    expect(full.unused_vehicle_ids).toEqual(["b"]);
  });
});

describe("schemas", () => {
  it("describe every request and response field for the OpenAPI document", () => {
    for (const schema of [clusterRequestSchema, clusterResponseSchema]) {
      const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties: Record<string, { description?: string }> };
      for (const [name, property] of Object.entries(json.properties)) expect(property.description, name).toBeTruthy();
    }
    const strategy = (z.toJSONSchema(clusterRequestSchema, { io: "input" }) as unknown as { properties: { strategy: { enum: string[] } } }).properties.strategy;
    expect(strategy.enum).toEqual(["balanced", "fill_vehicle_first", "min_vehicles", "zone_based", "time_window", "fairness"]);
  });

  it("names the operation, its price and an example that parses", () => {
    expect(clusterOperation.name).toBe("cluster");
    expect(clusterOperation.priceSats).toBe(5);
    expect(clusterRequestSchema.safeParse(clusterOperation.exampleRequest).success).toBe(true);
  });
});

describe("refusals name the field", () => {
  const two = acrossTheRiver.slice(0, 2);

  it("both num_clusters and vehicles: 400 naming both", () => {
    const err = refusal({ stops: two, num_clusters: 2, vehicles: [{ id: "v" }] });
    expect(err.status).toBe(400);
    expect(err.code).toBe("conflicting_fields");
    expect(err.message).toContain("num_clusters");
    expect(err.message).toContain("vehicles");
    expect(err.details).toEqual({ fields: ["num_clusters", "vehicles"] });
  });

  it("fewer than 2 stops, an unknown strategy, a bad coordinate, an unknown field: the schema names them", () => {
    expect(schemaIssues({ stops: [two[0]], num_clusters: 1 })).toEqual(["stops"]);
    expect(schemaIssues({ stops: two, strategy: "nearest" })).toEqual(["strategy"]);
    expect(schemaIssues({ stops: [two[0], { lat: 91, lng: 11.9 }] })).toEqual(["stops.1.lat"]);
    expect(schemaIssues({ stops: [two[0], { lat: 57.7, lng: Number.NaN }] })).toEqual(["stops.1.lng"]);
    expect(schemaIssues({ stops: two, num_clusters: 0 })).toEqual(["num_clusters"]);
    expect(schemaIssues({ stops: two, numClusters: 2 })).toEqual([""]);
    expect(schemaIssues({ stops: two, vehicle_type: "boat", road_aware: true })).toEqual(["vehicle_type"]);
  });

  it("more clusters than stops, and a strategy that needs vehicles without them", () => {
    expect(refusal({ stops: two, num_clusters: 3 })).toMatchObject({ status: 400, field: "num_clusters" });
    expect(refusal({ stops: two, strategy: "fill_vehicle_first" })).toMatchObject({ status: 400, field: "vehicles" });
    expect(refusal({ stops: two, num_clusters: 1, strategy: "min_vehicles" })).toMatchObject({ status: 400, field: "vehicles" });
  });

  it("duplicate stop or vehicle ids", () => {
    expect(refusal({ stops: [two[0], { ...two[1], id: two[0].id }] })).toMatchObject({ status: 400, field: "stops[1].id" });
    expect(refusal({ stops: two, vehicles: [{ id: "v" }, { id: "v" }] })).toMatchObject({ status: 400, field: "vehicles[1].id" });
  });

  it("a point outside the covered area: 422 naming it, on both distance bases", () => {
    for (const road_aware of [false, true]) {
      const err = refusal({ stops: [two[0], { lat: 59.33, lng: 18.06 }], road_aware });
      expect(err).toMatchObject({ status: 422, code: "outside_coverage", field: "stops[1]" });
      expect(err.details?.coverage_bbox).toEqual(ctx.engine.bbox);
    }
    expect(refusal({ stops: two, depot: { lat: 57.9, lng: 11.9 }, road_aware: true })).toMatchObject({ status: 422, field: "depot" });
    expect(refusal({ stops: two, vehicles: [{ start: { lat: 57.5, lng: 11.9 } }] })).toMatchObject({ status: 422, field: "vehicles[0].start" });
  });

  it("accepts the request types it documents", () => {
    const body: z.input<typeof clusterRequestSchema> = { stops: two, num_clusters: 1 };
    const parsed: ClusterRequest = clusterRequestSchema.parse(body);
    expect(parsed).toMatchObject({ strategy: "balanced", balance_workload: false, road_aware: false });
  });
});
