// The try-it form from an endpoint's documentation, and the request its values make.
import { describe, expect, it } from "vitest";
import { buildTryItForm, buildTryItRequest, pathParameterNames, type TryItEndpoint } from "./build-request.ts";

const lucky: TryItEndpoint = {
  method: "GET",
  path: "/v1/lucky/{name}",
  parameters: [
    { name: "name", in: "path", required: true, type: "string", description: "Whose numbers" },
    { name: "count", in: "query", required: false, type: "integer", description: "How many" },
    { name: "X-Locale", in: "header", required: false, type: "string", description: "" },
    { name: "Authorization", in: "header", required: false, type: "string", description: "" },
  ],
  exampleRequest: { path: { name: "satoshi" }, query: { count: 3, extra: "yes" } },
};

describe("buildTryItForm", () => {
  it("has a field per path, query and header parameter, prefilled from the example; reserved headers are left out", () => {
    const form = buildTryItForm(lucky);
    expect(form.fields.map((f) => f.key)).toEqual(["path:name", "query:count", "header:X-Locale", "query:extra"]);
    expect(form.fields[0]).toMatchObject({ required: true, description: "Whose numbers" });
    expect(form.values).toEqual({ "path:name": "satoshi", "query:count": "3", "header:X-Locale": "", "query:extra": "yes" });
    expect(form.body).toBeNull();
  });

  it("adds undocumented {params} of the path as required fields", () => {
    const form = buildTryItForm({ method: "GET", path: "/v1/{a}/x/{b}", parameters: [], exampleRequest: {} });
    expect(form.fields.map((f) => [f.key, f.required])).toEqual([
      ["path:a", true],
      ["path:b", true],
    ]);
    expect(pathParameterNames("/v1/{a}/x/{b}")).toEqual(["a", "b"]);
  });

  it("prefills a JSON body from the example, or a skeleton of the documented body parameters", () => {
    const withExample = buildTryItForm({ method: "POST", path: "/v1/route", parameters: [], exampleRequest: { body: { from: "A", to: "B" } } });
    expect(JSON.parse(withExample.body!)).toEqual({ from: "A", to: "B" });
    const skeleton = buildTryItForm({
      method: "POST",
      path: "/v1/route",
      parameters: [{ name: "from", in: "body", required: true, type: "string", description: "" }],
      exampleRequest: {},
    });
    expect(JSON.parse(skeleton.body!)).toEqual({ from: "" });
    expect(buildTryItForm({ method: "PUT", path: "/x", parameters: [], exampleRequest: {} }).body).toBe("");
  });
});

describe("buildTryItRequest", () => {
  it("fills the path (encoded within its segment), the query and headers, leaving empty optional fields out", () => {
    const form = buildTryItForm(lucky);
    form.values["path:name"] = "../a b/c";
    form.values["query:extra"] = "";
    form.values["header:X-Locale"] = "de";
    const built = buildTryItRequest("http://localhost:8502/gw/demo/", lucky, form);
    expect(built).toEqual({
      ok: true,
      request: { method: "GET", url: "http://localhost:8502/gw/demo/v1/lucky/..%2Fa%20b%2Fc?count=3", headers: { "X-Locale": "de" }, body: null },
    });
  });

  it("names every problem: a missing required field, a non-ASCII header, a body that is not JSON", () => {
    const endpoint: TryItEndpoint = { ...lucky, method: "POST", exampleRequest: { body: { a: 1 } } };
    const form = buildTryItForm(endpoint);
    form.values["path:name"] = "  ";
    form.values["header:X-Locale"] = "dé\n";
    form.body = "{not json";
    const built = buildTryItRequest("http://gw", endpoint, form);
    expect(built).toEqual({
      ok: false,
      problems: [
        { key: "path:name", message: "name is required" },
        { key: "header:X-Locale", message: "X-Locale must be plain ASCII text" },
        { key: "body", message: "The body must be valid JSON" },
      ],
    });
  });

  it("sends a JSON body with its content type", () => {
    const endpoint: TryItEndpoint = { method: "post", path: "/v1/echo", parameters: [], exampleRequest: { body: { a: 1 } } };
    const built = buildTryItRequest("http://gw", endpoint, buildTryItForm(endpoint));
    expect(built.ok && built.request).toEqual({
      method: "POST",
      url: "http://gw/v1/echo",
      headers: { "content-type": "application/json" },
      body: '{\n  "a": 1\n}',
    });
  });
});
