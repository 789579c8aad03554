// POST /origin/v1/routes/navigate: the route through the waypoints in the Mapbox Directions API v5
// response shape (code, routes[].legs[].steps[] with maneuvers, banner and voice instructions,
// polyline6 geometry, waypoints, uuid), so a navigation SDK built for that API consumes it unchanged.
import { createHash } from "node:crypto";
import polyline from "@mapbox/polyline";
import { z } from "zod";
import type { RoadNetwork } from "../engine/index.ts";
import {
  type GuidanceStep,
  MANEUVER_TYPES,
  MODIFIERS,
  bannerInstructions,
  instructionText,
  localeSchema,
  resolveLocale,
  routeSteps,
  voiceInstructions,
} from "../guidance/index.ts";
import { dataNotice, defineOperation, noticeSchema, round, travelOptions, vehicleDimensionsSchema, vehicleTypeSchema } from "./common.ts";
import { departureSchema, routeThrough, trafficAnswer, trafficAnswerSchema, waypointsSchema } from "./directions.ts";

const request = z.strictObject({
  waypoints: waypointsSchema,
  vehicle_type: vehicleTypeSchema,
  vehicle: vehicleDimensionsSchema.optional(),
  traffic: z.boolean().default(false).meta({ description: "Apply the time-of-day speed profile at `departure` (no live traffic feed)" }),
  departure: departureSchema,
  locale: localeSchema,
});

const lngLat = z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat]" });

const bannerTextSchema = z.object({
  text: z.string().meta({ description: "What the banner shows: the road the maneuver leads onto, else the instruction" }),
  type: z.enum(MANEUVER_TYPES).meta({ description: "The maneuver's type (the SDK picks the arrow by type and modifier)" }),
  modifier: z.enum(MODIFIERS).optional().meta({ description: "The maneuver's direction" }),
  degrees: z.number().optional().meta({ description: "Roundabouts: degrees round the ring to the exit" }),
  driving_side: z.literal("right").optional(),
  components: z
    .array(z.object({ text: z.string(), type: z.enum(["text", "delimiter"]) }))
    .meta({ description: "The text in parts: road name, delimiter, ref" }),
});

const stepSchema = z.object({
  distance: z.number().meta({ description: "Meters to the next maneuver" }),
  duration: z.number().meta({ description: "Seconds to the next maneuver" }),
  weight: z.number().meta({ description: "Seconds: this API's weight is the duration" }),
  geometry: z.string().meta({ description: "The step's line, polyline6 ([lat, lng] at 1e-6 precision)" }),
  name: z.string().meta({ description: 'Road name ("" when unnamed)' }),
  ref: z.string().optional().meta({ description: "Road reference (E 45)" }),
  rotary_name: z.string().optional().meta({ description: "A named roundabout's name" }),
  destinations: z.string().optional().meta({ description: "Signposted destinations of the road taken, `ref: place, place`" }),
  mode: z.enum(["driving", "cycling"]).meta({ description: "cycling for vehicle_type bike, else driving" }),
  driving_side: z.literal("right").meta({ description: "Traffic keeps right (Sweden)" }),
  maneuver: z
    .object({
      type: z.enum(MANEUVER_TYPES).meta({ description: "OSRM maneuver type" }),
      modifier: z.enum(MODIFIERS).optional().meta({ description: "Direction (absent at a departure; at an arrival: the side the destination is on)" }),
      location: lngLat.meta({ description: "[lng, lat] of the maneuver" }),
      bearing_before: z.number().meta({ description: "Travel direction just before, degrees clockwise from north (0 at a departure)" }),
      bearing_after: z.number().meta({ description: "Travel direction just after (0 at an arrival)" }),
      instruction: z.string().meta({ description: "Instruction text in the route's voiceLocale" }),
      exit: z.number().int().min(1).max(100).optional().meta({ description: "Roundabouts: number of the exit taken" }),
    })
    .meta({ description: "What to do where the step starts" }),
  intersections: z
    .array(
      z.object({
        location: lngLat,
        bearings: z.array(z.number()).meta({ description: "Bearings of every road leaving the junction, ascending" }),
        entry: z.array(z.boolean()).meta({ description: "Whether each may be entered (one-way and access tags)" }),
        in: z.number().int().min(0).max(100).optional().meta({ description: "Index into bearings of the road arrived by" }),
        out: z.number().int().min(0).max(100).optional().meta({ description: "Index into bearings of the road left by" }),
      }),
    )
    .meta({ description: "The maneuver's junction first, then every junction of three or more roads the step passes" }),
  bannerInstructions: z
    .array(
      z.object({
        distanceAlongGeometry: z.number().meta({ description: "Meters before the step's end (the next maneuver) from which to show the banner" }),
        primary: bannerTextSchema.meta({ description: "The banner's main line: text, maneuver type and modifier, components" }),
      }),
    )
    .meta({ description: "Banners for the maneuver that ends this step (empty on the arrive step)" }),
  voiceInstructions: z
    .array(
      z.object({
        distanceAlongGeometry: z.number().meta({ description: "Meters before the step's end at which to speak" }),
        announcement: z.string().meta({ description: "Plain text to speak" }),
        ssmlAnnouncement: z.string().meta({ description: "The announcement in SSML (Amazon Polly)" }),
      }),
    )
    .meta({ description: "Spoken instructions for the maneuver that ends this step, farthest first (empty on the arrive step)" }),
});

const response = z.object({
  code: z.literal("Ok").meta({ description: "Ok: a route was found (failures are this API's 4xx errors)" }),
  routes: z
    .array(
      z.object({
        distance: z.number().meta({ description: "Meters" }),
        duration: z.number().meta({ description: "Seconds, U-turns included" }),
        weight: z.number().meta({ description: "What the route minimised: seconds" }),
        weight_name: z.literal("duration").meta({ description: "The weight is the duration" }),
        geometry: z.string().meta({ description: "The whole route, polyline6, every vertex" }),
        legs: z
          .array(
            z.object({
              distance: z.number().meta({ description: "Meters from this waypoint to the next" }),
              duration: z.number().meta({ description: "Seconds" }),
              weight: z.number().meta({ description: "Seconds" }),
              summary: z.string().meta({ description: "The leg's two longest named roads, in travel order" }),
              steps: z.array(stepSchema).meta({ description: "Depart first, arrive last" }),
            }),
          )
          .meta({ description: "One leg per pair of consecutive waypoints" }),
        voiceLocale: z.string().meta({ description: "Language of instructions and announcements (the requested one if supported, else en)" }),
      }),
    )
    .meta({ description: "One route" }),
  waypoints: z
    .array(
      z.object({
        name: z.string().meta({ description: "Name of the road the waypoint snapped to" }),
        location: lngLat.meta({ description: "[lng, lat] on the road network" }),
        distance: z.number().meta({ description: "Meters from the given point to the road" }),
      }),
    )
    .meta({ description: "Each waypoint as placed on the road network" }),
  uuid: z.string().meta({ description: "Identifier of this answer: a hash of the request, so the same request gets the same uuid" }),
  traffic: trafficAnswerSchema.optional(),
  ...noticeSchema,
});

/** [lng, lat] (GeoJSON, the engine) to polyline6, which encodes [lat, lng]. */
export function polyline6(coordinates: [number, number][]): string {
  return polyline.encode(
    coordinates.map(([lng, lat]) => [lat, lng]),
    6,
  );
}

/** Mapbox's leg summary: the two roads the leg spends most meters on, named in the order it takes them. */
function legSummary(steps: GuidanceStep[]): string {
  const meters = new Map<string, { distance: number; first: number }>();
  steps.forEach((s, i) => {
    const name = s.name || s.ref;
    if (!name) return;
    const known = meters.get(name);
    if (known) known.distance += s.distance;
    else meters.set(name, { distance: s.distance, first: i });
  });
  return [...meters.entries()]
    .sort((a, b) => b[1].distance - a[1].distance)
    .slice(0, 2)
    .sort((a, b) => a[1].first - b[1].first)
    .map(([name]) => name)
    .join(", ");
}

/** A UUID-shaped digest of the request: answers are deterministic, so their id is too. */
function answerId(input: unknown, departure: Date): string {
  const h = createHash("sha256")
    .update(JSON.stringify({ input, departure: departure.toISOString() }))
    .digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function roadNameAt(network: RoadNetwork, segment: number): string {
  return network.wayTags[network.segmentWay[segment]]?.name ?? "";
}

const r1 = (v: number) => round(v, 1);
const r6 = (p: [number, number]): [number, number] => [round(p[0], 6), round(p[1], 6)];

export const navigateOperation = defineOperation({
  name: "navigate",
  summary: "Navigation route (Mapbox Directions v5 shape)",
  description:
    "The route through the waypoints in the response shape of the Mapbox Directions API v5 (`code`, `routes[].legs[].steps[]` with maneuvers, " +
    "`intersections`, `bannerInstructions`, `voiceInstructions` with SSML, polyline6 geometry, `waypoints`, `uuid`), so a navigation SDK consumes it unchanged. " +
    "Instructions in `locale` (31 languages, Swedish included; others fall back to English). Map data © OpenStreetMap contributors (ODbL).",
  priceSats: 3,
  request,
  response,
  exampleRequest: {
    waypoints: [
      { lat: 57.6998, lng: 11.9527 },
      { lat: 57.7068, lng: 11.9382 },
    ],
    vehicle_type: "car",
    locale: "en",
  },
  run(input, ctx) {
    const departure = input.departure ? new Date(input.departure) : ctx.now;
    const route = routeThrough(input.waypoints, travelOptions({ ...input, departure }), ctx);
    const { language } = resolveLocale(input.locale);
    const guidance = routeSteps(ctx.engine.network, route, { profile: input.vehicle_type });
    const legCount = route.legs.length;
    return {
      code: "Ok" as const,
      routes: [
        {
          distance: r1(route.distance),
          duration: r1(route.duration),
          // Navigate always minimises time: the weight is the duration, U-turns included.
          weight: r1(route.weight),
          weight_name: "duration" as const,
          geometry: polyline6(route.coordinates),
          legs: route.legs.map((leg, legIndex) => {
            const steps = guidance[legIndex].steps;
            const position = { legIndex, legCount };
            return {
              distance: r1(leg.distance),
              duration: r1(leg.duration),
              weight: r1(leg.duration),
              summary: legSummary(steps),
              steps: steps.map((step, i) => ({
                distance: r1(step.distance),
                duration: r1(step.duration),
                weight: r1(step.duration),
                geometry: polyline6(step.coordinates),
                name: step.name,
                ...(step.ref ? { ref: step.ref } : {}),
                ...(step.rotaryName ? { rotary_name: step.rotaryName } : {}),
                ...(step.destinations ? { destinations: step.destinations } : {}),
                mode: step.mode,
                driving_side: "right" as const,
                maneuver: {
                  type: step.maneuver.type,
                  ...(step.maneuver.modifier ? { modifier: step.maneuver.modifier } : {}),
                  location: r6(step.maneuver.location),
                  bearing_before: step.maneuver.bearing_before,
                  bearing_after: step.maneuver.bearing_after,
                  instruction: instructionText(step, language, position),
                  ...(step.maneuver.exit !== undefined ? { exit: step.maneuver.exit } : {}),
                },
                intersections: step.intersections.map((x) => ({ ...x, location: r6(x.location) })),
                bannerInstructions: bannerInstructions(steps, i, language, position),
                voiceInstructions: voiceInstructions(steps, i, language, position),
              })),
            };
          }),
          voiceLocale: language,
        },
      ],
      waypoints: route.waypoints.map((w) => ({ name: roadNameAt(ctx.engine.network, w.segment), location: r6(w.location), distance: r1(w.distance) })),
      uuid: answerId(input, departure),
      ...(input.traffic ? { traffic: trafficAnswer(true, route) } : {}),
      ...dataNotice(),
    };
  },
});
