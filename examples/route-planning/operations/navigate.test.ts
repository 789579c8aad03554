// /navigate on the real Gothenburg network: the Mapbox Directions v5 shape (code, routes, legs,
// steps, maneuvers, intersections, banner and voice instructions, polyline6, waypoints, uuid), and
// that its numbers are the route's: the polyline decodes to the engine's line, steps add up to legs,
// announcements fall inside their steps, in the requested language.
import polyline from "@mapbox/polyline";
import { beforeAll, describe, expect, it } from "vitest";
import { lngLat, round, type OperationContext } from "./common.ts";
import { runOperation } from "../origin.ts";
import { navigateOperation } from "./navigate.ts";
import { testContext } from "./test-engine.ts";

let ctx: OperationContext;
beforeAll(() => {
  ctx = testContext();
}, 180_000);

const brunnsparken = { lat: 57.7066, lng: 11.9686 };
const gotaplatsen = { lat: 57.6973, lng: 11.9797 };
const jarntorget = { lat: 57.6998, lng: 11.9527 };
const lindholmen = { lat: 57.7068, lng: 11.9382 };

type Answer = ReturnType<typeof navigateOperation.run>;

function navigate(body: Record<string, unknown>): Answer {
  const answer = runOperation(navigateOperation, body, ctx);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return navigateOperation.response.parse(answer.body) as Answer;
}

/** polyline6 back to [lng, lat]. */
const decode = (line: string) => polyline.decode(line, 6).map(([lat, lng]) => [lng, lat] as [number, number]);

describe("navigate", () => {
  it("answers in the Mapbox Directions v5 shape", () => {
    const answer = navigate({ waypoints: [jarntorget, lindholmen], locale: "en" });
    expect(answer.code).toBe("Ok");
    expect(answer.routes).toHaveLength(1);
    const route = answer.routes[0];
    expect(route).toMatchObject({ weight_name: "duration", voiceLocale: "en" });
    expect(route.legs).toHaveLength(1);
    expect(route.legs[0].summary).toMatch(/^[^,]+, [^,]+$/);
    const step = route.legs[0].steps[0];
    expect(Object.keys(step).sort()).toEqual(
      [
        "bannerInstructions",
        "distance",
        "driving_side",
        "duration",
        "geometry",
        "intersections",
        "maneuver",
        "mode",
        "name",
        "voiceInstructions",
        "weight",
      ].sort(),
    );
    expect(step).toMatchObject({ mode: "driving", driving_side: "right", maneuver: { type: "depart", instruction: expect.stringMatching(/^Head /) } });
    expect(step.intersections[0]).toMatchObject({ location: step.maneuver.location, out: 0, entry: [true] });
    expect(answer.waypoints).toHaveLength(2);
    for (const w of answer.waypoints) {
      expect(typeof w.name).toBe("string");
      expect(w.location).toHaveLength(2);
      expect(w.distance).toBeGreaterThanOrEqual(0);
    }
    expect(answer.waypoints[0].name).toBe("Järntorget");
    expect(answer.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(answer.attribution).toContain("OpenStreetMap");
    // Roundabouts carry the exit, and the banner says how far round.
    const steps = route.legs[0].steps;
    const roundabout = steps.findIndex((s) => s.maneuver.type === "roundabout");
    expect(steps[roundabout].maneuver.exit).toBeGreaterThanOrEqual(1);
    expect(steps[roundabout - 1].bannerInstructions[0].primary).toMatchObject({ type: "roundabout", driving_side: "right", degrees: expect.any(Number) });
  });

  it("polyline6 decodes to the route's line, and the steps' lines join into it", () => {
    const body = { waypoints: [brunnsparken, lindholmen, gotaplatsen] };
    const answer = navigate(body);
    const route = ctx.engine.route(body.waypoints.map(lngLat), { profile: "car" })!;
    const decoded = decode(answer.routes[0].geometry);
    expect(decoded).toEqual(route.coordinates.map(([lng, lat]) => [round(lng, 6), round(lat, 6)]));
    const joined: [number, number][] = [];
    for (const leg of answer.routes[0].legs)
      for (const step of leg.steps) {
        const line = decode(step.geometry);
        expect(line[0]).toEqual(step.maneuver.location);
        if (step.maneuver.type === "arrive") continue;
        joined.push(...(joined.length ? line.slice(1) : line));
      }
    // Legs meet at the via point: its vertex appears once in the route, at the end of one leg and the start of the next.
    const dedupe = (l: [number, number][]) => l.filter((c, i) => i === 0 || c[0] !== l[i - 1][0] || c[1] !== l[i - 1][1]);
    expect(dedupe(joined)).toEqual(dedupe(decoded));
    expect(answer.routes[0].distance).toBeCloseTo(route.distance, 0);
    expect(answer.routes[0].duration).toBeCloseTo(route.duration, 0);
  });

  it("every step has banner and voice instructions for the maneuver that ends it, within the step", () => {
    const answer = navigate({ waypoints: [jarntorget, lindholmen, gotaplatsen], locale: "en" });
    for (const leg of answer.routes[0].legs) {
      const steps = leg.steps;
      expect(Math.abs(steps.reduce((t, s) => t + s.distance, 0) - leg.distance)).toBeLessThanOrEqual(0.05 * steps.length + 0.05);
      for (const [i, step] of steps.entries()) {
        if (step.maneuver.type === "arrive") {
          // As Mapbox does: the arrival was announced by the step before; the arrive step has none.
          expect(i).toBe(steps.length - 1);
          expect(step.bannerInstructions).toEqual([]);
          expect(step.voiceInstructions).toEqual([]);
          continue;
        }
        const next = steps[i + 1];
        // The SDK reads the maneuver's junction as the step's first intersection.
        expect(step.intersections[0].location).toEqual(step.maneuver.location);
        expect(step.intersections[0].out).toBeDefined();
        expect(step.bannerInstructions).toHaveLength(1);
        const banner = step.bannerInstructions[0];
        expect(banner.distanceAlongGeometry).toBe(step.distance);
        expect(banner.primary.type).toBe(next.maneuver.type);
        expect(banner.primary.modifier).toBe(next.maneuver.modifier);
        expect(banner.primary.text).toBe(banner.primary.components.map((c) => c.text).join(" "));
        if (next.name) expect(banner.primary.text).toContain(next.name);
        const voices = step.voiceInstructions;
        expect(voices.length).toBeGreaterThanOrEqual(1);
        for (const [k, v] of voices.entries()) {
          expect(v.distanceAlongGeometry).toBeGreaterThan(0);
          expect(v.distanceAlongGeometry).toBeLessThanOrEqual(step.distance);
          if (k > 0) expect(v.distanceAlongGeometry).toBeLessThan(voices[k - 1].distanceAlongGeometry);
          expect(v.ssmlAnnouncement).toBe(`<speak><amazon:effect name="drc"><prosody rate="1.08">${v.announcement}</prosody></amazon:effect></speak>`);
        }
        // The last announcement, spoken shortly before the maneuver, is the next step's instruction (or starts with it).
        const last = voices.at(-1)!;
        expect(last.distanceAlongGeometry).toBeLessThanOrEqual(150);
        expect(last.announcement.toLowerCase().startsWith(next.maneuver.instruction.toLowerCase()) || last.announcement.includes(", then")).toBe(true);
        if (i === 0) expect(voices[0].announcement.startsWith(step.maneuver.instruction)).toBe(true);
      }
    }
    // A long step warns well ahead: "In 500 meters, turn left".
    const long = answer.routes[0].legs.flatMap((l) => l.steps).filter((s) => s.distance > 600);
    expect(long.length).toBeGreaterThan(0);
    for (const s of long)
      expect(s.voiceInstructions.some((v) => /^In [\d.,]+ (meters|kilometers), /.test(v.announcement) && v.distanceAlongGeometry >= 100)).toBe(true);
  });

  it("speaks Swedish when asked", () => {
    const answer = navigate({ waypoints: [brunnsparken, gotaplatsen], locale: "sv" });
    const route = answer.routes[0];
    expect(route.voiceLocale).toBe("sv");
    const announcements = route.legs[0].steps.flatMap((s) => s.voiceInstructions.map((v) => v.announcement));
    expect(announcements.some((a) => /Sväng (vänster|höger)/i.test(a))).toBe(true);
    expect(announcements.some((a) => /Du är (snart )?framme/.test(a))).toBe(true);
    expect(route.legs[0].steps[0].maneuver.instruction).toMatch(/^Kör åt /);
  });

  it("the uuid is the request's: the same request, the same uuid", () => {
    const a = navigate({ waypoints: [brunnsparken, gotaplatsen] });
    const b = navigate({ waypoints: [brunnsparken, gotaplatsen] });
    const c = navigate({ waypoints: [gotaplatsen, brunnsparken] });
    expect(a.uuid).toBe(b.uuid);
    expect(c.uuid).not.toBe(a.uuid);
  });

  it("traffic carries the no-live-feed note; errors are the directions' errors", () => {
    const answer = navigate({ waypoints: [brunnsparken, gotaplatsen], traffic: true });
    expect(answer.traffic).toMatchObject({ applied: true, band: "midday", note: expect.stringContaining("No live traffic feed") });
    const bad = runOperation(navigateOperation, { waypoints: [brunnsparken, gotaplatsen], locale: "../" }, ctx);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { field: "locale" } });
    const one = runOperation(navigateOperation, { waypoints: [brunnsparken] }, ctx);
    expect(one.body).toMatchObject({ error: { field: "waypoints" } });
  });
});
