// How every market-intelligence endpoint is described: its path, price and pricing model exactly as
// spec 2 §4.2's table fixes them, the zod schema of its query (and path) parameters, the zod schema
// of its JSON answer, and the function that answers it. The server routes, validates and documents
// (OpenAPI 3.1, the API reference) from these descriptors alone, so a parameter's bounds, default
// and example live in one place.
//
// Response bodies use snake_case keys (the spec's own field names: bias_score, is_derived,
// data_completeness, window_hours); the model's types stay camelCase and each endpoint maps them.
// Every body carries `meta.source` ("simulated" | "live") so nobody mistakes simulated data for live.
import { z } from "zod";
import { DEFAULT_VENUE, VENUES, type MarketSource } from "./model/types";

export type PricingModel = "per_request" | "time_pass";

/** What a handler returns; `status` defaults to 200. */
export interface EndpointAnswer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface EndpointRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The gateway's health probe (`X-Hub-Probe: 1`): validate, but skip expensive work. */
  probe: boolean;
}

/**
 * One JSON endpoint. `Deps` is what the handler needs (the source, the history store, the verdict
 * engine...); the server passes one object holding all of them, which satisfies each structurally.
 */
export interface JsonEndpoint<Deps, Params extends z.ZodType = z.ZodType> {
  kind: "json";
  /** Exactly the spec's path; a path parameter is written `{address}`. */
  path: string;
  price: number;
  model: "per_request";
  summary: string;
  description: string;
  /** Query and path parameters, from strings (use z.coerce / z.stringbool), `.strict()`: an unknown parameter is a 400 naming it. */
  params: Params;
  /** The documented JSON shape of a 200 answer. */
  response: z.ZodType;
  /** Example query (and path) parameters for the docs and the try-it panel. */
  example: Record<string, string>;
  handle(deps: Deps, params: z.output<Params>, request: EndpointRequest): Promise<EndpointAnswer>;
}

/** An SSE stream (time_pass): the server writes the frames; the gateway ends it when the pass expires. */
export interface StreamEndpoint<Deps, Params extends z.ZodType = z.ZodType> {
  kind: "stream";
  path: string;
  price: number;
  model: "time_pass";
  summary: string;
  description: string;
  params: Params;
  /** The documented JSON shape of each data event, by SSE event name. */
  events: Record<string, z.ZodType>;
  example: Record<string, string>;
  open(deps: Deps, params: z.output<Params>, sink: StreamSink): () => void;
}

/** Where a stream writes: SSE frames already serialized by the server. */
export interface StreamSink {
  event(name: string, data: unknown, id?: string): void;
  comment(text: string): void;
}

export type MarketEndpoint<Deps> = JsonEndpoint<Deps, z.ZodType> | StreamEndpoint<Deps, z.ZodType>;

/** Identity helpers that keep each descriptor's parameter type for its handler. */
export function jsonEndpoint<Deps, Params extends z.ZodType>(endpoint: Omit<JsonEndpoint<Deps, Params>, "kind" | "model">): JsonEndpoint<Deps, Params> {
  return { kind: "json", model: "per_request", ...endpoint };
}
export function streamEndpoint<Deps, Params extends z.ZodType>(endpoint: Omit<StreamEndpoint<Deps, Params>, "kind" | "model">): StreamEndpoint<Deps, Params> {
  return { kind: "stream", model: "time_pass", ...endpoint };
}

// ---- parameters shared by several endpoints ------------------------------------------------

/** `exchange`: one of the five venues, default the first-party venue (spec 2 §4.2 rule 1). */
export const exchangeParam = z
  .enum(VENUES)
  .default(DEFAULT_VENUE)
  .describe(`Spot venue: one of ${VENUES.join(", ")}. Default ${DEFAULT_VENUE}.`);

/** An ISO 8601 instant with its offset, as epoch milliseconds after parsing. */
export const instantParam = z.iso
  .datetime({ offset: true })
  .transform((value) => Date.parse(value))
  .describe("ISO 8601 instant with offset, e.g. 2026-01-01T00:00:00Z");

export function limitParam(max: number, fallback: number) {
  return z.coerce.number().int().min(1).max(max).default(fallback).describe(`Items per page, 1–${max}, default ${fallback}`);
}
export const offsetParam = z.coerce.number().int().min(0).max(1_000_000).default(0).describe("Items to skip (newest first), default 0");

// ---- the meta block every answer carries -----------------------------------------------------

export interface ResponseMeta {
  source: MarketSource["kind"];
  generated_at: string;
  [key: string]: unknown;
}

export const responseMetaSchema = z
  .object({
    source: z.enum(["simulated", "live"]).describe("Where the data comes from: the seeded simulation or live public APIs"),
    generated_at: z.iso.datetime().describe("When this answer was computed"),
  })
  .catchall(z.unknown());

export function responseMeta(source: MarketSource, extra: Record<string, unknown> = {}): ResponseMeta {
  return { source: source.kind, generated_at: new Date(source.now()).toISOString(), ...extra };
}
