// The try-it form of an endpoint (API pages): its fields from the documented parameters, prefilled
// from the example request, and the HTTP request those fields make. Pure and browser-safe.
import type { EndpointParameter } from "@/lib/directory/schemas.ts";

/** What the form needs to know about an endpoint (a subset of the directory's EndpointDetail). */
export type TryItEndpoint = {
  method: string;
  path: string;
  parameters: EndpointParameter[];
  exampleRequest: Record<string, unknown>;
};

/** One input of the form: a path, query or header parameter. */
export type TryItField = {
  /** Stable key of the input: `<in>:<name>`. */
  key: string;
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  type: string;
  description: string;
};

/** The form: its fields, their initial values, and the JSON body text when the method takes one. */
export type TryItForm = {
  fields: TryItField[];
  values: Record<string, string>;
  /** null when the method sends no body (GET, HEAD, DELETE without a documented body). */
  body: string | null;
};

/** The request the form makes, before any payment header. */
export type TryItRequest = { method: string; url: string; headers: Record<string, string>; body: string | null };

/** A field the visitor must fix, named as the form labels it. */
export type TryItProblem = { key: string; message: string };

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);
/** Headers the page sets itself (payment, session, credit) and a form must not override. */
const RESERVED_HEADERS = new Set(["authorization", "x-session-token", "x-hub-credit", "content-type", "content-length", "host", "cookie"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A form value for an example value: strings as they are, anything else as JSON. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Names of `{param}` segments in a path template, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}/]+)\}/g)].map((m) => m[1]);
}

/**
 * Builds the form: every documented path/query/header parameter, plus any `{param}` of the path
 * and any example query key the provider did not document; values from the example request.
 */
export function buildTryItForm(endpoint: TryItEndpoint): TryItForm {
  const example = endpoint.exampleRequest;
  const examples = {
    path: isRecord(example.path) ? example.path : {},
    query: isRecord(example.query) ? example.query : {},
    header: isRecord(example.headers) ? example.headers : {},
  };
  const fields: TryItField[] = [];
  const seen = new Set<string>();
  const add = (field: Omit<TryItField, "key">) => {
    const key = `${field.in}:${field.name}`;
    if (seen.has(key)) return;
    if (field.in === "header" && RESERVED_HEADERS.has(field.name.toLowerCase())) return;
    seen.add(key);
    fields.push({ ...field, key });
  };
  const templateNames = pathParameterNames(endpoint.path);
  for (const name of templateNames) {
    const documented = endpoint.parameters.find((p) => p.in === "path" && p.name === name);
    add({ name, in: "path", required: true, type: documented?.type ?? "string", description: documented?.description ?? "" });
  }
  for (const p of endpoint.parameters) {
    // A documented path parameter that is not in the template has nowhere to go.
    if (p.in === "body" || p.in === "path") continue;
    add({ name: p.name, in: p.in, required: p.required, type: p.type, description: p.description });
  }
  for (const name of Object.keys(examples.query)) add({ name, in: "query", required: false, type: "string", description: "" });

  const values: Record<string, string> = {};
  for (const field of fields) values[field.key] = asText(examples[field.in][field.name]);

  const method = endpoint.method.toUpperCase();
  const takesBody = METHODS_WITH_BODY.has(method) || example.body !== undefined;
  let body: string | null = null;
  if (takesBody) {
    if (example.body !== undefined) body = typeof example.body === "string" ? example.body : JSON.stringify(example.body, null, 2);
    else {
      // No example body: a skeleton from the documented body parameters, so the visitor sees the shape.
      const skeleton = Object.fromEntries(endpoint.parameters.filter((p) => p.in === "body").map((p) => [p.name, ""]));
      body = Object.keys(skeleton).length ? JSON.stringify(skeleton, null, 2) : "";
    }
  }
  return { fields, values, body };
}

/**
 * The request the form's values make against `gatewayBase`, or the problems to show: a required
 * field left empty, a body that is not JSON. Empty optional fields are left out.
 */
export function buildTryItRequest(
  gatewayBase: string,
  endpoint: Pick<TryItEndpoint, "method" | "path">,
  form: { fields: TryItField[]; values: Record<string, string>; body: string | null },
): { ok: true; request: TryItRequest } | { ok: false; problems: TryItProblem[] } {
  const problems: TryItProblem[] = [];
  const value = (field: TryItField) => (form.values[field.key] ?? "").trim();
  for (const field of form.fields) {
    if (field.required && value(field) === "") problems.push({ key: field.key, message: `${field.name} is required` });
  }
  let path = endpoint.path;
  for (const field of form.fields.filter((f) => f.in === "path")) {
    // encodeURIComponent keeps a value inside its one segment (no "/" or ".." escapes).
    path = path.replaceAll(`{${field.name}}`, encodeURIComponent(value(field)));
  }
  const query = new URLSearchParams();
  for (const field of form.fields.filter((f) => f.in === "query")) if (value(field) !== "") query.append(field.name, value(field));
  const headers: Record<string, string> = {};
  for (const field of form.fields.filter((f) => f.in === "header")) {
    if (value(field) === "") continue;
    if (!/^[\t\x20-\x7e]*$/.test(value(field))) problems.push({ key: field.key, message: `${field.name} must be plain ASCII text` });
    else headers[field.name] = value(field);
  }
  let body: string | null = null;
  if (form.body !== null && form.body.trim() !== "") {
    try {
      JSON.parse(form.body);
      body = form.body;
      headers["content-type"] = "application/json";
    } catch {
      problems.push({ key: "body", message: "The body must be valid JSON" });
    }
  }
  if (problems.length) return { ok: false, problems };
  const base = gatewayBase.replace(/\/+$/, "");
  const search = query.size ? `?${query.toString()}` : "";
  return { ok: true, request: { method: endpoint.method.toUpperCase(), url: `${base}${path.startsWith("/") ? "" : "/"}${path}${search}`, headers, body } };
}
