// OpenAPI import (issue 5, `POST /api/tenants/:tenantId/endpoints/import`): a provider posts an
// OpenAPI 3.x document (JSON) and every operation becomes an endpoint, in one transaction: all or
// nothing. Each operation is validated by the same endpointCreateSchema as a single create, so an
// import can never store what the endpoint API would refuse.
//
// Mapping (docs/api.md): method + path as written (OpenAPI `{param}` templates are ours too);
// summary -> title, description, externalDocs.url -> docsUrl; query/path/header parameters and the
// JSON request body's top-level properties -> parameters; parameter examples and the request body
// example -> exampleRequest; the first JSON example of a 2xx response -> exampleResponse;
// `x-l402-pricing` -> pricing (absent: free); `x-streaming` -> streaming. Local `$ref`s are followed.
import { z } from "zod";
import { isUniqueViolation, type PrismaClient } from "@/lib/db/client.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";
import { publishConfigChanged } from "@/lib/tenants/config-events.ts";
import { startTrialIfUnset } from "@/lib/tenants/start-trial.ts";
import { toEndpointColumns, type EndpointRow } from "./columns.ts";
import { endpointCreateSchema, endpointResponseSchema, HTTP_METHODS, PARAMETER_TYPES, type EndpointConfig } from "./schemas.ts";

/** Operations one import may create: a whole API, not a dump of unrelated ones. */
export const maxImportOperations = 200;

/** The request body: an OpenAPI 3.x document; only what the import reads is checked here. */
export const openApiImportSchema = z
  .looseObject({
    openapi: z.string().regex(/^3\.\d+(\.\d+)?$/, "must be an OpenAPI 3.x version such as 3.1.0"),
    paths: z.record(z.string(), z.unknown()),
  })
  .refine((doc) => Object.keys(doc.paths).length > 0, { message: "must contain at least one path", path: ["paths"] });
export type OpenApiImport = z.output<typeof openApiImportSchema>;

/** The import's query: `existing=skip` leaves operations that already exist alone instead of a 409. */
export const importQuerySchema = z.object({ existing: z.enum(["fail", "skip"]).default("fail") });

/** 201 of an import: the endpoints created, in document order, and the operations skipped. */
export const importResponseSchema = z.object({ endpoints: z.array(endpointResponseSchema), skipped: z.array(z.string()) });
export type ImportResponse = z.output<typeof importResponseSchema>;

/** One operation that failed validation, named as the provider wrote it. */
export type ImportProblem = { operation: string; fields: { field: string; message: string }[] };

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/components/...`), a few levels deep; anything else is returned as is. */
function deref(doc: Json, value: unknown, depth = 0): unknown {
  if (!isRecord(value) || typeof value.$ref !== "string" || depth > 8) return value;
  const ref = value.$ref;
  if (!ref.startsWith("#/")) return value;
  let target: unknown = doc;
  for (const part of ref.slice(2).split("/")) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    target = isRecord(target) ? target[key] : undefined;
  }
  return deref(doc, target, depth + 1);
}

/** Our parameter type for a JSON Schema type (unknown and compound types read as string). */
function parameterType(schema: unknown): (typeof PARAMETER_TYPES)[number] {
  const type = isRecord(schema) ? (Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type) : undefined;
  return (PARAMETER_TYPES as readonly unknown[]).includes(type) ? (type as (typeof PARAMETER_TYPES)[number]) : "string";
}

function firstJsonExample(doc: Json, content: unknown): unknown {
  const media = isRecord(content)
    ? (deref(doc, content["application/json"]) ?? Object.entries(content).find(([type]) => type.includes("json"))?.[1])
    : undefined;
  if (!isRecord(media)) return undefined;
  if (media.example !== undefined) return media.example;
  const examples = isRecord(media.examples) ? Object.values(media.examples) : [];
  const first = deref(doc, examples[0]);
  if (isRecord(first) && first.value !== undefined) return first.value;
  const schema = deref(doc, media.schema);
  return isRecord(schema) ? schema.example : undefined;
}

/** The endpoint-create input of one operation (validated afterwards by endpointCreateSchema). */
export function operationToEndpointInput(doc: Json, path: string, method: string, pathItem: Json, operation: Json): Json {
  const parameters: Json[] = [];
  const query: Json = {};
  const pathValues: Json = {};
  const declared = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  const byKey = new Map<string, Json>();
  // Operation-level parameters override path-level ones with the same name and location.
  for (const raw of declared) {
    const p = deref(doc, raw);
    if (isRecord(p) && typeof p.name === "string" && typeof p.in === "string") byKey.set(`${p.in}:${p.name}`, p);
  }
  for (const p of byKey.values()) {
    if (p.in !== "query" && p.in !== "path" && p.in !== "header") continue;
    const schema = deref(doc, p.schema);
    parameters.push({
      name: p.name,
      in: p.in,
      required: p.in === "path" ? true : p.required === true,
      type: parameterType(schema),
      description: typeof p.description === "string" ? p.description.slice(0, 500) : "",
    });
    const example = p.example ?? (isRecord(schema) ? schema.example : undefined);
    if (example !== undefined && p.in === "query") query[String(p.name)] = example;
    if (example !== undefined && p.in === "path") pathValues[String(p.name)] = example;
  }
  const requestBody = deref(doc, operation.requestBody);
  let body: unknown;
  if (isRecord(requestBody) && isRecord(requestBody.content)) {
    const media = deref(doc, requestBody.content["application/json"]);
    const schema = isRecord(media) ? deref(doc, media.schema) : undefined;
    const required = isRecord(schema) && Array.isArray(schema.required) ? schema.required : [];
    if (isRecord(schema) && isRecord(schema.properties)) {
      for (const [name, prop] of Object.entries(schema.properties)) {
        const propSchema = deref(doc, prop);
        parameters.push({
          name,
          in: "body",
          required: required.includes(name),
          type: parameterType(propSchema),
          description: isRecord(propSchema) && typeof propSchema.description === "string" ? propSchema.description.slice(0, 500) : "",
        });
      }
    }
    body = firstJsonExample(doc, requestBody.content);
  }
  const responses = isRecord(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses)
    .filter((code) => /^2\d\d$/.test(code))
    .sort()
    .map((code) => deref(doc, responses[code]))
    .find((r) => isRecord(r) && isRecord(r.content));
  const responseExample = isRecord(success) ? firstJsonExample(doc, success.content) : undefined;

  const exampleRequest: Json = {};
  if (Object.keys(query).length) exampleRequest.query = query;
  if (Object.keys(pathValues).length) exampleRequest.path = pathValues;
  if (body !== undefined) exampleRequest.body = body;

  const pricing = isRecord(operation["x-l402-pricing"]) ? operation["x-l402-pricing"] : null;
  const docs = deref(doc, operation.externalDocs);
  return {
    method,
    path,
    title:
      typeof operation.summary === "string"
        ? operation.summary.slice(0, 200)
        : typeof operation.operationId === "string"
          ? operation.operationId.slice(0, 200)
          : "",
    description: typeof operation.description === "string" ? operation.description.slice(0, 2000) : "",
    docsUrl: isRecord(docs) && typeof docs.url === "string" ? docs.url : null,
    ...(pricing
      ? {
          pricingModel: pricing.model ?? null,
          priceSats: pricing.priceSats ?? null,
          tokenBudget: pricing.tokenBudget ?? null,
          durationMinutes: pricing.durationMinutes ?? null,
          unitCostSats: pricing.unitCostSats ?? null,
        }
      : {}),
    streaming: operation["x-streaming"] === true,
    parameters,
    exampleRequest: Object.keys(exampleRequest).length ? exampleRequest : null,
    // A non-object example response is kept as {body}, as the directory shows it.
    exampleResponse: responseExample === undefined ? null : isRecord(responseExample) ? responseExample : { body: responseExample },
  };
}

/** Every operation of the document as validated endpoint configurations, or the problems. */
export function endpointsFromOpenApi(doc: OpenApiImport): { ok: true; endpoints: EndpointConfig[] } | { ok: false; problems: ImportProblem[] } {
  const endpoints: EndpointConfig[] = [];
  const problems: ImportProblem[] = [];
  let count = 0;
  for (const [path, rawItem] of Object.entries(doc.paths)) {
    const pathItem = deref(doc, rawItem);
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method.toLowerCase()];
      if (!isRecord(operation)) continue;
      count++;
      const name = `${method} ${path}`;
      const parsed = endpointCreateSchema.safeParse(operationToEndpointInput(doc, path, method, pathItem, operation));
      if (parsed.success) endpoints.push(parsed.data);
      else problems.push({ operation: name, fields: parsed.error.issues.map((i) => ({ field: i.path.join(".") || "(operation)", message: i.message })) });
    }
  }
  if (count === 0) problems.push({ operation: "(document)", fields: [{ field: "paths", message: `no ${HTTP_METHODS.join(", ")} operations found` }] });
  if (count > maxImportOperations) {
    problems.push({ operation: "(document)", fields: [{ field: "paths", message: `${count} operations; at most ${maxImportOperations} per import` }] });
  }
  return problems.length ? { ok: false, problems } : { ok: true, endpoints };
}

export type ImportOpenApiOptions = {
  prisma: PrismaClient;
  store: KeyValueStore;
  tenantId: string;
  document: OpenApiImport;
  /** Leave operations that already exist as they are (re-importing a grown API) instead of a 409. */
  skipExisting?: boolean;
  now?: Date;
};

/** What an import created, and the `METHOD /path` of operations left alone because they existed. */
export type ImportOpenApiResult = { created: EndpointRow[]; skipped: string[] };

/**
 * Creates every operation as an endpoint in one transaction. 422 names each invalid operation and
 * its fields; 409 names each method + path that already exists, unless `skipExisting` (nothing is
 * created on any error).
 */
export async function importOpenApi({
  prisma,
  store,
  tenantId,
  document,
  skipExisting = false,
  now = new Date(),
}: ImportOpenApiOptions): Promise<ImportOpenApiResult> {
  const converted = endpointsFromOpenApi(document);
  if (!converted.ok) {
    const summary = converted.problems.map((p) => `${p.operation} (${p.fields.map((f) => `${f.field}: ${f.message}`).join("; ")})`).join(", ");
    throw new AppError("validation_failed", `Invalid operations: ${summary}`, { operations: converted.problems });
  }
  const existing = await prisma.endpoint.findMany({
    where: { tenantId, OR: converted.endpoints.map((e) => ({ method: e.method, path: e.path })) },
    select: { method: true, path: true },
  });
  const skipped = existing.map((e) => `${e.method} ${e.path}`);
  if (skipped.length && !skipExisting) {
    throw new AppError("conflict", `These endpoints already exist in this workspace: ${skipped.join(", ")}`, { operations: skipped });
  }
  const toCreate = converted.endpoints.filter((e) => !skipped.includes(`${e.method} ${e.path}`));
  if (toCreate.length === 0) return { created: [], skipped };
  let rows: EndpointRow[];
  try {
    rows = await prisma.$transaction(async (tx) => {
      const created: EndpointRow[] = [];
      // In document order, so the directory shows them as the provider wrote them.
      for (const [i, endpoint] of toCreate.entries()) {
        created.push(await tx.endpoint.create({ data: { ...toEndpointColumns(endpoint), tenantId, createdAt: new Date(now.getTime() + i) } }));
      }
      if (created.some((e) => e.isActive && e.pricingModel)) await startTrialIfUnset({ tx, tenantId, now });
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("conflict", "An endpoint of this document was created meanwhile; nothing was imported", {});
    throw err;
  }
  await publishConfigChanged({ store, tenantId });
  return { created: rows, skipped };
}
