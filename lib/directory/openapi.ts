// The OpenAPI 3.1 document of one hosted gateway (`{gateway_url}/.well-known/openapi.json`, spec 4.2)
// and the JSON Schemas of endpoint inputs that the MCP config's tools reuse. Pure: built from the
// same endpoint entries as the directory, so every surface describes an endpoint the same way.
//
// Shape (docs/discovery.md): servers = the gateway address; one operation per active endpoint
// with its parameters, JSON request body schema and examples; priced operations carry
// `x-l402-pricing` {model, priceSats, tokenBudget, durationMinutes, unitCostSats}, the L402
// security requirement and a 402 response; every operation carries `x-streaming`.
import type { EndpointDetail, EndpointParameter } from "./schemas.ts";

/** What the document needs of an endpoint: the detail entry plus whether it streams (SSE). */
export type DocumentedEndpoint = EndpointDetail & { streaming: boolean };

/** What the document needs of the API. */
export type DocumentedApi = {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  gatewayUrl: string;
  /** The API's page in the directory (externalDocs). */
  pageUrl: string;
  endpoints: DocumentedEndpoint[];
};

/** A JSON Schema object (2020-12, as OpenAPI 3.1 uses). */
export type JsonSchema = Record<string, unknown>;

const bodyMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A tool or operation name from method and path: GET /v1/entity/{address} -> get_v1_entity_by_address. */
export function operationName(endpoint: Pick<DocumentedEndpoint, "method" | "path">): string {
  const parts = endpoint.path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `by_${param[1]}` : segment;
    });
  const name = [endpoint.method.toLowerCase(), ...parts]
    .join("_")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/_$/, "");
  // MCP tool names are at most 64 characters.
  return name.slice(0, 64);
}

/** The JSON Schema of a documented parameter type. */
function parameterTypeSchema(type: string): JsonSchema {
  switch (type) {
    case "integer":
    case "number":
    case "boolean":
    case "object":
      return { type };
    case "array":
      return { type: "array", items: {} };
    default:
      return { type: "string" };
  }
}

/** A schema that the example value satisfies (types only), for bodies documented by example alone. */
export function schemaFromExample(value: unknown, depth = 0): JsonSchema {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) return depth > 4 || value.length === 0 ? { type: "array" } : { type: "array", items: schemaFromExample(value[0], depth + 1) };
  if (isRecord(value)) {
    if (depth > 4) return { type: "object" };
    return { type: "object", properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaFromExample(v, depth + 1)])) };
  }
  if (typeof value === "number") return { type: Number.isInteger(value) ? "integer" : "number" };
  if (typeof value === "boolean") return { type: "boolean" };
  return { type: "string" };
}

function withDescription(schema: JsonSchema, description: string): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** The JSON request body schema: documented body parameters, else the shape of the example body. */
export function requestBodySchema(endpoint: DocumentedEndpoint): JsonSchema | null {
  const bodyParams = endpoint.parameters.filter((p) => p.in === "body");
  const example = endpoint.exampleRequest.body;
  if (bodyParams.length === 0 && example === undefined) return null;
  if (bodyParams.length === 0) return schemaFromExample(example);
  const required = bodyParams.filter((p) => p.required).map((p) => p.name);
  return {
    type: "object",
    properties: Object.fromEntries(bodyParams.map((p) => [p.name, withDescription(parameterTypeSchema(p.type), p.description)])),
    ...(required.length ? { required } : {}),
  };
}

/**
 * One input object for a tool: query, path and header parameters by name, plus `body` for the
 * JSON request body. MCP clients show it as the tool's arguments.
 */
export function inputSchema(endpoint: DocumentedEndpoint): JsonSchema {
  const params = endpoint.parameters.filter((p) => p.in !== "body");
  const properties: Record<string, JsonSchema> = Object.fromEntries(
    params.map((p) => [p.name, withDescription(parameterTypeSchema(p.type), `${p.description ? `${p.description} ` : ""}(${p.in})`.trim())]),
  );
  const required = params.filter((p) => p.required).map((p) => p.name);
  const body = bodyMethods.has(endpoint.method) ? requestBodySchema(endpoint) : null;
  if (body) {
    properties.body = { ...body, description: "JSON request body" };
    if (endpoint.parameters.some((p) => p.in === "body" && p.required)) required.push("body");
  }
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

/** Spec 2.2 pricing as the `x-l402-pricing` extension (../shared/INTEROP.md "Discovery"); null when free. */
export function l402Pricing(endpoint: Pick<EndpointDetail, "pricingModel" | "priceSats" | "tokenBudget" | "durationMinutes" | "unitCostSats">) {
  if (endpoint.pricingModel === null) return null;
  return {
    model: endpoint.pricingModel,
    priceSats: endpoint.priceSats,
    tokenBudget: endpoint.tokenBudget,
    durationMinutes: endpoint.durationMinutes,
    unitCostSats: endpoint.unitCostSats,
  };
}

function exampleQueryValue(endpoint: DocumentedEndpoint, param: EndpointParameter): unknown {
  const query = endpoint.exampleRequest.query;
  return param.in === "query" && isRecord(query) ? query[param.name] : undefined;
}

function operation(endpoint: DocumentedEndpoint, operationId: string) {
  const pricing = l402Pricing(endpoint);
  const parameters = endpoint.parameters
    .filter((p) => p.in !== "body")
    .map((p) => {
      const example = exampleQueryValue(endpoint, p);
      return {
        name: p.name,
        in: p.in,
        // OpenAPI requires path parameters to be required.
        required: p.in === "path" ? true : p.required,
        ...(p.description ? { description: p.description } : {}),
        schema: parameterTypeSchema(p.type),
        ...(example !== undefined ? { example } : {}),
      };
    });
  const body = bodyMethods.has(endpoint.method) ? requestBodySchema(endpoint) : null;
  const exampleBody = endpoint.exampleRequest.body;
  const okContent = endpoint.streaming
    ? { "text/event-stream": { schema: { type: "string", description: "Server-sent events" } } }
    : {
        "application/json": {
          schema: Object.keys(endpoint.exampleResponse).length ? schemaFromExample(endpoint.exampleResponse) : {},
          ...(Object.keys(endpoint.exampleResponse).length ? { example: endpoint.exampleResponse } : {}),
        },
      };
  return {
    operationId,
    summary: endpoint.title || `${endpoint.method} ${endpoint.path}`,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    ...(endpoint.docsUrl ? { externalDocs: { url: endpoint.docsUrl } } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: endpoint.parameters.some((p) => p.in === "body" && p.required),
            content: { "application/json": { schema: body, ...(exampleBody !== undefined ? { example: exampleBody } : {}) } },
          },
        }
      : {}),
    responses: {
      "200": { description: "The provider's response", content: okContent },
      ...(pricing ? { "402": { $ref: "#/components/responses/PaymentRequired" } } : {}),
    },
    // A free operation needs no credential; a priced one needs the L402 proof (or a session token).
    security: pricing ? [{ L402: [] }] : [],
    ...(pricing ? { "x-l402-pricing": pricing } : {}),
    ...(endpoint.freeTryEnabled ? { "x-l402-free-try": true } : {}),
    "x-streaming": endpoint.streaming,
  };
}

/** Builds the OpenAPI 3.1 document of one gateway. */
export function buildOpenApiDocument(api: DocumentedApi): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const usedIds = new Set<string>();
  for (const endpoint of api.endpoints) {
    let operationId = operationName(endpoint);
    for (let n = 2; usedIds.has(operationId); n++) operationId = `${operationName(endpoint).slice(0, 60)}_${n}`;
    usedIds.add(operationId);
    paths[endpoint.path] ??= {};
    paths[endpoint.path][endpoint.method.toLowerCase()] = operation(endpoint, operationId);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: api.name,
      version: "1.0.0",
      description: [
        api.description,
        "Paid with Lightning (L402): a priced operation first answers 402 with a bolt11 invoice and a macaroon in WWW-Authenticate; pay the invoice and repeat the call with `Authorization: L402 <macaroon>:<preimage>`. Session models return X-Session-Token for the following calls.",
      ]
        .filter(Boolean)
        .join("\n\n"),
    },
    servers: [{ url: api.gatewayUrl, description: `${api.name} gateway` }],
    externalDocs: { description: "Directory page", url: api.pageUrl },
    paths,
    components: {
      securitySchemes: {
        L402: {
          type: "apiKey",
          in: "header",
          name: "Authorization",
          description: "`L402 <macaroon_base64>:<preimage_hex>` after paying the invoice of a 402 challenge (the legacy `LSAT` scheme is accepted too).",
        },
      },
      responses: {
        PaymentRequired: {
          description: "Payment required: pay the invoice, then repeat the request with the L402 proof",
          headers: {
            "WWW-Authenticate": { description: 'L402 macaroon="<base64>", invoice="<bolt11>"', schema: { type: "string" } },
          },
          content: { "application/json": { schema: { $ref: "#/components/schemas/PaymentChallenge" } } },
        },
      },
      schemas: {
        PaymentChallenge: {
          type: "object",
          required: ["error", "paymentRequest", "amountSats", "paymentHash"],
          properties: {
            error: { type: "string", const: "Payment Required" },
            paymentRequest: { type: "string", description: "bolt11 invoice" },
            amountSats: { type: "integer" },
            paymentHash: { type: "string" },
            model: { type: "string", description: "the pricing model (session models only)" },
            durationMinutes: { type: "integer" },
            unitCostSats: { type: "integer" },
            tokenBudget: { type: "integer" },
            creditSats: { type: "integer", description: "the honored prepaid credit, when X-Hub-Credit was sent" },
          },
        },
      },
    },
  };
}
