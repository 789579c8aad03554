import { describe, expect, it } from "vitest";
import { permutations } from "../optimize/exact.ts";
import { RequestError, type Point } from "./common.ts";
import { directionsOperation } from "./directions.ts";
import { optimizeOperation as op } from "./optimize.ts";
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
const stops = Object.entries(PLACES).map(([id, p]) => ({ id, ...p }));

function run(body: unknown) {
  const out = op.run(op.request.parse(body), testContext());
  return op.response.parse(out);
}

function refusal(body: unknown): RequestError {
  try {
    op.run(op.request.parse(body), testContext());
  } catch (err) {
    if (err instanceof RequestError) return err;
    throw err;
  }
  throw new Error("expected a RequestError");
}

/** The tour's cost by the engine's matrix (what the solver minimised). */
function tourSeconds(order: string[], start: Point, end: Point | null): number {
  const ctx = testContext();
  const points = [start, ...order.map((id) => PLACES[id]), ...(end ? [end] : [])].map((p) => [p.lng, p.lat] as [number, number]);
  const m = ctx.engine.matrix(points, points, { profile: "car", optimizeFor: "time" });
  let t = 0;
  for (let k = 1; k < points.length; k++) t += m.durations[k - 1][k]!;
  return t;
}

describe("optimize on the Gothenburg network", () => {
  it("answers the example request: every stop once, a round trip back to the start, attribution", () => {
    const out = run(op.exampleRequest);
    expect(out.stops.map((s) => s.id).sort()).toEqual(["centralen", "gotaplatsen", "haga", "jarntorget", "lindholmen"]);
    expect(out.stops.map((s) => s.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect(out.round_trip).toBe(true);
    expect(out.start!.location).toEqual(out.end!.location);
    expect(out.distance).toBeGreaterThan(1000);
    expect(out.geometry!.coordinates.length).toBeGreaterThan(10);
    expect(out.bbox[0]).toBeLessThan(out.bbox[2]);
    expect(out.attribution).toMatch(/OpenStreetMap/);
    // Lindholmen's window opens at 10:30 local: it is served inside it (waiting if early).
    const lindholmen = out.stops.find((s) => s.id === "lindholmen")!;
    expect(Date.parse(lindholmen.arrival) + lindholmen.wait_seconds * 1000).toBeGreaterThanOrEqual(Date.parse("2026-11-26T10:30:00+01:00") - 1000);
    expect(out.unmet_time_windows).toEqual([]);
  });

  it("finds the best closed tour (equal to trying every order on the engine's matrix)", () => {
    const out = run({ start: BRUNNSPARKEN, stops, geometry: "none" });
    expect(out.geometry).toBeUndefined();
    const got = tourSeconds(
      out.stops.map((s) => s.id),
      BRUNNSPARKEN,
      BRUNNSPARKEN,
    );
    let best = Infinity;
    for (const order of permutations([...Array(stops.length).keys()]))
      best = Math.min(
        best,
        tourSeconds(
          order.map((i) => stops[i].id),
          BRUNNSPARKEN,
          BRUNNSPARKEN,
        ),
      );
    expect(got).toBeCloseTo(best, 6);
  }, 60_000);

  it("is deterministic: the same request gives the same answer", () => {
    const body = { start: BRUNNSPARKEN, stops, optimize_for: "distance" };
    expect(run(body)).toEqual(run(body));
  });

  it("an end makes an open route that finishes there; neither start nor end starts at a stop", () => {
    const open = run({ start: BRUNNSPARKEN, end: PLACES.lindholmen, stops: stops.filter((s) => s.id !== "lindholmen") });
    expect(open.round_trip).toBe(false);
    expect(open.end!.location).not.toEqual(open.start!.location);
    const free = run({ stops });
    expect(free.start).toBeUndefined();
    expect(free.end).toBeUndefined();
    // Starting at the first stop: it is reached at departure.
    expect(free.stops[0].arrival).toBe(free.departure);
  });

  it("reports windows no order can meet, with the lateness, and waits for windows that open later", () => {
    const out = run({
      start: BRUNNSPARKEN,
      departure: "2026-11-26T08:00:00+01:00",
      stops: [
        { ...stops[0], time_window: { start: "2026-11-26T07:00:00+01:00", end: "2026-11-26T07:30:00+01:00" } },
        { ...stops[1], time_window: { start: "2026-11-26T09:00:00+01:00", end: "2026-11-26T09:30:00+01:00" } },
        stops[2],
      ],
    });
    expect(out.unmet_time_windows.map((u) => u.id)).toEqual(["jarntorget"]);
    const late = out.stops.find((s) => s.id === "jarntorget")!;
    expect(late.late_seconds).toBeGreaterThan(1800);
    expect(out.unmet_time_windows[0].late_seconds).toBe(late.late_seconds);
    const waiting = out.stops.find((s) => s.id === "gotaplatsen")!;
    expect(waiting.wait_seconds).toBeGreaterThan(0);
    expect(waiting.late_seconds).toBe(0);
  });

  it("refuses fewer than 2 stops, too many stops and duplicate ids, naming the field", () => {
    const one = op.request.safeParse({ stops: [stops[0]] });
    expect(one.success).toBe(false);
    expect(one.error!.issues[0].path).toEqual(["stops"]);
    const many = op.request.safeParse({ stops: Array.from({ length: 101 }, () => stops[0]) });
    expect(many.success).toBe(false);
    expect(many.error!.issues[0].path).toEqual(["stops"]);
    const duplicate = refusal({ stops: [stops[0], { ...stops[1], id: "jarntorget" }] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.field).toBe("stops[1].id");
  });

  it("a stop outside the covered area is a 422 naming that stop", () => {
    const err = refusal({ start: BRUNNSPARKEN, stops: [stops[0], { id: "oslo", lat: 59.91, lng: 10.75 }] });
    expect(err.status).toBe(422);
    expect(err.code).toBe("outside_coverage");
    expect(err.field).toBe("stops[1]");
  });

  it("a stop cut off from the start (an island, a one-way trap) is a 422 naming it", () => {
    // Find, deterministically, a point the car network cannot reach from Brunnsparken.
    const ctx = testContext();
    const grid: [number, number][] = [];
    for (let lat = 57.66; lat < 57.75; lat += 0.004) for (let lng = 11.87; lng < 12.08; lng += 0.006) grid.push([lng, lat]);
    const from: [number, number] = [BRUNNSPARKEN.lng, BRUNNSPARKEN.lat];
    const usable = grid.filter((p) => {
      try {
        ctx.engine.snap(p, { profile: "car" });
        return true;
      } catch {
        return false;
      }
    });
    const m = ctx.engine.matrix([from], usable, { profile: "car" });
    const island = usable.find((_, j) => m.durations[0][j] === null);
    expect(island).toBeDefined();
    const err = refusal({ start: BRUNNSPARKEN, stops: [stops[0], { id: "island", lng: island![0], lat: island![1] }] });
    expect(err.status).toBe(422);
    expect(err.code).toBe("unreachable_stop");
    expect(err.field).toBe("stops[1]");
  }, 60_000);

  it("orders 50 stops, each once (its speed is measured by npm run bench:routes, not asserted here)", () => {
    const ctx = testContext();
    const points: Point[] = [];
    for (let lat = 57.69; points.length < 50 && lat < 57.72; lat += 0.0031)
      for (let lng = 11.935; points.length < 50 && lng < 11.995; lng += 0.0067) points.push({ lat, lng });
    const coords = [BRUNNSPARKEN, ...points].map((p) => [p.lng, p.lat] as [number, number]);
    const m = ctx.engine.matrix(coords, coords, { profile: "car" });
    const reachable = points.filter((_, i) => m.durations[0][i + 1] !== null && m.durations[i + 1][0] !== null);
    const body = op.request.parse({ start: BRUNNSPARKEN, stops: reachable.map((p, i) => ({ id: `s${i}`, ...p, service_seconds: 120 })) });
    const out = op.run(body, ctx);
    expect(out.stops).toHaveLength(reachable.length);
    expect(new Set(out.stops.map((s: { id: string }) => s.id)).size).toBe(reachable.length);
  }, 60_000);
});

describe("optimize_for fuel", () => {
  it("orders the stops by the engine's fuel weights: never more fuel than the time-optimal order's, and directions answer fuel routes", () => {
    const ctx = testContext();
    const body = {
      start: { lat: 57.7066, lng: 11.9686 },
      stops: [
        { id: "a", lat: 57.6998, lng: 11.9527 },
        { id: "b", lat: 57.6973, lng: 11.9797 },
        { id: "c", lat: 57.7068, lng: 11.9382 },
        { id: "d", lat: 57.7155, lng: 11.9731 },
        { id: "e", lat: 57.6889, lng: 11.9512 },
      ],
    };
    const order = (optimizeFor: "time" | "fuel") =>
      op.run(op.request.parse({ ...body, optimize_for: optimizeFor }), ctx).stops.map((s: { id: string }) => s.id);
    const points: [number, number][] = [[11.9686, 57.7066], ...body.stops.map((s): [number, number] => [s.lng, s.lat])];
    const fuel = ctx.engine.matrix(points, points, { profile: "car", optimizeFor: "fuel" }).weights;
    const index = (id: string) => 1 + body.stops.findIndex((s) => s.id === id);
    const tourFuel = (ids: string[]) => {
      const seq = [0, ...ids.map(index), 0];
      return seq.slice(1).reduce((sum, to, k) => sum + fuel[seq[k]][to]!, 0);
    };
    expect(tourFuel(order("fuel"))).toBeLessThanOrEqual(tourFuel(order("time")) + 1e-6);
    const directions = directionsOperation.run(
      directionsOperation.request.parse({ waypoints: [body.start, { lat: body.stops[0].lat, lng: body.stops[0].lng }], optimize_for: "fuel" }),
      ctx,
    );
    expect(directions.distance).toBeGreaterThan(0);
  });
});

describe("request hygiene", () => {
  const stops = [
    { id: "a", lat: 57.6998, lng: 11.9527 },
    { id: "b", lat: 57.6973, lng: 11.9797 },
  ];
  it("a misspelt stop field is refused, never silently dropped", () => {
    const parsed = op.request.safeParse({ stops: [{ ...stops[0], service_second: 300 }, stops[1]] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["service_second"], path: ["stops", 0] });
  });
  it("times outside the years 2000-2099 are refused", () => {
    expect(op.request.safeParse({ stops, departure: "9999-01-01T00:00:00Z" }).success).toBe(false);
    const window = { start: "1970-01-01T00:00:00Z", end: "2026-11-26T12:00:00Z" };
    expect(op.request.safeParse({ stops: [{ ...stops[0], time_window: window }, stops[1]] }).success).toBe(false);
    expect(op.request.safeParse({ stops, departure: "2026-11-26T08:00:00+01:00" }).success).toBe(true);
  });
});
