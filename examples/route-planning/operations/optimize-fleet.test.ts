import { describe, expect, it } from "vitest";
import { RequestError, type Point } from "./common.ts";
import { optimizeFleetOperation as op } from "./optimize-fleet.ts";
import { testContext } from "./test-engine.ts";

const BRUNNSPARKEN = { lat: 57.7066, lng: 11.9686 };
const PLACES: Record<string, Point> = {
  jarntorget: { lat: 57.6998, lng: 11.9527 },
  gotaplatsen: { lat: 57.6973, lng: 11.9797 },
  lindholmen: { lat: 57.7068, lng: 11.9382 },
  haga: { lat: 57.6989, lng: 11.9634 },
  centralen: { lat: 57.7089, lng: 11.9733 },
  liseberg: { lat: 57.6952, lng: 11.9925 },
};
const stops = Object.entries(PLACES).map(([id, p]) => ({ id, ...p, service_seconds: 120 }));

function run(body: unknown) {
  return op.response.parse(op.run(op.request.parse(body), testContext()));
}

function servedIds(out: ReturnType<typeof run>): string[] {
  return out.routes.flatMap((r) => r.stops.map((s) => s.id));
}

describe("optimize-fleet on the Gothenburg network", () => {
  it("answers the example request within every vehicle's capacity and stop limit", () => {
    const out = run(op.exampleRequest);
    const body = op.request.parse(op.exampleRequest);
    expect(servedIds(out).length + out.unassigned.length).toBe(body.stops.length);
    for (const [i, r] of out.routes.entries()) {
      const vehicle = body.vehicles[i];
      expect(r.vehicle_id).toBe(vehicle.id);
      expect(r.load.items).toBeLessThanOrEqual(vehicle.capacity!.items!);
      if (vehicle.max_stops) expect(r.stops.length).toBeLessThanOrEqual(vehicle.max_stops);
      expect(r.geometry).toBeUndefined();
    }
    expect(out.summary.stops_assigned).toBe(servedIds(out).length);
    expect(out.summary.vehicles_used).toBe(out.routes.filter((r) => r.stops.length).length);
    expect(out.attribution).toMatch(/OpenStreetMap/);
  });

  it("is deterministic: the same request gives the same answer", () => {
    const body = { start: BRUNNSPARKEN, stops, vehicles: [{ id: "a" }, { id: "b" }], options: { balance_workload: true } };
    expect(run(body)).toEqual(run(body));
  });

  it("stops that fit nowhere come back with a reason, never failing the call", () => {
    const out = run({
      start: BRUNNSPARKEN,
      stops: [
        ...stops.slice(0, 4).map((s) => ({ ...s, demand: { items: 2 } })),
        { ...stops[4], demand: { weight_kg: 5000 } },
        { ...stops[5], time_window: { start: "2026-11-26T07:00:00+01:00", end: "2026-11-26T07:10:00+01:00" } },
      ],
      vehicles: [
        { id: "small", capacity: { items: 4, weight_kg: 1000 } },
        { id: "tiny", capacity: { items: 2, weight_kg: 1000 }, max_stops: 1 },
      ],
    });
    const reasons = Object.fromEntries(out.unassigned.map((u) => [u.id, u.reason]));
    expect(reasons.centralen).toBe("capacity");
    expect(reasons.liseberg).toBe("time_window");
    // 4 stops of 2 items, room for 3 of them (4 + 2): one more is out, for capacity.
    expect(out.summary.stops_assigned).toBe(3);
    expect(out.unassigned).toHaveLength(3);
    expect(out.summary.stops_unassigned).toBe(3);
  });

  it("soft time windows serve the late stop and report by how much", () => {
    const out = run({
      start: BRUNNSPARKEN,
      stops: [stops[0], { ...stops[1], time_window: { start: "2026-11-26T07:00:00+01:00", end: "2026-11-26T07:10:00+01:00" } }],
      vehicles: [{ id: "van" }],
      options: { time_windows: "soft" },
    });
    expect(out.unassigned).toEqual([]);
    const late = out.routes[0].stops.find((s) => s.id === "gotaplatsen")!;
    // Departure is the context's 10:00 local; the window closed at 07:10: 2 h 50 min plus the drive.
    expect(late.late_seconds).toBeGreaterThan(2 * 3600 + 50 * 60);
  });

  it("higher priority stops are kept when not all fit", () => {
    const out = run({
      start: BRUNNSPARKEN,
      stops: stops.map((s, i) => ({ ...s, priority: i >= 4 ? 9 : 0 })),
      vehicles: [{ id: "van", max_stops: 2 }],
    });
    expect(servedIds(out).sort()).toEqual(["centralen", "liseberg"]);
    expect(out.unassigned.every((u) => u.reason === "max_stops")).toBe(true);
  });

  it("vehicles of different types, shifts, open routes and geometry on request", () => {
    const out = run({
      start: BRUNNSPARKEN,
      stops,
      vehicles: [
        { id: "bike", type: "bike", shift: { start: "2026-11-26T09:00:00+01:00", end: "2026-11-26T12:00:00+01:00" } },
        { id: "truck", type: "truck", start: PLACES.lindholmen },
      ],
      options: { return_to_start: false, include_geometry: true, optimize_for: "distance", balance_workload: true },
    });
    expect(out.routes.map((r) => r.vehicle_type)).toEqual(["bike", "truck"]);
    expect(out.routes[0].start_time).toBe("2026-11-26T08:00:00Z");
    for (const r of out.routes.filter((x) => x.stops.length)) {
      expect(r.geometry!.type).toBe("LineString");
      expect(r.bbox).toHaveLength(4);
      // No return: the route is over when the last stop is done.
      expect(r.end_time).toBe(r.stops[r.stops.length - 1].departure);
    }
    expect(servedIds(out).sort()).toEqual(Object.keys(PLACES).sort());
  });

  it("refuses duplicate vehicle ids, naming the field", () => {
    try {
      op.run(op.request.parse({ stops, vehicles: [{ id: "a" }, { id: "a" }] }), testContext());
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(RequestError);
      expect((err as RequestError).field).toBe("vehicles[1].id");
    }
    expect(op.request.safeParse({ stops: [], vehicles: [{}] }).success).toBe(false);
    expect(op.request.safeParse({ stops, vehicles: [] }).success).toBe(false);
  });

  it("plans 200 stops on 10 vehicles, every stop assigned (its speed is measured by npm run bench:routes, not asserted here)", () => {
    const ctx = testContext();
    const points: Point[] = [];
    for (let lat = 57.688; points.length < 230 && lat < 57.725; lat += 0.0021)
      for (let lng = 11.93; points.length < 230 && lng < 12.0; lng += 0.0041) points.push({ lat, lng });
    const coords = [BRUNNSPARKEN, ...points].map((p) => [p.lng, p.lat] as [number, number]);
    const m = ctx.engine.matrix(coords, coords, { profile: "van" });
    const reachable = points.filter((_, i) => m.durations[0][i + 1] !== null && m.durations[i + 1][0] !== null).slice(0, 200);
    expect(reachable).toHaveLength(200);
    const body = op.request.parse({
      start: BRUNNSPARKEN,
      stops: reachable.map((p, i) => ({ id: `s${i}`, ...p, service_seconds: 120, demand: { items: 1 + (i % 3) } })),
      vehicles: Array.from({ length: 10 }, (_, i) => ({ id: `v${i}`, capacity: { items: 50 } })),
      options: { balance_workload: true },
    });
    const out = op.run(body, ctx);
    expect(out.summary.stops_assigned).toBe(200);
  }, 60_000);
});
