// The market-intelligence API's OpenAPI 3.1.0 document (info.version 1.0.0, spec 2 §9), generated
// from the endpoint descriptors: every parameter with its type, bounds, default and example, each
// response by z.toJSONSchema with an example computed at start, and the pricing the hub imports
// (`x-l402-pricing`: per_request and the price, or time_pass with price and duration; `x-streaming`
// for the SSE streams, whose events are described under `x-sse-events`).
import { z } from "zod";
import type { MarketEndpoint } from "./endpoint.ts";

export const API_VERSION = "1.0.0";

type Schema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Schema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Schema;
  return rest;
}

/** The parameters of a descriptor: path ones (named in its path) and query ones. */
export function openApiParameters(endpoint: MarketEndpoint<unknown>): Schema[] {
  const shape = (endpoint.params as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const object = jsonSchema(endpoint.params, "input");
  const properties = (object.properties ?? {}) as Record<string, Schema>;
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.keys(shape).map((name) => {
    const inPath = endpoint.path.includes(`{${name}}`);
    const schema = { ...properties[name] };
    const description = typeof schema.description === "string" ? schema.description : "";
    delete schema.description;
    return {
      name,
      in: inPath ? "path" : "query",
      required: inPath || required.has(name),
      description,
      schema,
      ...(endpoint.example[name] !== undefined ? { example: coerceExample(schema, endpoint.example[name]) } : {}),
    };
  });
}

/** An example as its JSON type (query strings are text; the document shows `4`, not `"4"`). */
function coerceExample(schema: Schema, value: string): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "number" || type === "integer") return Number(value);
  if (type === "boolean") return value === "true";
  return value;
}

const errorsNote =
  'Errors: 400 `invalid_parameter` names each bad or unknown parameter (`{"error": {"code", "message", "field", "fields"}}`); ' +
  "a figure unavailable upstream answers 200 with `available: false` and a `reason`. Every answer carries `meta.source` (simulated or live). " +
  "The gateway's own answers (402, 429, 502...) are those of the hub.";

export function buildOpenApiDocument(options: {
  endpoints: MarketEndpoint<unknown>[];
  /** Example answers by path, computed from each endpoint's example parameters. */
  examples: Record<string, unknown>;
  sourceKind: "simulated" | "live";
}): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const endpoint of options.endpoints) {
    const operationId = endpoint.path
      .replace(/^\/v1\//, "")
      .replace(/[{}]/g, "")
      .replace(/[^A-Za-z0-9]+/g, "_");
    const common = {
      operationId,
      summary: endpoint.summary,
      parameters: openApiParameters(endpoint),
      security: [{ L402: [] }],
    };
    const payment = {
      description:
        "Payment required: pay the Lightning invoice of the WWW-Authenticate challenge, then repeat with `Authorization: L402 <macaroon>:<preimage>`",
    };
    if (endpoint.kind === "json") {
      paths[endpoint.path] = {
        get: {
          ...common,
          description: `${endpoint.description}\n\n${errorsNote}`,
          responses: {
            "200": {
              description: "The answer",
              content: {
                "application/json": {
                  schema: jsonSchema(endpoint.response, "output"),
                  ...(options.examples[endpoint.path] !== undefined ? { example: options.examples[endpoint.path] } : {}),
                },
              },
            },
            "402": payment,
          },
          "x-l402-pricing": { model: "per_request", priceSats: endpoint.price },
        },
      };
    } else {
      const events = Object.fromEntries(Object.entries(endpoint.events).map(([name, schema]) => [name, jsonSchema(schema, "output")]));
      paths[endpoint.path] = {
        get: {
          ...common,
          description: `${endpoint.description}\n\nFrames: \`event: <name>\` and \`data: <JSON>\` per event (names and shapes under x-sse-events), \`: keep-alive\` comments every 15 s. ${errorsNote}`,
          responses: {
            "200": { description: "An SSE stream (text/event-stream)", content: { "text/event-stream": { schema: { type: "string" } } } },
            "402": payment,
          },
          "x-l402-pricing": { model: "time_pass", priceSats: endpoint.price, durationMinutes: endpoint.passMinutes },
          "x-streaming": true,
          "x-sse-events": events,
        },
      };
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Market intelligence API",
      version: API_VERSION,
      description:
        "Bitcoin market data and derived signals: spot across five venues, derivatives, liquidations, on-chain, macro, sentiment and events, plus two live SSE streams. " +
        `This instance serves ${options.sourceKind === "simulated" ? "a seeded SIMULATED market (MARKET_SOURCE=simulated): realistic and coherent, but not real prices" : "LIVE data from public exchange and data APIs"}; every answer's meta.source says which. ` +
        "Prices in USD, sizes in BTC, instants ISO 8601 UTC.",
    },
    paths,
    components: {
      securitySchemes: {
        L402: { type: "apiKey", in: "header", name: "Authorization", description: "`L402 <macaroon>:<preimage>` after paying the 402 challenge's invoice" },
      },
    },
  };
}
