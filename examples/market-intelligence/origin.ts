// The market-intelligence origin's requests: GET <path> of every endpoint descriptor (query and path
// parameters validated by its zod schema: a 400 names the parameter, an unknown one included), the
// answer with `meta` filled in (`source`, `generated_at`); SSE streams for the two stream endpoints;
// GET /v1/openapi.json (public: the hub imports the tenant's endpoints from it) and GET /healthz.
import { isUpstreamUnavailableError, upstreamUnavailableAnswer } from "./model/live/errors.ts";
import { z } from "zod";
import { errorAnswer, type JsonAnswer, type OriginAnswer, type OriginRequest } from "../shared/origin-server.ts";
import { responseMeta, type EndpointRequest, type MarketEndpoint } from "./endpoint.ts";
import type { MarketSource } from "./model/types.ts";

export const OPENAPI_PATH = "/v1/openapi.json";
/** GET requests have no body worth more than this. */
export const MAX_BODY_BYTES = 16 * 1024;
/** Paths served without the gateway's signature: the API description and liveness. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([OPENAPI_PATH, "/healthz"]);

/** A parameter's name as a client wrote it (`window_hours`), or `(query)` for the whole query. */
function parameterName(path: readonly PropertyKey[]): string {
  return path.map(String).join(".") || "(query)";
}

/** A 400 that names every invalid parameter, the first in `field` and the message. */
export function parameterErrorAnswer(error: z.ZodError): JsonAnswer {
  const fields = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ field: parameterName([...issue.path, key]), message: "unknown parameter" }))
      : [{ field: parameterName(issue.path), message: issue.message }],
  );
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
  return errorAnswer(400, "invalid_parameter", `Invalid parameters: ${summary}`, { field: fields[0]?.field, fields });
}

interface Route {
  endpoint: MarketEndpoint<unknown>;
  pattern: RegExp;
  names: string[];
}

/** `/v1/onchain/entity/{address}` → a regular expression with one group per path parameter. */
function compile(endpoint: MarketEndpoint<unknown>): Route {
  const names: string[] = [];
  const source = endpoint.path
    .split("/")
    .map((part) => {
      const match = /^\{([A-Za-z0-9_]+)\}$/.exec(part);
      if (!match) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(match[1]);
      return "([^/]+)";
    })
    .join("/");
  return { endpoint, pattern: new RegExp(`^${source}$`), names };
}

/** Adds `meta` (source, generated_at, then whatever the handler put there) to an object body. */
function withResponseMeta(body: unknown, source: MarketSource): unknown {
  if (!body || typeof body !== "object" || Array.isArray(body)) return body;
  const own = (body as { meta?: Record<string, unknown> }).meta;
  return { ...body, meta: { ...responseMeta(source), ...own } };
}

export interface MarketOriginOptions<Deps extends { source: MarketSource }> {
  deps: Deps;
  endpoints: MarketEndpoint<Deps>[];
  openapi: () => Record<string, unknown>;
  log?: (line: Record<string, unknown>) => void;
}

export function createMarketOrigin<Deps extends { source: MarketSource }>(options: MarketOriginOptions<Deps>) {
  // Literal paths first, so /v1/derivatives/liquidations/stream never reads as a path parameter.
  const routes = (options.endpoints as MarketEndpoint<unknown>[]).map(compile).sort((a, b) => a.names.length - b.names.length);
  const { deps } = options;
  return {
    routes,
    async handle(request: OriginRequest): Promise<OriginAnswer> {
      if (request.path === "/healthz" || request.path === OPENAPI_PATH) {
        if (request.method !== "GET" && request.method !== "HEAD")
          return { ...errorAnswer(405, "method_not_allowed", `${request.path} takes GET`), headers: { allow: "GET" } };
        if (request.path === "/healthz") return { status: 200, body: { ok: true, source: deps.source.kind } };
        return { status: 200, body: options.openapi(), headers: { "cache-control": "public, max-age=300" } };
      }
      let route: Route | undefined;
      let match: RegExpExecArray | null = null;
      for (const candidate of routes) {
        match = candidate.pattern.exec(request.path);
        if (match) {
          route = candidate;
          break;
        }
      }
      if (!route || !match) return errorAnswer(404, "not_found", `No endpoint at ${request.path}; see ${OPENAPI_PATH}`);
      if (request.method !== "GET" && request.method !== "HEAD") {
        return { ...errorAnswer(405, "method_not_allowed", `${route.endpoint.path} takes GET`), headers: { allow: "GET" } };
      }
      const raw: Record<string, string> = {};
      for (const [key, value] of request.query) raw[key] = value;
      for (const [i, name] of route.names.entries()) {
        if (name in raw) return errorAnswer(400, "invalid_parameter", `${name} is a path parameter; it cannot also be sent in the query`, { field: name });
        try {
          raw[name] = decodeURIComponent(match[i + 1]);
        } catch {
          return errorAnswer(400, "invalid_parameter", `${name}: not a valid URL-encoded value`, { field: name });
        }
      }
      const parsed = route.endpoint.params.safeParse(raw);
      if (!parsed.success) return parameterErrorAnswer(parsed.error);
      const endpoint = route.endpoint;
      if (request.probe) return { status: 200, body: withResponseMeta({ ok: true, probe: true, endpoint: endpoint.path }, deps.source) };
      const endpointRequest: EndpointRequest = { headers: request.headers, probe: request.probe };
      if (endpoint.kind === "stream") {
        return { status: 200, stream: (sink) => endpoint.open(deps, parsed.data, sink) };
      }
      let answer;
      try {
        answer = await endpoint.handle(deps, parsed.data, endpointRequest);
      } catch (err) {
        // The live source's upstream is throttled or down: a 503 naming it, with Retry-After.
        if (isUpstreamUnavailableError(err)) return upstreamUnavailableAnswer(err, deps.source.now());
        throw err;
      }
      return { status: answer.status ?? 200, body: withResponseMeta(answer.body, deps.source), headers: answer.headers };
    },
  };
}
