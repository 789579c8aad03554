// POST /origin/v1/routes/directions: the route through the waypoints in the given order, with its
// distance, duration, bounding box, GeoJSON geometry (full, about 20 m Douglas-Peucker, or none),
// per-leg totals and, when asked, turn-by-turn steps with instruction text in the requested locale.
import { z } from "zod";
import { TRAFFIC_NOTE, type Route } from "../engine/index.ts";
import {
  type GuidanceStep,
  INSTRUCTION_LANGUAGES,
  MANEUVER_TYPES,
  MODIFIERS,
  instructionText,
  localeSchema,
  resolveLocale,
  routeSteps,
} from "../guidance/index.ts";
import {
  LIMITS,
  RequestError,
  bboxOf,
  dataNotice,
  defineOperation,
  geometrySchema,
  lngLat,
  noticeSchema,
  optimizeForSchema,
  pointSchema,
  requestErrorFrom,
  round,
  routeGeometry,
  snappedOut,
  snappedSchema,
  travelOptions,
  vehicleDimensionsSchema,
  vehicleTypeSchema,
  type OperationContext,
  type Point,
  isoInstantSchema,
} from "./common.ts";

export const waypointsSchema = z
  .array(pointSchema)
  .min(2, "needs at least 2 waypoints")
  .max(LIMITS.waypoints, `at most ${LIMITS.waypoints} waypoints`)
  .meta({ description: `Points visited in the given order, 2 to ${LIMITS.waypoints}` });

export const trafficSchema = z.boolean().default(false).meta({ description: "Apply the time-of-day speed profile at `departure` (no live traffic feed)" });

export const departureSchema = isoInstantSchema.optional().meta({ description: "When travel starts (ISO 8601 with offset), for `traffic`; default now" });

const geometryModeSchema = z
  .enum(["full", "simplified", "none"])
  .default("simplified")
  .meta({ description: "`full`: every vertex; `simplified` (default): Douglas-Peucker at about 20 m; `none`: no `geometry` in the answer (steps neither)" });

const request = z.strictObject({
  waypoints: waypointsSchema,
  vehicle_type: vehicleTypeSchema,
  vehicle: vehicleDimensionsSchema.optional(),
  optimize_for: optimizeForSchema,
  geometry: geometryModeSchema,
  steps: z.boolean().default(false).meta({ description: "Include turn-by-turn steps in each leg" }),
  traffic: trafficSchema,
  departure: departureSchema,
  locale: localeSchema,
});

const lngLatSchema = z.tuple([z.number(), z.number()]).meta({ description: "[lng, lat]" });

const maneuverSchema = z
  .object({
    type: z.enum(MANEUVER_TYPES).meta({ description: "OSRM maneuver type" }),
    modifier: z
      .enum(MODIFIERS)
      .optional()
      .meta({ description: "Direction of the maneuver (absent at a departure; at an arrival: the side the destination is on)" }),
    location: lngLatSchema.meta({ description: "[lng, lat] of the maneuver" }),
    bearing_before: z.number().meta({ description: "Travel direction just before, degrees clockwise from north (0 at a departure)" }),
    bearing_after: z.number().meta({ description: "Travel direction just after (0 at an arrival)" }),
    exit: z.number().int().min(1).max(100).optional().meta({ description: "Roundabouts: number of the exit taken" }),
  })
  .meta({ description: "What to do where the step starts" });

const stepSchema = z
  .object({
    instruction: z.string().meta({ description: "Instruction text in the answer's `locale`" }),
    name: z.string().meta({ description: 'Road name ("" when unnamed); for a roundabout, the road it exits onto' }),
    ref: z.string().optional().meta({ description: "Road reference (E 45, 155)" }),
    destinations: z
      .string()
      .optional()
      .meta({ description: "Signposted destinations of the road taken (OSM destination:ref and destination), as `ref: place, place`" }),
    mode: z.enum(["driving", "cycling"]).meta({ description: "cycling for vehicle_type bike, else driving" }),
    distance: z.number().meta({ description: "Meters to the next maneuver" }),
    duration: z.number().meta({ description: "Seconds to the next maneuver (U-turn time included)" }),
    maneuver: maneuverSchema,
    geometry: geometrySchema.optional().meta({ description: "The step's line, per the `geometry` option" }),
  })
  .meta({ description: "One maneuver and the stretch of road up to the next" });

const legSchema = z
  .object({
    distance: z.number().meta({ description: "Meters from this waypoint to the next" }),
    duration: z.number().meta({ description: "Seconds, U-turns included" }),
    steps: z.array(stepSchema).optional().meta({ description: "Present when `steps` was asked: depart first, arrive last" }),
  })
  .meta({ description: "The route between two consecutive waypoints" });

export const trafficAnswerSchema = z
  .object({
    applied: z.boolean().meta({ description: "Whether the speed profile slowed any road at this departure" }),
    band: z.string().optional().meta({ description: "Time-of-day band used (night, morning_peak, midday, evening_peak, evening, late)" }),
    note: z.string().meta({ description: "There is no live traffic feed: what traffic applies instead" }),
  })
  .meta({ description: "Present when `traffic` was asked" });

const response = z.object({
  distance: z.number().meta({ description: "Meters" }),
  duration: z.number().meta({ description: "Seconds" }),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).meta({ description: "[minLng, minLat, maxLng, maxLat] of the route" }),
  geometry: geometrySchema.optional().meta({ description: "The route's line (absent with `geometry: none`)" }),
  legs: z.array(legSchema).meta({ description: "One per pair of consecutive waypoints" }),
  waypoints: z.array(snappedSchema).meta({ description: "Each waypoint as placed on the road network" }),
  locale: z.string().meta({ description: `Language the instructions are in: the requested one if supported (${INSTRUCTION_LANGUAGES.length} are), else en` }),
  vehicle_type: z.string().meta({ description: "The profile used" }),
  optimize_for: z.string().meta({ description: "What the route minimised" }),
  traffic: trafficAnswerSchema.optional(),
  ...noticeSchema,
});

/** The engine's route through the waypoints, or a 422 naming the first leg no route joins. */
export function routeThrough(waypoints: Point[], options: ReturnType<typeof travelOptions>, ctx: OperationContext): Route {
  const points = waypoints.map(lngLat);
  let route: Route | null;
  try {
    route = ctx.engine.route(points, options);
  } catch (err) {
    throw requestErrorFrom(err) ?? err;
  }
  if (route) return route;
  // U-turns are allowed at via points, so the route exists exactly when every leg does: find the one that does not.
  for (let i = 0; i + 1 < points.length; i++) {
    if (!ctx.engine.route([points[i], points[i + 1]], options))
      throw new RequestError(
        422,
        "no_route",
        `No route from waypoints[${i}] to waypoints[${i + 1}] for this vehicle (an island, or a one-way trap)`,
        `waypoints[${i + 1}]`,
        {
          from: i,
          to: i + 1,
        },
      );
  }
  throw new RequestError(422, "no_route", "No route through these waypoints for this vehicle", "waypoints");
}

/** The traffic block answers carry when `traffic` was asked. */
export function trafficAnswer(asked: boolean, route: Route): z.input<typeof trafficAnswerSchema> | undefined {
  return asked ? { applied: Boolean(route.trafficBand), ...(route.trafficBand ? { band: route.trafficBand } : {}), note: TRAFFIC_NOTE } : undefined;
}

function stepOut(step: GuidanceStep, text: string, mode: "full" | "simplified" | "none"): z.input<typeof stepSchema> {
  const { type, modifier, location, bearing_before, bearing_after, exit } = step.maneuver;
  const geometry = routeGeometry(step.coordinates, mode);
  return {
    instruction: text,
    name: step.name,
    ...(step.ref ? { ref: step.ref } : {}),
    ...(step.destinations ? { destinations: step.destinations } : {}),
    mode: step.mode,
    distance: round(step.distance, 1),
    duration: round(step.duration, 1),
    maneuver: {
      type,
      ...(modifier ? { modifier } : {}),
      location: [round(location[0], 6), round(location[1], 6)],
      bearing_before,
      bearing_after,
      ...(exit !== undefined ? { exit } : {}),
    },
    ...(geometry ? { geometry } : {}),
  };
}

export const directionsOperation = defineOperation({
  name: "directions",
  summary: "Route through waypoints, with turn-by-turn steps",
  description:
    "The fastest (or shortest) route through the waypoints in the given order over the OpenStreetMap road network of central Gothenburg: " +
    "distance (meters), duration (seconds), bounding box, GeoJSON geometry (`simplified` about 20 m, `full`, or `none`), one leg per pair of waypoints, " +
    "and with `steps: true` turn-by-turn maneuvers with instruction text in `locale` (31 languages, Swedish included; others fall back to English). " +
    "A leg no route joins (an island, a one-way trap) is a 422 `no_route` naming it. Map data © OpenStreetMap contributors (ODbL).",
  priceSats: 2,
  request,
  response,
  exampleRequest: {
    waypoints: [
      { lat: 57.7066, lng: 11.9686 },
      { lat: 57.6973, lng: 11.9797 },
    ],
    vehicle_type: "car",
    steps: true,
    locale: "sv",
  },
  run(input, ctx) {
    const departure = input.departure ? new Date(input.departure) : ctx.now;
    const route = routeThrough(input.waypoints, travelOptions({ ...input, departure }), ctx);
    const { language } = resolveLocale(input.locale);
    const guidance = input.steps ? routeSteps(ctx.engine.network, route, { profile: input.vehicle_type }) : undefined;
    const geometry = routeGeometry(route.coordinates, input.geometry);
    return {
      distance: round(route.distance, 1),
      duration: round(route.duration, 1),
      bbox: bboxOf(route.coordinates),
      ...(geometry ? { geometry } : {}),
      legs: route.legs.map((leg, legIndex) => ({
        distance: round(leg.distance, 1),
        duration: round(leg.duration, 1),
        ...(guidance
          ? {
              steps: guidance[legIndex].steps.map((step) =>
                stepOut(step, instructionText(step, language, { legIndex, legCount: route.legs.length }), input.geometry),
              ),
            }
          : {}),
      })),
      waypoints: route.waypoints.map(snappedOut),
      locale: language,
      vehicle_type: input.vehicle_type,
      optimize_for: input.optimize_for,
      ...(input.traffic ? { traffic: trafficAnswer(true, route) } : {}),
      ...dataNotice(),
    };
  },
});
