// The route-planning origin's requests: POST /origin/v1/routes/<operation> runs one operation on
// the engine; GET /origin/v1/routes/openapi.json is the API's OpenAPI 3.1.0 document (public: the
// hub imports the tenant's endpoints from it); GET /origin/v1/routes/basemap draws nothing but
// returns the road ways of a box, the vector background of the API page's map; GET /healthz.
import { z } from "zod";
import { errorAnswer, type JsonAnswer, type OriginRequest } from "../shared/origin-server.ts";
import type { RouteEngine } from "./engine/index.ts";
import { basemap, basemapQuerySchema } from "./basemap.ts";
import { requestErrorFrom, type Operation, type OperationContext } from "./operations/common.ts";
import { buildOpenApiDocument } from "./openapi.ts";

export const ROUTES_PREFIX = "/origin/v1/routes";

/** Largest accepted body: 500 fleet stops with every optional field fit in well under 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Paths served without the gateway's signature: the API description and liveness. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([`${ROUTES_PREFIX}/openapi.json`, "/healthz"]);

/** A zod issue path as clients write it: `stops[3].time_window.end`. */
export function fieldName(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out || "(body)";
}

/** A 400 that names every invalid field, first one in the message. */
export function validationAnswer(error: z.ZodError): JsonAnswer {
  const fields = error.issues.map((issue) => {
    // Unknown keys name the key itself, so a typo reads as the field it is.
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const field = keys.length ? fieldName([...issue.path, keys[0]]) : fieldName(issue.path);
    return { field, message: issue.message };
  });
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
  return errorAnswer(400, "invalid_request", `Invalid request: ${summary}`, { field: fields[0]?.field, fields });
}

export interface RoutePlanningOrigin {
  handle(request: OriginRequest): JsonAnswer;
  /** The OpenAPI document, with example responses computed by the engine at start. */
  openapi: Record<string, unknown>;
}

/** Runs one operation on a request body: 400 for a malformed one, the operation's own errors, or 200. */
export function runOperation(op: Operation, body: unknown, ctx: OperationContext, probe = false): JsonAnswer {
  if (body === undefined) return errorAnswer(400, "invalid_request", "A JSON request body is required", { field: "(body)" });
  const parsed = op.request.safeParse(body);
  if (!parsed.success) return validationAnswer(parsed.error);
  // A health probe proves the origin answers; it does not need a route computed every 5 minutes.
  if (probe) return { status: 200, body: { ok: true, operation: op.name, probe: true } };
  try {
    return { status: 200, body: op.run(parsed.data, ctx) };
  } catch (err) {
    const known = requestErrorFrom(err);
    if (!known) throw err;
    return errorAnswer(known.status, known.code, known.message, { ...(known.field ? { field: known.field } : {}), ...known.details });
  }
}

export function createRoutePlanningOrigin(options: { engine: RouteEngine; operations: Operation[]; now?: () => Date }): RoutePlanningOrigin {
  const now = options.now ?? (() => new Date());
  const byPath = new Map(options.operations.map((op) => [`${ROUTES_PREFIX}/${op.name}`, op]));
  const openapi = buildOpenApiDocument({ operations: options.operations, context: { engine: options.engine, now: now() } });
  return {
    openapi,
    handle(request) {
      const op = byPath.get(request.path);
      if (op) {
        if (request.method !== "POST")
          return { ...errorAnswer(405, "method_not_allowed", `${request.path} takes POST with a JSON body`), headers: { allow: "POST" } };
        return runOperation(op, request.body, { engine: options.engine, now: now() }, request.probe);
      }
      if (request.path === `${ROUTES_PREFIX}/openapi.json` || request.path === `${ROUTES_PREFIX}/basemap` || request.path === "/healthz") {
        if (request.method !== "GET" && request.method !== "HEAD") {
          return { ...errorAnswer(405, "method_not_allowed", `${request.path} takes GET`), headers: { allow: "GET" } };
        }
        if (request.path === "/healthz") return { status: 200, body: { ok: true } };
        if (request.path.endsWith("/openapi.json")) return { status: 200, body: openapi, headers: { "cache-control": "public, max-age=300" } };
        const query = basemapQuerySchema.safeParse(Object.fromEntries(request.query));
        if (!query.success) return validationAnswer(query.error);
        try {
          return { status: 200, body: basemap(options.engine, query.data), headers: { "cache-control": "public, max-age=86400" } };
        } catch (err) {
          const known = requestErrorFrom(err);
          if (!known) throw err;
          return errorAnswer(known.status, known.code, known.message, { ...(known.field ? { field: known.field } : {}), ...known.details });
        }
      }
      return errorAnswer(404, "not_found", `No operation at ${request.path}; see ${ROUTES_PREFIX}/openapi.json`);
    },
  };
}
