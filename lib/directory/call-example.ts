// "How to call it": the exact shell commands for an endpoint, built from its directory entry, so
// API pages (and later llms.txt and the MCP config docs) show calls that work when pasted. Pure.
import type { EndpointEntry } from "./schemas.ts";

type CallableEndpoint = Pick<EndpointEntry, "method" | "path" | "pricingModel" | "exampleRequest"> & { streaming?: boolean };

/** Single-quotes a shell word; a ' inside becomes '\'' . */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The endpoint's full address, with the example's query string when the provider gave one. */
export function endpointUrl(gatewayDomain: string, endpoint: CallableEndpoint): string {
  const url = `${gatewayDomain.replace(/\/+$/, "")}${endpoint.path.startsWith("/") ? "" : "/"}${endpoint.path}`;
  const query = endpoint.exampleRequest.query;
  if (!isRecord(query)) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      params.append(key, typeof item === "string" ? item : JSON.stringify(item));
    }
  }
  // Commas are legal in a query string and coordinates read better unescaped (57.7,11.9).
  const qs = params.toString().replaceAll("%2C", ",");
  return qs ? `${url}?${qs}` : url;
}

/** One curl invocation, with the method, example body and any extra headers. */
export function curlCommand(url: string, endpoint: CallableEndpoint, options: { headers?: string[]; showHeaders?: boolean } = {}): string {
  const parts = ["curl"];
  if (options.showHeaders) parts.push("-i");
  const method = endpoint.method.toUpperCase();
  if (method !== "GET") parts.push("-X", method);
  parts.push(shellQuote(url));
  const lines = [parts.join(" ")];
  for (const header of options.headers ?? []) lines.push(`-H ${shellQuote(header)}`);
  const body = endpoint.exampleRequest.body;
  if (body !== undefined && method !== "GET" && method !== "HEAD") {
    lines.push(`-H ${shellQuote("Content-Type: application/json")}`);
    lines.push(`-d ${shellQuote(typeof body === "string" ? body : JSON.stringify(body))}`);
  }
  return lines.join(" \\\n  ");
}

/**
 * The L402 round trip as commented shell steps: ask (402 with invoice and macaroon), pay, retry
 * with `Authorization: L402 <macaroon>:<preimage>` (spec 1.2); session models then reuse
 * X-Session-Token (spec 2.3). A free endpoint is one plain call.
 */
export function callExample(gatewayDomain: string, endpoint: CallableEndpoint): string {
  const url = endpointUrl(gatewayDomain, endpoint);
  if (endpoint.pricingModel === null) {
    return ["# Free endpoint: no payment needed", curlCommand(url, endpoint)].join("\n");
  }
  const steps = [
    "# 1. Call it: the gateway answers 402 Payment Required with a Lightning",
    "#    invoice and a macaroon in the WWW-Authenticate header",
    curlCommand(url, endpoint, { showHeaders: true }),
    "",
    "# 2. Pay the invoice with any Lightning wallet; it shows the preimage",
    "",
    "# 3. Call again with the macaroon and the preimage as proof",
    curlCommand(url, endpoint, { headers: ["Authorization: L402 <macaroon>:<preimage>"] }),
  ];
  if (endpoint.pricingModel !== "per_request") {
    steps.push(
      "",
      "# 4. The response carries X-Session-Token: send it on later calls",
      "#    instead of paying again, until the session runs out",
      curlCommand(url, endpoint, { headers: ["X-Session-Token: <token>"] }),
    );
  }
  return steps.join("\n");
}

/**
 * The endpoint that best shows how to call an API: a paid one (that is the flow worth showing),
 * per_request first (the simplest), with a concrete path (no {param} to fill in), not a stream
 * (curl shows a plain answer best) and an example.
 * Null for an API without endpoints.
 */
export function pickCallExampleEndpoint<E extends CallableEndpoint>(endpoints: E[]): E | null {
  const score = (e: E) =>
    (e.pricingModel !== null ? 16 : 0) +
    (e.pricingModel === "per_request" ? 8 : 0) +
    (e.path.includes("{") ? 0 : 4) +
    (e.streaming ? 0 : 2) +
    (Object.keys(e.exampleRequest).length > 0 ? 1 : 0);
  let best: E | null = null;
  for (const endpoint of endpoints) if (best === null || score(endpoint) > score(best)) best = endpoint;
  return best;
}
