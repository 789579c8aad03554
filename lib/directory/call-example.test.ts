// The shell commands API pages show must work when pasted.
import { describe, expect, it } from "vitest";
import { callExample, curlCommand, endpointUrl, pickCallExampleEndpoint, shellQuote } from "./call-example.ts";

const gateway = "http://localhost:8402/gw/demo";
const fortune = { method: "GET", path: "/v1/fortune", pricingModel: "per_request" as const, exampleRequest: {} };

describe("endpointUrl", () => {
  it("joins the gateway address and the path", () => {
    expect(endpointUrl(`${gateway}/`, fortune)).toBe(`${gateway}/v1/fortune`);
  });

  it("adds the example query, encoded, repeating array values", () => {
    const endpoint = { ...fortune, exampleRequest: { query: { from: "57.7,11.9", lang: "sv & en", tag: ["a", "b"], skip: null } } };
    expect(endpointUrl(gateway, endpoint)).toBe(`${gateway}/v1/fortune?from=57.7,11.9&lang=sv+%26+en&tag=a&tag=b`);
  });

  it("ignores a query that is not an object", () => {
    expect(endpointUrl(gateway, { ...fortune, exampleRequest: { query: "x=1" } })).toBe(`${gateway}/v1/fortune`);
  });
});

describe("shellQuote", () => {
  it("quotes single quotes the POSIX way", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});

describe("curlCommand", () => {
  it("sends a POST example body as JSON", () => {
    const endpoint = { method: "post", path: "/v1/route", pricingModel: null, exampleRequest: { body: { note: "don't" } } };
    expect(curlCommand(`${gateway}/v1/route`, endpoint)).toBe(
      [`curl -X POST '${gateway}/v1/route'`, `-H 'Content-Type: application/json'`, `-d '{"note":"don'\\''t"}'`].join(" \\\n  "),
    );
  });
});

describe("callExample", () => {
  it("is one plain call for a free endpoint", () => {
    expect(callExample(gateway, { ...fortune, path: "/v1/ping", pricingModel: null })).toBe(`# Free endpoint: no payment needed\ncurl '${gateway}/v1/ping'`);
  });

  it("walks through 402, payment and the L402 retry for a per-request endpoint", () => {
    const text = callExample(gateway, fortune);
    expect(text).toContain(`curl -i '${gateway}/v1/fortune'`);
    expect(text).toContain(`curl '${gateway}/v1/fortune' \\\n  -H 'Authorization: L402 <macaroon>:<preimage>'`);
    expect(text).not.toContain("X-Session-Token");
  });

  it("adds the session token step for session models", () => {
    expect(callExample(gateway, { ...fortune, pricingModel: "metered" })).toContain(`-H 'X-Session-Token: <token>'`);
  });
});

describe("pickCallExampleEndpoint", () => {
  const ep = (path: string, pricingModel: "per_request" | "token_bucket" | null, exampleRequest = {}) => ({
    method: "GET",
    path,
    pricingModel,
    exampleRequest,
  });

  it("prefers a paid, per-request, concrete endpoint with an example", () => {
    const endpoints = [
      ep("/v1/health", null),
      ep("/v1/isochrone/{minutes}", "token_bucket"),
      ep("/v1/plain", "per_request"),
      ep("/v1/route", "per_request", { query: { from: "a" } }),
    ];
    expect(pickCallExampleEndpoint(endpoints)?.path).toBe("/v1/route");
  });

  it("takes a session model over a free endpoint, the first on ties, and null for none", () => {
    expect(pickCallExampleEndpoint([ep("/free", null), ep("/bucket", "token_bucket")])?.path).toBe("/bucket");
    expect(pickCallExampleEndpoint([ep("/a", null), ep("/b", null)])?.path).toBe("/a");
    expect(pickCallExampleEndpoint([])).toBeNull();
  });
});
