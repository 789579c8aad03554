// Turns a gateway's OpenAPI 3.1 document (`{gateway}/.well-known/openapi.json`, docs/discovery.md)
// into MCP tools: one per operation, named by its operationId (what `tools[].name` in the served
// mcp.json says), arguments = query/path/header parameters by name plus `body` for the JSON request
// body, price and model in the description. Pure: no I/O.

/** `x-l402-pricing` of an operation (../shared/INTEROP.md "Discovery"). */
export type ToolPricing = {
  model: "per_request" | "per_kb" | "token_bucket" | "time_pass" | "metered";
  priceSats: number;
  tokenBudget: number | null;
  durationMinutes: number | null;
  unitCostSats: number | null;
};

type ParameterLocation = "query" | "path" | "header";

/** One tool: what MCP clients see plus what the server needs to make the call. */
export type GatewayTool = {
  name: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[] };
  method: string;
  /** The path template, e.g. `/v1/entity/{address}`. */
  path: string;
  parameters: { name: string; in: ParameterLocation; required: boolean }[];
  hasBody: boolean;
  streaming: boolean;
  pricing: ToolPricing | null;
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The gateway names operations `get_v1_entity_by_address`; the same rule for documents without operationId. */
export function fallbackToolName(method: string, path: string): string {
  const parts = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? `by_${param[1]}` : segment;
    });
  return [method.toLowerCase(), ...parts]
    .join("_")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/_$/, "")
    .slice(0, 64);
}

/** The price in words, as a tool description shows it. */
export function priceInWords(pricing: ToolPricing | null): string {
  if (!pricing) return "Free.";
  const sats = (n: number | null) => `${n ?? 0} sat${n === 1 ? "" : "s"}`;
  switch (pricing.model) {
    case "per_request":
      return `Costs ${sats(pricing.priceSats)} per call (per_request).`;
    case "token_bucket":
      return `Costs ${sats(pricing.priceSats)} for ${pricing.tokenBudget ?? "?"} calls (token_bucket; the session is reused).`;
    case "time_pass":
      return `Costs ${sats(pricing.priceSats)} for ${pricing.durationMinutes ?? "?"} minutes of unlimited calls (time_pass).`;
    case "metered":
      return `Costs a ${sats(pricing.priceSats)} deposit, then ${sats(pricing.unitCostSats)} per call (metered).`;
    case "per_kb":
      return `Costs a ${sats(pricing.priceSats)} deposit, then ${sats(pricing.unitCostSats)} per KB of response (per_kb).`;
  }
}

function readPricing(value: unknown): ToolPricing | null {
  if (!isRecord(value) || typeof value.model !== "string" || typeof value.priceSats !== "number") return null;
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  return {
    model: value.model as ToolPricing["model"],
    priceSats: value.priceSats,
    tokenBudget: num(value.tokenBudget),
    durationMinutes: num(value.durationMinutes),
    unitCostSats: num(value.unitCostSats),
  };
}

/** Every operation of the document as a tool; names are unique (a clash gets `_2`, `_3`, as the gateway does). */
export function toolsFromOpenApi(document: unknown): GatewayTool[] {
  if (!isRecord(document) || !isRecord(document.paths)) throw new Error("not an OpenAPI document (no paths)");
  const tools: GatewayTool[] = [];
  const used = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isRecord(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isRecord(operation)) continue;
      let name =
        typeof operation.operationId === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(operation.operationId)
          ? operation.operationId
          : fallbackToolName(method, path);
      for (let n = 2; used.has(name); n++) name = `${name.slice(0, 60)}_${n}`;
      used.add(name);

      const properties: Record<string, unknown> = {};
      const required: string[] = [];
      const parameters: GatewayTool["parameters"] = [];
      for (const param of Array.isArray(operation.parameters) ? operation.parameters : []) {
        if (!isRecord(param) || typeof param.name !== "string" || !["query", "path", "header"].includes(String(param.in))) continue;
        const location = param.in as ParameterLocation;
        const isRequired = location === "path" || param.required === true;
        parameters.push({ name: param.name, in: location, required: isRequired });
        const schema = isRecord(param.schema) ? { ...param.schema } : { type: "string" };
        const description = [typeof param.description === "string" ? param.description : "", `(${location})`].filter(Boolean).join(" ");
        properties[param.name] = { ...schema, description, ...(param.example !== undefined ? { examples: [param.example] } : {}) };
        if (isRequired) required.push(param.name);
      }
      const jsonBody =
        isRecord(operation.requestBody) && isRecord(operation.requestBody.content) ? operation.requestBody.content["application/json"] : undefined;
      const hasBody = isRecord(jsonBody);
      if (hasBody) {
        const schema = isRecord(jsonBody.schema) ? jsonBody.schema : {};
        properties.body = { ...schema, description: "JSON request body", ...(jsonBody.example !== undefined ? { examples: [jsonBody.example] } : {}) };
        if (isRecord(operation.requestBody) && operation.requestBody.required === true) required.push("body");
      }

      const pricing = readPricing(operation["x-l402-pricing"]);
      const streaming = operation["x-streaming"] === true;
      const summary = typeof operation.summary === "string" ? operation.summary : `${method.toUpperCase()} ${path}`;
      const description = [
        typeof operation.description === "string" && operation.description ? `${summary}: ${operation.description}` : summary,
        `${method.toUpperCase()} ${path}.`,
        priceInWords(pricing),
        pricing ? "Paid automatically over Lightning from this server's budget; the result says what was paid." : "",
        streaming ? "Server-sent event stream: returns the events of a bounded window (maxEvents, maxSeconds)." : "",
      ]
        .filter(Boolean)
        .join(" ");
      if (streaming) {
        properties.maxEvents = { type: "integer", minimum: 1, description: "Most events to read from the stream (default from HUB_STREAM_MAX_EVENTS)" };
        properties.maxSeconds = { type: "number", exclusiveMinimum: 0, description: "Most seconds to read the stream (default from HUB_STREAM_MAX_SECONDS)" };
      }
      tools.push({
        name,
        description,
        inputSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
        method: method.toUpperCase(),
        path,
        parameters,
        hasBody,
        streaming,
        pricing,
      });
    }
  }
  return tools;
}

/** The HTTP request for a tool call: path parameters substituted, query and headers set, body as JSON. */
export function toolRequest(tool: GatewayTool, gateway: string, args: Record<string, unknown>): { url: string; init: RequestInit } {
  let path = tool.path;
  const query = new URLSearchParams();
  const headers = new Headers();
  for (const param of tool.parameters) {
    const value = args[param.name];
    if (value === undefined || value === null) {
      if (param.required) throw new Error(`missing required argument "${param.name}"`);
      continue;
    }
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (param.in === "path") path = path.replaceAll(`{${param.name}}`, encodeURIComponent(text));
    else if (param.in === "query") query.append(param.name, text);
    else headers.set(param.name, text);
  }
  const init: RequestInit = { method: tool.method, headers };
  if (tool.hasBody && args.body !== undefined) {
    headers.set("content-type", "application/json");
    init.body = JSON.stringify(args.body);
  }
  const search = query.toString();
  return { url: `${gateway.replace(/\/+$/, "")}${path}${search ? `?${search}` : ""}`, init };
}
