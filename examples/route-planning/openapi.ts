// The route-planning API's OpenAPI 3.1.0 document (info.version 1.0.0, spec 2 section 9), generated
// from the operations' own zod schemas, so the document cannot drift from what the origin accepts
// and answers. Example responses are computed by the engine from the example requests at start.
// Each operation declares 200 and 402 (spec 2 section 7.1); error bodies are described in the
// operation's description and in docs/route-planning-api.md. The hub imports the tenant's endpoints
// from this document (x-l402-pricing: per_request and the price).
import { z } from "zod";
import { OSM_ATTRIBUTION } from "./engine/index.ts";
import { basemapQuerySchema } from "./basemap.ts";
import type { Operation, OperationContext } from "./operations/common.ts";

export const API_VERSION = "1.0.0";
const PREFIX = "/origin/v1/routes";

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  return rest;
}

type Schema = Record<string, unknown>;

/** `a, b {c, d}` for an object schema's fields (required ones marked), a level or two deep. */
function fieldList(schema: Schema, depth = 0): string {
  const object = schema.type === "array" ? (schema.items as Schema | undefined) : schema;
  if (!object || object.type !== "object" || !object.properties || depth > 1) return "";
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries(object.properties as Record<string, Schema>)
    .map(([name, prop]) => {
      const inner = fieldList(prop, depth + 1);
      return `${name}${required.has(name) ? "*" : ""}${inner ? ` {${inner}}` : ""}`;
    })
    .join(", ");
}

/**
 * The request schema with each top-level property's description naming its nested fields: the hub
 * shows one row per top-level body field, so `stops` says what a stop holds.
 */
function requestSchema(schema: z.ZodType): Schema {
  const out = jsonSchema(schema, "input");
  for (const prop of Object.values((out.properties ?? {}) as Record<string, Schema>)) {
    const fields = fieldList(prop);
    if (fields) prop.description = `${typeof prop.description === "string" ? `${prop.description}. ` : ""}Fields (* required): ${fields}`.slice(0, 500);
  }
  return out;
}

const errorsNote =
  "Errors: 400 `invalid_request` (the body names each invalid `field`), 400 `invalid_json`, 400 `duplicate_id`, 400 `conflicting_fields` " +
  "(`num_clusters` with `vehicles`, `minutes` with `meters`), 400 `vehicles_required`, `too_many_clusters`, `too_many_stops_for_road_aware` (cluster), " +
  "413 `payload_too_large`, 422 `outside_coverage` (a point outside the covered box, named with `coverage_bbox`), 422 `no_road_nearby`, " +
  "422 `no_route` (directions, navigate), 422 `unreachable_stop` (optimize); " +
  'the body is `{"error": {"code", "message", "field"}}`. The gateway\'s own answers (402, 429, 502...) are those of the hub.';

export function buildOpenApiDocument(options: { operations: Operation[]; context: OperationContext; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const op of options.operations) {
    const example = op.run(op.request.parse(op.exampleRequest), options.context);
    paths[`${PREFIX}/${op.name}`] = {
      post: {
        operationId: op.name.replace(/-/g, "_"),
        summary: op.summary,
        description: `${op.description}\n\n${errorsNote}`,
        requestBody: {
          required: true,
          content: { "application/json": { schema: requestSchema(op.request), example: op.exampleRequest } },
        },
        responses: {
          "200": { description: "The answer", content: { "application/json": { schema: jsonSchema(op.response, "output"), example } } },
          "402": {
            description:
              "Payment required: pay the Lightning invoice of the WWW-Authenticate challenge, then repeat with `Authorization: L402 <macaroon>:<preimage>`",
          },
        },
        security: [{ L402: [] }],
        "x-l402-pricing": { model: "per_request", priceSats: op.priceSats },
      },
    };
  }
  paths[`${PREFIX}/basemap`] = {
    get: {
      operationId: "basemap",
      summary: "Road network background (free)",
      description:
        "The OpenStreetMap road ways inside a box as GeoJSON lines, the vector background the API page draws answers on. " +
        "Wider boxes return fewer road classes (`detail`: all_ways, streets, main_roads). Free.",
      parameters: [
        {
          name: "bbox",
          in: "query",
          required: true,
          description: "The box: minLng,minLat,maxLng,maxLat (degrees)",
          schema: jsonSchema(basemapQuerySchema.shape.bbox, "input"),
          example: "11.95,57.69,11.99,57.71",
        },
      ],
      responses: { "200": { description: "A GeoJSON FeatureCollection of LineStrings with `properties.highway`" } },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Route planning API",
      version: API_VERSION,
      description:
        "Routes, matrices, navigation, tour and fleet optimization, reachable areas and stop clustering over the OpenStreetMap road network of central Gothenburg. " +
        `Distances in meters, durations in seconds, coordinates [lng, lat] in GeoJSON. Map data ${OSM_ATTRIBUTION}, ODbL 1.0.`,
      license: { name: "Data: ODbL-1.0 (OpenStreetMap)", identifier: "ODbL-1.0" },
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: {
        L402: { type: "apiKey", in: "header", name: "Authorization", description: "`L402 <macaroon>:<preimage>` after paying the 402 challenge's invoice" },
      },
    },
  };
}
