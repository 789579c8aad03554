// The profile rules as tables: maxspeed and dimension parsing, one-way directions, access by class
// and tag, vehicle fit, and the deterministic traffic bands.
import { describe, expect, it } from "vitest";
import {
  effectiveDimensions,
  onewayDirection,
  parseLengthMeters,
  parseMaxspeed,
  parseWeightKg,
  trafficBandAt,
  trafficFactor,
  vehicleFits,
  wayAccess,
} from "./profiles.ts";

describe("parseMaxspeed", () => {
  it.each([
    ["50", 50],
    ["30 km/h", 30],
    ["50 mph", 50 * 1.609344],
    ["10 knots", 18.52],
    ["SE:urban", 50],
    ["SE:rural", 70],
    ["walk", 7],
    ["50;30", 50],
    ["signals", undefined],
    ["none", undefined],
    ["0", undefined],
    [undefined, undefined],
  ])("%s → %s km/h", (value, kmh) => {
    const parsed = parseMaxspeed(value);
    if (kmh === undefined) expect(parsed).toBeUndefined();
    else expect(parsed).toBeCloseTo(kmh, 6);
  });
});

describe("dimension parsing", () => {
  it.each([
    ["3.5", 3.5],
    ["3,5", 3.5],
    ["3.5 m", 3.5],
    ["350 cm", 3.5],
    [`4'6"`, 4 * 0.3048 + 6 * 0.0254],
    ["11 ft 6 in", 11 * 0.3048 + 6 * 0.0254],
    ["none", "none"],
    ["default", "none"],
    ["below_default", "unknown"],
    ["about 3", "unknown"],
  ])("length %s → %s", (value, meters) => {
    const parsed = parseLengthMeters(value);
    if (typeof meters === "number") expect(parsed).toBeCloseTo(meters, 6);
    else expect(parsed).toBe(meters);
  });

  it.each([
    ["3.5", 3500],
    ["3.5 t", 3500],
    ["7500 kg", 7500],
    ["2 st", 2 * 907.18474],
    ["5000 lbs", 5000 * 0.45359237],
    ["heavy", "unknown"],
  ])("weight %s → %s kg", (value, kg) => {
    const parsed = parseWeightKg(value);
    if (typeof kg === "number") expect(parsed).toBeCloseTo(kg, 6);
    else expect(parsed).toBe(kg);
  });
});

describe("one-way", () => {
  it.each([
    ["car", { highway: "residential", oneway: "yes" }, 1],
    ["car", { highway: "residential", oneway: "-1" }, -1],
    ["car", { highway: "residential", oneway: "no" }, 0],
    ["car", { highway: "residential" }, 0],
    ["car", { highway: "secondary", junction: "roundabout" }, 1],
    ["car", { highway: "secondary", junction: "roundabout", oneway: "no" }, 0],
    ["car", { highway: "motorway" }, 1],
    ["bike", { highway: "residential", oneway: "yes" }, 1],
    ["bike", { highway: "residential", oneway: "yes", "oneway:bicycle": "no" }, 0],
    ["bike", { highway: "residential", oneway: "yes", cycleway: "opposite_lane" }, 0],
    ["bike", { highway: "residential", oneway: "yes", "cycleway:left": "opposite_lane" }, 0],
    ["car", { highway: "residential", oneway: "yes", cycleway: "opposite_lane" }, 1],
    ["car", { highway: "service", oneway: "yes", "oneway:bicycle": "no" }, 1],
  ] as const)("%s on %j → %s", (profile, tags, direction) => {
    expect(onewayDirection(profile, tags)).toBe(direction);
  });
});

describe("access", () => {
  it.each([
    ["car", { highway: "footway" }, false],
    ["bike", { highway: "footway" }, false],
    ["bike", { highway: "footway", bicycle: "yes" }, true],
    ["bike", { highway: "cycleway" }, true],
    ["bike", { highway: "trunk" }, false],
    ["car", { highway: "trunk" }, true],
    ["truck", { highway: "service", hgv: "no" }, false],
    ["car", { highway: "service", hgv: "no" }, true],
    ["car", { highway: "service", access: "private" }, false],
    ["car", { highway: "service", vehicle: "delivery" }, false],
    ["van", { highway: "service", vehicle: "delivery" }, true],
    ["truck", { highway: "residential", motor_vehicle: "no", hgv: "yes" }, true],
    ["car", { highway: "residential", motor_vehicle: "no" }, false],
    ["car", { highway: "track" }, false],
    ["car", { highway: "construction" }, false],
    ["truck", { highway: "living_street" }, false],
  ] as const)("%s on %j → %s", (profile, tags, open) => {
    const a = wayAccess(profile, tags);
    expect(a.forward || a.backward).toBe(open);
  });

  it("takes maxspeed, else the class default, capped by the profile", () => {
    expect(wayAccess("car", { highway: "residential", maxspeed: "50" }).speedKmh).toBe(50);
    expect(wayAccess("car", { highway: "residential" }).speedKmh).toBe(30);
    expect(wayAccess("truck", { highway: "motorway", maxspeed: "110" }).speedKmh).toBe(80);
    expect(wayAccess("bike", { highway: "primary", maxspeed: "70" }).speedKmh).toBe(16);
    expect(wayAccess("bike", { highway: "footway", bicycle: "dismount" }).speedKmh).toBe(5);
  });
});

describe("vehicleFits", () => {
  it.each([
    [{ maxheight: "3.4" }, { height_meters: 3.5 }, false],
    [{ maxheight: "3.4" }, { height_meters: 3.4 }, true],
    [{ maxheight: "3.4" }, {}, true],
    [{ maxheight: `11'6"` }, { height_meters: 3.6 }, false],
    [{ maxheight: "below_default" }, { height_meters: 2 }, false],
    [{ maxheight: "below_default" }, { weight_kg: 2000 }, true],
    [{ maxweight: "2.5" }, { weight_kg: 3500 }, false],
    [{ maxweight: "2.5" }, { weight_kg: 2500 }, true],
    [{ maxwidth: "2.7" }, { width_meters: 2.55 }, true],
    [{ maxlength: "12" }, { length_meters: 16.5 }, false],
    [{ maxaxleload: "3.5" }, { axle_load_kg: 4000 }, false],
    [{ "hazmat:E": "no" }, { hazardous_goods: true }, false],
    [{ "hazmat:E": "no" }, { hazardous_goods: false }, true],
    [{ hazmat: "no" }, { hazardous_goods: true }, false],
  ] as const)("%j with %j → %s", (tags, vehicle, fits) => {
    expect(vehicleFits(tags, vehicle)).toBe(fits);
  });

  it("merges request dimensions over the profile's defaults field by field", () => {
    expect(effectiveDimensions("truck", { height_meters: 4 })).toMatchObject({ height_meters: 4, weight_kg: 18000 });
    expect(effectiveDimensions("car", undefined)).toEqual({});
  });
});

describe("traffic bands", () => {
  it("picks the band by Stockholm local time, whatever the machine's zone", () => {
    expect(trafficBandAt(new Date("2026-03-10T06:30:00Z"))).toBe("morning_peak"); // 07:30 CET
    expect(trafficBandAt(new Date("2026-07-10T06:30:00Z"))).toBe("morning_peak"); // 08:30 CEST
    expect(trafficBandAt(new Date("2026-07-10T01:00:00Z"))).toBe("night");
    expect(trafficBandAt(new Date("2026-07-10T14:30:00Z"))).toBe("evening_peak"); // 16:30 CEST
  });

  it("slows arterials more than urban streets in the peaks, never bikes", () => {
    expect(trafficFactor("morning_peak", "car", "primary")).toBe(0.6);
    expect(trafficFactor("morning_peak", "car", "residential")).toBe(0.8);
    expect(trafficFactor("morning_peak", "car", "service")).toBe(1);
    expect(trafficFactor("morning_peak", "bike", "primary")).toBe(1);
    expect(trafficFactor("night", "truck", "motorway")).toBe(1);
  });
});
