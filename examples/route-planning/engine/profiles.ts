// What each vehicle may use and how fast: access by highway class and OSM access tags, one-way
// rules, maxspeed parsing, the default speed table, vehicle dimensions against max* tags, and the
// deterministic time-of-day traffic factors. Pure functions of a way's tags (docs/route-planning.md).
import type { WayTags } from "./road-network.ts";

export const PROFILES = ["car", "van", "truck", "bike"] as const;
export type Profile = (typeof PROFILES)[number];

/** The request's `vehicle` object (spec 2.1), every field optional. */
export interface VehicleDimensions {
  weight_kg?: number;
  height_meters?: number;
  width_meters?: number;
  length_meters?: number;
  axle_load_kg?: number;
  hazardous_goods?: boolean;
}

/**
 * What a profile assumes when the request names no dimensions: a van is a 3.5 t high-roof panel van,
 * a truck a 2-axle 18 t rigid delivery truck. Explicit fields replace these one by one.
 */
export const DEFAULT_DIMENSIONS: Record<Profile, VehicleDimensions> = {
  car: {},
  van: { weight_kg: 3500, height_meters: 2.7, width_meters: 2.1, length_meters: 6.0 },
  truck: { weight_kg: 18000, height_meters: 3.6, width_meters: 2.55, length_meters: 10.0, axle_load_kg: 11500 },
  bike: {},
};

/** km/h on a way without a usable maxspeed tag (Swedish urban defaults; docs/route-planning.md). */
export const DEFAULT_SPEED_KMH: Record<string, number> = {
  motorway: 100,
  motorway_link: 60,
  trunk: 80,
  trunk_link: 50,
  primary: 60,
  primary_link: 40,
  secondary: 50,
  secondary_link: 40,
  tertiary: 50,
  tertiary_link: 30,
  unclassified: 40,
  residential: 30,
  road: 30,
  living_street: 7,
  service: 15,
  track: 15,
};

/** Top speed per motor profile (Swedish limits for vans and heavy trucks). */
const PROFILE_MAX_KMH: Record<Profile, number> = { car: 130, van: 110, truck: 80, bike: 18 };

/** Bike speeds: on roads and cycleways 16 km/h, on footpaths where bikes are allowed 12, pushing 5. */
const BIKE_KMH = { ride: 16, shared: 12, push: 5 };

const MOTOR_CLASSES = new Set(Object.keys(DEFAULT_SPEED_KMH));
/** Tracks are for farm and forestry traffic unless tagged otherwise. */
const MOTOR_NEEDS_TAG = new Set(["track"]);
const BIKE_CLASSES = new Set([
  "primary",
  "primary_link",
  "secondary",
  "secondary_link",
  "tertiary",
  "tertiary_link",
  "unclassified",
  "residential",
  "road",
  "living_street",
  "service",
  "track",
  "cycleway",
  "path",
]);
/** Classes a bike uses only when `bicycle=*` allows it (footways, pedestrian streets, motor roads). */
const BIKE_NEEDS_TAG = new Set(["footway", "pedestrian", "bridleway", "steps", "motorway", "motorway_link", "trunk", "trunk_link"]);

/** Access tags from most to least specific (OSM's access hierarchy) per profile. */
const ACCESS_KEYS: Record<Profile, string[]> = {
  car: ["motorcar", "motor_vehicle", "vehicle", "access"],
  van: ["goods", "motor_vehicle", "vehicle", "access"],
  truck: ["hgv", "goods", "motor_vehicle", "vehicle", "access"],
  bike: ["bicycle", "vehicle", "access"],
};

const YES = new Set(["yes", "permissive", "designated", "destination", "customers", "official"]);
const NO = new Set(["no", "private", "agricultural", "forestry", "psv", "bus", "emergency", "military", "discouraged_no"]);

/** allowed / refused by the most specific access tag that speaks, or undefined when none does. */
function accessByTags(profile: Profile, tags: WayTags): boolean | "dismount" | undefined {
  for (const key of ACCESS_KEYS[profile]) {
    const value = tags[key]?.split(";")[0].trim();
    if (value === undefined) continue;
    if (YES.has(value)) return true;
    if (value === "delivery") return profile === "van" || profile === "truck";
    if (value === "dismount" && profile === "bike") return "dismount";
    if (NO.has(value) || value === "dismount") return false;
  }
  return undefined;
}

/** How one profile may use one way, before vehicle dimensions. */
export interface WayAccess {
  forward: boolean;
  backward: boolean;
  /** km/h before traffic factors. */
  speedKmh: number;
}

const CLOSED: WayAccess = { forward: false, backward: false, speedKmh: 0 };

/** Km/h from a maxspeed value: "50", "50 mph", "30 knots", Swedish zone codes ("SE:urban"), or undefined. */
export function parseMaxspeed(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.split(";")[0].trim().toLowerCase();
  const zones: Record<string, number> = { "se:urban": 50, "se:rural": 70, "se:motorway": 110, "se:trunk": 90, "se:living_street": 7, "se:walk": 7 };
  if (v in zones) return zones[v];
  if (v === "walk") return 7;
  const m = /^(\d+(?:\.\d+)?)\s*(km\/h|kmh|kph|mph|knots)?$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]);
  if (!(n > 0)) return undefined;
  return m[2] === "mph" ? n * 1.609344 : m[2] === "knots" ? n * 1.852 : n;
}

function isYes(value: string | undefined) {
  return value === "yes" || value === "true" || value === "1";
}

/** One-way direction for a profile: 1 forward only, -1 backward only, 0 both. */
export function onewayDirection(profile: Profile, tags: WayTags): 1 | -1 | 0 {
  const specific = profile === "bike" ? tags["oneway:bicycle"] : (tags["oneway:motor_vehicle"] ?? tags["oneway:vehicle"]);
  const value = specific ?? tags.oneway;
  if (value === "-1" || value === "reverse") return -1;
  if (isYes(value)) {
    // Bike contraflow: explicitly allowed against the one-way flow.
    if (
      profile === "bike" &&
      specific === undefined &&
      /^opposite/.test(tags.cycleway ?? tags["cycleway:left"] ?? tags["cycleway:right"] ?? tags["cycleway:both"] ?? "")
    )
      return 0;
    return 1;
  }
  if (value === "no" || value === "false" || value === "0") return 0;
  if (tags.junction === "roundabout" || tags.junction === "circular") return profile === "bike" && /^opposite/.test(tags.cycleway ?? "") ? 0 : 1;
  if (tags.highway === "motorway" || tags.highway === "motorway_link") return 1;
  return 0;
}

/** Which directions `profile` may drive or ride on a way and at what speed (dimensions aside). */
export function wayAccess(profile: Profile, tags: WayTags): WayAccess {
  const highway = tags.highway;
  const byTags = accessByTags(profile, tags);
  let speedKmh: number;
  if (profile === "bike") {
    if (byTags === false || (tags.motorroad === "yes" && byTags !== true)) return CLOSED;
    if (!BIKE_CLASSES.has(highway) && !(BIKE_NEEDS_TAG.has(highway) && byTags !== undefined)) return CLOSED;
    if (highway === "steps" && byTags !== true) return CLOSED;
    speedKmh =
      byTags === "dismount"
        ? BIKE_KMH.push
        : highway === "footway" || highway === "pedestrian" || highway === "path" || highway === "track" || highway === "bridleway"
          ? BIKE_KMH.shared
          : BIKE_KMH.ride;
  } else {
    if (!MOTOR_CLASSES.has(highway)) return CLOSED;
    if (byTags === false || (MOTOR_NEEDS_TAG.has(highway) && byTags !== true)) return CLOSED;
    if (profile === "truck" && highway === "living_street") return CLOSED;
    const tagged = parseMaxspeed(tags.maxspeed);
    speedKmh = Math.min(tagged ?? DEFAULT_SPEED_KMH[highway], PROFILE_MAX_KMH[profile]);
    // Destination-only ways (and service roads) are a last resort, as other engines treat them.
    if (tags.access === "destination" || tags.motor_vehicle === "destination") speedKmh = Math.min(speedKmh, 10);
  }
  const oneway = onewayDirection(profile, tags);
  return { forward: oneway !== -1, backward: oneway !== 1, speedKmh };
}

/** Bound values from a max* tag: a number in the tag's unit, or "unknown" for anything unparsable. */
type Limit = number | "none" | "unknown";

/** Meters from "3.5", "3.5 m", "350 cm", "11'6\"", "11 ft 6 in"; "none"/"default" mean no limit. */
export function parseLengthMeters(value: string | undefined): Limit {
  if (value === undefined) return "none";
  const v = value.split(";")[0].trim().toLowerCase();
  if (v === "none" || v === "default" || v === "unsigned" || v === "no") return "none";
  let m = /^(\d+(?:[.,]\d+)?)\s*(m|cm|mm)?$/.exec(v);
  if (m) {
    const n = Number(m[1].replace(",", "."));
    return m[2] === "cm" ? n / 100 : m[2] === "mm" ? n / 1000 : n;
  }
  m = /^(\d+(?:\.\d+)?)\s*(?:'|ft|feet|′)\s*(?:(\d+(?:\.\d+)?)\s*(?:"|in|inch|inches|″))?$/.exec(v);
  if (m) return Number(m[1]) * 0.3048 + Number(m[2] ?? 0) * 0.0254;
  m = /^(\d+(?:\.\d+)?)\s*(?:"|in|inch|inches|″)$/.exec(v);
  if (m) return Number(m[1]) * 0.0254;
  return "unknown";
}

/** Kilograms from "3.5" (tonnes, OSM's default), "3.5 t", "3500 kg", "7 st" (short tons), "5000 lbs". */
export function parseWeightKg(value: string | undefined): Limit {
  if (value === undefined) return "none";
  const v = value.split(";")[0].trim().toLowerCase();
  if (v === "none" || v === "default" || v === "unsigned" || v === "no") return "none";
  const m = /^(\d+(?:[.,]\d+)?)\s*(t|kg|st|lbs|lb)?$/.exec(v);
  if (!m) return "unknown";
  const n = Number(m[1].replace(",", "."));
  return m[2] === "kg" ? n : m[2] === "st" ? n * 907.18474 : m[2] === "lbs" || m[2] === "lb" ? n * 0.45359237 : n * 1000;
}

/**
 * Whether a vehicle of these dimensions may use a way. A dimension above a limit closes it; a
 * limit we cannot read closes it to any vehicle that states that dimension (conservative: the
 * vehicle might not fit). Unstated dimensions are not checked.
 */
export function vehicleFits(tags: WayTags, v: VehicleDimensions): boolean {
  const over = (value: number | undefined, limit: Limit) => value !== undefined && limit !== "none" && (limit === "unknown" || value > limit);
  if (over(v.height_meters, parseLengthMeters(tags.maxheight))) return false;
  if (over(v.height_meters, parseLengthMeters(tags["maxheight:physical"]))) return false;
  if (over(v.width_meters, parseLengthMeters(tags.maxwidth))) return false;
  if (over(v.length_meters, parseLengthMeters(tags.maxlength))) return false;
  if (over(v.weight_kg, parseWeightKg(tags.maxweight))) return false;
  if (over(v.axle_load_kg, parseWeightKg(tags.maxaxleload))) return false;
  if (v.hazardous_goods) {
    if (tags.hazmat === "no" || tags["hazmat:water"] === "no") return false;
    // Tunnel category E forbids all dangerous goods (ADR); D and below are judged by tag as "no".
    if (["hazmat:E", "hazmat:D", "hazmat:C", "hazmat:B"].some((k) => tags[k] === "no")) return false;
  }
  return true;
}

/** The dimensions a request travels with: the profile's defaults, overridden field by field. */
export function effectiveDimensions(profile: Profile, vehicle: VehicleDimensions | undefined): VehicleDimensions {
  const merged: VehicleDimensions = { ...DEFAULT_DIMENSIONS[profile] };
  for (const [k, val] of Object.entries(vehicle ?? {})) if (val !== undefined) (merged as Record<string, unknown>)[k] = val;
  return merged;
}

/**
 * Time-of-day traffic: there is no live feed here. A fixed, documented profile of speed factors by
 * hour band (Europe/Stockholm local time) and road class group; bikes are not slowed.
 */
export const TRAFFIC_BANDS = [
  { name: "night", fromHour: 0, toHour: 6, arterial: 1.0, urban: 1.0 },
  { name: "morning_peak", fromHour: 6, toHour: 9, arterial: 0.6, urban: 0.8 },
  { name: "midday", fromHour: 9, toHour: 15, arterial: 0.85, urban: 0.9 },
  { name: "evening_peak", fromHour: 15, toHour: 18, arterial: 0.6, urban: 0.8 },
  { name: "evening", fromHour: 18, toHour: 22, arterial: 0.9, urban: 0.95 },
  { name: "late", fromHour: 22, toHour: 24, arterial: 1.0, urban: 1.0 },
] as const;
export type TrafficBand = (typeof TRAFFIC_BANDS)[number]["name"];

const ARTERIAL = new Set(["motorway", "motorway_link", "trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link"]);
const URBAN = new Set(["tertiary", "tertiary_link", "unclassified", "residential", "road"]);

/** The band a departure falls in, by its hour in Europe/Stockholm. */
export function trafficBandAt(departure: Date): TrafficBand {
  const hour = Number(new Intl.DateTimeFormat("en-GB", { hour: "numeric", hourCycle: "h23", timeZone: "Europe/Stockholm" }).format(departure));
  return TRAFFIC_BANDS.find((b) => hour >= b.fromHour && hour < b.toHour)!.name;
}

/** Speed multiplier for a way in a band (1 for classes outside both groups: service, living streets). */
export function trafficFactor(band: TrafficBand, profile: Profile, highway: string): number {
  if (profile === "bike") return 1;
  const b = TRAFFIC_BANDS.find((x) => x.name === band)!;
  return ARTERIAL.has(highway) ? b.arterial : URBAN.has(highway) ? b.urban : 1;
}
