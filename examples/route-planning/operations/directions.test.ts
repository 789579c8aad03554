// /directions on the real Gothenburg network: steps that add up to their legs and lie on their own
// geometry, instruction text in English and Swedish, a roundabout exit, a U-turn at a via point, the
// three geometry modes, and the errors (unreachable leg, bad locale, invalid fields) with their fields.
import { beforeAll, describe, expect, it } from "vitest";
import { U_TURN_SECONDS, type RouteEngine } from "../engine/index.ts";
import { haversineMeters } from "../engine/road-network.ts";
import { segmentGeometry } from "../engine/snap.ts";
import { runOperation } from "../origin.ts";
import { type OperationContext, type Point } from "./common.ts";
import { directionsOperation } from "./directions.ts";
import { testContext } from "./test-engine.ts";

let ctx: OperationContext;
let engine: RouteEngine;
beforeAll(() => {
  ctx = testContext();
  engine = ctx.engine;
}, 180_000);

const brunnsparken = { lat: 57.7066, lng: 11.9686 };
const gotaplatsen = { lat: 57.6973, lng: 11.9797 };
const jarntorget = { lat: 57.6998, lng: 11.9527 };
const lindholmen = { lat: 57.7068, lng: 11.9382 };

type Answer = ReturnType<typeof directionsOperation.run>;

function directions(body: Record<string, unknown>): Answer {
  const answer = runOperation(directionsOperation, body, ctx);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  // What leaves the origin is what the response schema describes.
  return directionsOperation.response.parse(answer.body) as Answer;
}

function refused(body: Record<string, unknown>) {
  const answer = runOperation(directionsOperation, body, ctx);
  return { status: answer.status, error: (answer.body as { error: { code: string; field?: string; message: string } }).error };
}

const lineMeters = (coords: [number, number][]) => coords.slice(1).reduce((t, c, i) => t + haversineMeters(coords[i][0], coords[i][1], c[0], c[1]), 0);
const pointOn = (segment: number, fraction: number): Point => {
  const [lng, lat] = segmentGeometry(engine.network, segment, fraction, fraction)[0];
  return { lat, lng };
};

describe("steps", () => {
  it("add up to their leg and lie along their own geometry", () => {
    const answer = directions({ waypoints: [brunnsparken, jarntorget, lindholmen, gotaplatsen], steps: true, geometry: "full" });
    expect(answer.legs).toHaveLength(3);
    for (const leg of answer.legs) {
      const steps = leg.steps!;
      expect(steps[0].maneuver.type).toMatch(/^(depart|continue)$/);
      expect(steps.at(-1)!.maneuver.type).toBe("arrive");
      expect(steps.at(-1)!.distance).toBe(0);
      // Each step's figures are rounded to 0.1: the sums may drift by 0.05 a step.
      expect(Math.abs(steps.reduce((t, s) => t + s.distance, 0) - leg.distance)).toBeLessThanOrEqual(0.05 * steps.length + 0.05);
      expect(Math.abs(steps.reduce((t, s) => t + s.duration, 0) - leg.duration)).toBeLessThanOrEqual(0.05 * steps.length + 0.05);
      for (const [i, step] of steps.entries()) {
        const coords = step.geometry!.coordinates;
        expect(coords[0]).toEqual(step.maneuver.location);
        if (i + 1 < steps.length) {
          // A step runs from its maneuver to the next one, and is as long as its line.
          expect(coords.at(-1)).toEqual(steps[i + 1].maneuver.location);
          expect(Math.abs(lineMeters(coords) - step.distance)).toBeLessThan(Math.max(1, step.distance * 0.01));
          expect(step.duration).toBeGreaterThan(0);
        }
        expect(step.maneuver.bearing_before).toBeGreaterThanOrEqual(0);
        expect(step.maneuver.bearing_after).toBeLessThan(360);
        if (step.maneuver.type !== "depart" && step.maneuver.type !== "arrive") expect(step.maneuver.modifier).toBeDefined();
      }
    }
    expect(answer.legs.reduce((t, l) => t + l.distance, 0)).toBeCloseTo(answer.distance, 0);
  });

  it("a leg between two equal waypoints departs and arrives at once", () => {
    const answer = directions({ waypoints: [brunnsparken, brunnsparken, gotaplatsen], steps: true });
    expect(answer.legs[0].distance).toBe(0);
    expect(answer.legs[0].steps!.map((s) => [s.maneuver.type, s.distance])).toEqual([
      ["depart", 0],
      ["arrive", 0],
    ]);
    expect(answer.legs[1].steps!.length).toBeGreaterThan(2);
  });

  it("are only there when asked", () => {
    const answer = directions({ waypoints: [brunnsparken, gotaplatsen] });
    expect(answer.legs[0]).not.toHaveProperty("steps");
    expect(answer.legs[0].distance).toBe(answer.distance);
  });

  it("name roads and turns in English and in Swedish", () => {
    const en = directions({ waypoints: [brunnsparken, gotaplatsen], steps: true, locale: "en" });
    const sv = directions({ waypoints: [brunnsparken, gotaplatsen], steps: true, locale: "sv-SE" });
    expect(en.locale).toBe("en");
    expect(sv.locale).toBe("sv");
    const enText = en.legs[0].steps!.map((s) => s.instruction);
    const svText = sv.legs[0].steps!.map((s) => s.instruction);
    expect(enText[0]).toMatch(/^Head (north|south|east|west|northeast|northwest|southeast|southwest)/);
    expect(svText[0]).toMatch(/^Kör åt /);
    expect(enText.some((t) => /^Turn (left|right)/.test(t))).toBe(true);
    expect(svText.some((t) => /^Sväng (vänster|höger)/.test(t))).toBe(true);
    expect(enText.at(-1)).toMatch(/^You have arrived at your destination/);
    expect(svText.at(-1)).toMatch(/^Du är framme/);
    // Road names are the OSM names, the same in every language.
    const named = en.legs[0].steps!.filter((s) => s.name);
    expect(named.length).toBeGreaterThan(3);
    for (const s of named) expect(sv.legs[0].steps!.find((t) => t.name === s.name && t.instruction.includes(s.name))).toBeDefined();
  });

  it("fall back to English for a language without a translation", () => {
    const answer = directions({ waypoints: [brunnsparken, gotaplatsen], steps: true, locale: "is-IS" });
    expect(answer.locale).toBe("en");
    expect(answer.legs[0].steps![0].instruction).toMatch(/^Head /);
  });

  it("give a roundabout its exit number (Järntorget to Lindholmen)", () => {
    const answer = directions({ waypoints: [jarntorget, lindholmen], steps: true, locale: "en" });
    const roundabouts = answer.legs[0].steps!.filter((s) => s.maneuver.type === "roundabout");
    expect(roundabouts.length).toBeGreaterThanOrEqual(1);
    for (const r of roundabouts) {
      expect(r.maneuver.exit).toBeGreaterThanOrEqual(1);
      // Onto the exit road, or towards its signposted destinations (OSM destination=*) where it has them.
      expect(r.instruction).toMatch(new RegExp(`^Enter the roundabout and take the \\w+ exit (onto ${r.name}|towards ${r.destinations?.split(",")[0]})`));
    }
    // The motorway part: on ramp, merge, off ramp.
    const types = answer.legs[0].steps!.map((s) => s.maneuver.type);
    expect(types).toEqual(expect.arrayContaining(["on ramp", "merge", "off ramp"]));
    // Right-hand traffic: ramps join the carriageway from its right (merge left) and leave it to the right.
    const modifiersOf = (type: string) => answer.legs[0].steps!.filter((s) => s.maneuver.type === type).map((s) => s.maneuver.modifier);
    expect(new Set(modifiersOf("merge"))).toEqual(new Set(["slight left"]));
    expect(new Set(modifiersOf("off ramp"))).toEqual(new Set(["slight right"]));
    const sv = directions({ waypoints: [jarntorget, lindholmen], steps: true, locale: "sv" });
    expect(sv.legs[0].steps!.filter((s) => s.maneuver.type === "roundabout").map((s) => s.instruction)).toEqual(
      roundabouts.map((r) => expect.stringMatching(new RegExp(`^I rondellen ta ${r.maneuver.exit}:[ae] avfarten`))),
    );
  });

  it("turn back at a via point with a U-turn maneuver that carries the U-turn time", () => {
    const w = engine.network.wayIds.indexOf("way/15069216");
    const s = [...engine.network.segmentWay.keys()].find((x) => engine.network.segmentWay[x] === w)!;
    const answer = directions({ waypoints: [pointOn(s, 0.2), pointOn(s, 0.6), pointOn(s, 0.4)], steps: true });
    const second = answer.legs[1].steps!;
    expect(second[0].maneuver).toMatchObject({ type: "continue", modifier: "uturn" });
    expect(second[0].instruction).toMatch(/^Make a U-turn/);
    expect(Math.abs(second[0].maneuver.bearing_after - ((second[0].maneuver.bearing_before + 180) % 360))).toBeLessThan(15);
    expect(second[0].duration).toBeGreaterThan(U_TURN_SECONDS.car);
    expect(answer.legs[0].steps!.at(-1)!.instruction).toMatch(/^You have arrived at your 1st destination/);
  });
});

describe("geometry", () => {
  it("full has every vertex, simplified stays within about 20 m of it, none leaves it out", () => {
    const body = { waypoints: [jarntorget, gotaplatsen], steps: true };
    const full = directions({ ...body, geometry: "full" });
    const simplified = directions(body);
    const none = directions({ ...body, geometry: "none" });
    const fullLine = full.geometry!.coordinates;
    const simple = simplified.geometry!.coordinates;
    expect(fullLine.length).toBeGreaterThan(simple.length);
    expect(simple[0]).toEqual(fullLine[0]);
    expect(simple.at(-1)).toEqual(fullLine.at(-1));
    // Every dropped vertex lies within the tolerance of the simplified line.
    const toSegment = (p: [number, number], a: [number, number], b: [number, number]) => {
      const k = Math.cos((p[1] * Math.PI) / 180) * 111_320;
      const [px, py, ax, ay, bx, by] = [p[0] * k, p[1] * 111_320, a[0] * k, a[1] * 111_320, b[0] * k, b[1] * 111_320];
      const len2 = (bx - ax) ** 2 + (by - ay) ** 2;
      const t = len2 ? Math.max(0, Math.min(1, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / len2)) : 0;
      return Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)));
    };
    for (const p of fullLine) expect(Math.min(...simple.slice(1).map((b, i) => toSegment(p, simple[i], b)))).toBeLessThanOrEqual(21);
    expect(none).not.toHaveProperty("geometry");
    expect(none.legs[0].steps!.every((s) => !("geometry" in s))).toBe(true);
    expect(none.distance).toBe(full.distance);
    expect(none.bbox).toEqual(full.bbox);
    expect(none.legs[0].steps!.map((s) => s.instruction)).toEqual(full.legs[0].steps!.map((s) => s.instruction));
  });

  it("the bbox holds the whole line and touches it on every side", () => {
    const answer = directions({ waypoints: [brunnsparken, lindholmen, gotaplatsen], geometry: "full" });
    const [minLng, minLat, maxLng, maxLat] = answer.bbox;
    const line = answer.geometry!.coordinates;
    for (const [lng, lat] of line) {
      expect(lng).toBeGreaterThanOrEqual(minLng);
      expect(lng).toBeLessThanOrEqual(maxLng);
      expect(lat).toBeGreaterThanOrEqual(minLat);
      expect(lat).toBeLessThanOrEqual(maxLat);
    }
    expect(Math.min(...line.map((c) => c[0]))).toBe(minLng);
    expect(Math.max(...line.map((c) => c[1]))).toBe(maxLat);
    expect(answer.waypoints).toHaveLength(3);
    expect(answer.waypoints[0].snap_distance).toBeGreaterThanOrEqual(0);
  });
});

describe("traffic", () => {
  it("says there is no live feed and names the band of the departure", () => {
    const answer = directions({ waypoints: [brunnsparken, gotaplatsen], traffic: true });
    // The test clock is 10:00 in Gothenburg: the midday band.
    expect(answer.traffic).toEqual({ applied: true, band: "midday", note: expect.stringContaining("No live traffic feed") });
    const free = directions({ waypoints: [brunnsparken, gotaplatsen] });
    expect(free).not.toHaveProperty("traffic");
    const peak = directions({ waypoints: [brunnsparken, gotaplatsen], traffic: true, departure: "2026-11-26T07:30:00+01:00" });
    expect(peak.traffic!.band).toBe("morning_peak");
    expect(peak.duration).toBeGreaterThan(free.duration);
  });
});

describe("errors", () => {
  it("an unreachable leg is a 422 naming it", () => {
    // A piece of road the car network around the centre never reaches: an island.
    const net = engine.network;
    const centre = engine.snap([11.9668, 57.7089], { profile: "car" });
    const island = [...net.segmentWay.keys()].find((s) => {
      if (net.segmentLength[s] < 40) return false;
      const [lng, lat] = segmentGeometry(net, s, 0.5, 0.5)[0];
      try {
        return engine.snap([lng, lat], { profile: "car" }).segment === s && engine.route([centre.input, [lng, lat]], { profile: "car" }) === null;
      } catch {
        return false;
      }
    });
    expect(island).toBeDefined();
    const unreachable = pointOn(island!, 0.5);
    const { status, error } = refused({ waypoints: [brunnsparken, gotaplatsen, unreachable] });
    expect(status).toBe(422);
    expect(error).toMatchObject({ code: "no_route", field: "waypoints[2]" });
    expect(error.message).toContain("waypoints[1] to waypoints[2]");
  });

  it("a locale that is not a language tag is a 400 naming locale", () => {
    for (const locale of ["../", "x".repeat(50), "en;drop", 42]) {
      const { status, error } = refused({ waypoints: [brunnsparken, gotaplatsen], steps: true, locale });
      expect(status, String(locale)).toBe(400);
      expect(error).toMatchObject({ code: "invalid_request", field: "locale" });
    }
  });

  it("invalid fields are 400s naming the field; places outside the map 422", () => {
    expect(refused({ waypoints: [brunnsparken] }).error.field).toBe("waypoints");
    expect(refused({ waypoints: Array(26).fill(brunnsparken) }).error.field).toBe("waypoints");
    expect(refused({ waypoints: [brunnsparken, { lat: 91, lng: 11.97 }] }).error.field).toBe("waypoints[1].lat");
    expect(refused({ waypoints: [brunnsparken, gotaplatsen], vehicle_type: "plane" }).error.field).toBe("vehicle_type");
    expect(refused({ waypoints: [brunnsparken, gotaplatsen], geometry: "some" }).error.field).toBe("geometry");
    expect(refused({ waypoints: [brunnsparken, gotaplatsen], steps: "yes" }).error.field).toBe("steps");
    expect(refused({ waypoints: [brunnsparken, gotaplatsen], departure: "tomorrow" }).error.field).toBe("departure");
    expect(refused({ waypoints: [brunnsparken, gotaplatsen], colour: "red" }).error.field).toBe("colour");
    const outside = refused({ waypoints: [brunnsparken, { lat: 59.33, lng: 18.07 }] });
    expect(outside.status).toBe(422);
    expect(outside.error).toMatchObject({ code: "outside_coverage", field: "waypoints[1]" });
  });
});

describe("random routes", () => {
  it("every profile and many languages: steps add up, text has no unfilled token, navigate agrees", async () => {
    const { navigateOperation } = await import("./navigate.ts");
    let seed = 20;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const [minLng, minLat, maxLng, maxLat] = engine.bbox;
    const languages = ["en", "sv", "de", "fr", "ja", "ar", "ru", "zh-Hans", "fi", "nb"];
    let answered = 0;
    for (let k = 0; k < 80; k++) {
      const waypoints = Array.from({ length: 2 + (k % 3) }, () => ({
        lng: minLng + (maxLng - minLng) * (0.2 + 0.6 * random()),
        lat: minLat + (maxLat - minLat) * (0.2 + 0.6 * random()),
      }));
      const body = { waypoints, vehicle_type: ["car", "bike", "truck", "van"][k % 4], locale: languages[k % languages.length] };
      const answer = runOperation(directionsOperation, { ...body, steps: true }, ctx);
      const nav = runOperation(navigateOperation, body, ctx);
      expect(nav.status).toBe(answer.status);
      if (answer.status !== 200) {
        expect([422]).toContain(answer.status);
        continue;
      }
      answered++;
      const d = directionsOperation.response.parse(answer.body) as Answer;
      const n = navigateOperation.response.parse(nav.body) as ReturnType<typeof navigateOperation.run>;
      expect(n.routes[0].distance).toBe(d.distance);
      for (const [i, leg] of d.legs.entries()) {
        const steps = leg.steps!;
        expect(Math.abs(steps.reduce((t, s) => t + s.duration, 0) - leg.duration)).toBeLessThanOrEqual(0.05 * steps.length + 0.05);
        expect(n.routes[0].legs[i].steps.map((s) => s.maneuver.instruction)).toEqual(steps.map((s) => s.instruction));
        for (const s of steps) expect(s.instruction).not.toMatch(/\{|undefined|null/);
        for (const s of n.routes[0].legs[i].steps) for (const v of s.voiceInstructions) expect(v.announcement).not.toMatch(/\{|undefined|null/);
      }
    }
    expect(answered).toBeGreaterThan(50);
  });
});
