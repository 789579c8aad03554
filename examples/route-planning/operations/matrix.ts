// POST /origin/v1/routes/matrix: travel distances and durations between every pair of points, the
// bucket many-to-many search on the profile's contraction hierarchy (or one exact search per source
// when the vehicle's dimensions close ways). Unreachable pairs are null, never an error.
import { z } from "zod";
import { TRAFFIC_NOTE } from "../engine/index.ts";
import {
  LIMITS,
  dataNotice,
  defineOperation,
  lngLat,
  matrixOptimizeForSchema,
  noticeSchema,
  pointSchema,
  round,
  snappedOut,
  snappedSchema,
  travelOptions,
  vehicleDimensionsSchema,
  vehicleTypeSchema,
  withFieldNames,
  isoInstantSchema,
} from "./common.ts";

const request = z.strictObject({
  points: z
    .array(pointSchema)
    .min(2, "needs at least 2 points")
    .max(LIMITS.matrixPoints, `at most ${LIMITS.matrixPoints} points`)
    .meta({ description: `Points, 2 to ${LIMITS.matrixPoints}; the grids are indexed [from][to] in this order` }),
  vehicle_type: vehicleTypeSchema,
  vehicle: vehicleDimensionsSchema.optional(),
  optimize_for: matrixOptimizeForSchema,
  traffic: z.boolean().default(false).meta({ description: "Apply the time-of-day speed profile at `departure` (no live traffic feed)" }),
  departure: isoInstantSchema.optional().meta({ description: "When travel starts (ISO 8601), for `traffic`; default now" }),
});

const grid = z.array(z.array(z.number().nullable()));

const response = z.object({
  distances: grid.meta({ description: "Meters [from][to]; null when no route exists (an island, a one-way trap)" }),
  durations: grid.meta({ description: "Seconds [from][to]; null when no route exists" }),
  sources: z.array(snappedSchema).meta({ description: "Each point as placed on the road network, in request order" }),
  vehicle_type: z.string(),
  optimize_for: z.string(),
  traffic: z
    .object({ applied: z.boolean(), band: z.string().optional(), note: z.string() })
    .optional()
    .meta({ description: "Present when `traffic` was asked" }),
  ...noticeSchema,
});

export const matrixOperation = defineOperation({
  name: "matrix",
  summary: "Travel-time and distance matrix",
  description:
    "Distances (meters) and durations (seconds) between every pair of points over the OpenStreetMap road network of central Gothenburg, " +
    "as two grids indexed [from][to]. Pairs without a route are null. Map data © OpenStreetMap contributors (ODbL).",
  priceSats: 3,
  request,
  response,
  exampleRequest: {
    points: [
      { lat: 57.7066, lng: 11.9686 },
      { lat: 57.6998, lng: 11.9527 },
      { lat: 57.6973, lng: 11.9797 },
    ],
    vehicle_type: "car",
    optimize_for: "time",
  },
  run(input, { engine, now }) {
    const points = input.points.map(lngLat);
    const departure = input.departure ? new Date(input.departure) : now;
    const m = withFieldNames(
      (field) => field.replace(/^(sources|targets)\[/, "points["),
      () => engine.matrix(points, points, travelOptions({ ...input, departure })),
    );
    const rounded = (rows: (number | null)[][]) => rows.map((row) => row.map((v) => (v === null ? null : round(v, 1))));
    return {
      distances: rounded(m.distances),
      durations: rounded(m.durations),
      sources: m.sources.map(snappedOut),
      vehicle_type: input.vehicle_type,
      optimize_for: input.optimize_for,
      ...(input.traffic ? { traffic: { applied: Boolean(m.trafficBand), band: m.trafficBand, note: TRAFFIC_NOTE } } : {}),
      ...dataNotice(),
    };
  },
});
