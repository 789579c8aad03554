// What the core endpoint groups share: the dependencies their handlers read, the meta-carrying
// response wrapper, and small formatting helpers (ISO instants, rounding, the `available` union).
import { z } from "zod";
import { responseMetaSchema, type EndpointAnswer } from "../endpoint.ts";
import type { Availability, MarketSource } from "../model/types.ts";
import type { AlertBus } from "./alert-bus.ts";
import type { PositioningService } from "./positioning.ts";

export { iso, isoSchema, round } from "./format.ts";

/** The dependencies of the core groups; the server's one deps object holds these and the other groups' own. */
export interface CoreDeps {
  source: MarketSource;
  alerts: AlertBus;
  positioning: PositioningService;
}

/** A response object schema with the `meta` block every answer carries (the server fills it in). */
export function withMeta<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ ...shape, meta: responseMetaSchema });
}

/** A figure that may be unavailable upstream: its fields, or `available: false` with the reason. */
export function availabilitySchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.discriminatedUnion("available", [
    z.object({ available: z.literal(true), ...shape, meta: responseMetaSchema }),
    z.object({
      available: z.literal(false),
      reason: z.string().describe("Why the figures are missing (upstream throttled or down); retry later"),
      meta: responseMetaSchema,
    }),
  ]);
}

/** The `available: false` body of an Availability, or the mapped figures. */
export function availabilityBody<T>(value: Availability<T>, map: (data: T) => Record<string, unknown>): Record<string, unknown> {
  return value.available ? { available: true, ...map(value.data) } : { available: false, reason: value.reason };
}

export function ok(body: Record<string, unknown>, headers?: Record<string, string>): EndpointAnswer {
  return { status: 200, body, ...(headers ? { headers } : {}) };
}

export const noParams = z.strictObject({});
