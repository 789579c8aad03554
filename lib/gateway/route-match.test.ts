import { describe, expect, it } from "vitest";
import { compileRoute, matchRoute, sortRoutes } from "./route-match.ts";
import { normalizeRequestPath, resolveTenant } from "./resolve-tenant.ts";

const routes = sortRoutes(
  [
    { method: "GET", path: "/v1/onchain/entity/{address}", value: "entity" },
    { method: "GET", path: "/v1/onchain/entity/{address}/balance-history", value: "history" },
    { method: "GET", path: "/v1/onchain/entity/top", value: "top" },
    { method: "POST", path: "/origin/v1/routes/optimize", value: "optimize" },
  ].map(compileRoute),
);

describe("matchRoute", () => {
  it.each([
    ["GET", "/v1/onchain/entity/bc1qxyz", "entity", { address: "bc1qxyz" }],
    ["GET", "/v1/onchain/entity/bc1qxyz/balance-history", "history", { address: "bc1qxyz" }],
    ["GET", "/v1/onchain/entity/top", "top", {}],
    ["HEAD", "/v1/onchain/entity/top", "top", {}],
    ["POST", "/origin/v1/routes/optimize/", "optimize", {}],
  ])("%s %s → %s", (method, path, value, params) => {
    expect(matchRoute(routes, method, path)).toEqual({ kind: "match", value, params });
  });

  it("reports the allowed methods on a method mismatch", () => {
    expect(matchRoute(routes, "GET", "/origin/v1/routes/optimize")).toEqual({ kind: "method_not_allowed", allowed: ["POST"] });
  });

  it("does not let a parameter span segments or match an empty segment", () => {
    expect(matchRoute(routes, "GET", "/v1/onchain/entity/a/b").kind).toBe("not_found");
    expect(matchRoute(routes, "GET", "/v1/onchain/entity/").kind).toBe("not_found");
  });

  it("matches literals case-sensitively and never lets another case reach a less specific template", () => {
    expect(matchRoute(routes, "GET", "/v1/onchain/entity/TOP")).toEqual({ kind: "case_mismatch", template: "/v1/onchain/entity/top" });
    expect(matchRoute(routes, "GET", "/V1/onchain/entity/bc1q")).toEqual({ kind: "case_mismatch", template: "/v1/onchain/entity/{address}" });
    expect(matchRoute(routes, "GET", "/v1/onchain/entity/BC1Q")).toEqual({ kind: "match", value: "entity", params: { address: "BC1Q" } });
    expect(matchRoute(routes, "GET", "/v1/other")).toEqual({ kind: "not_found" });
  });

  it("still chooses between methods by method when a literal of another method matches exactly", () => {
    const r = sortRoutes([
      compileRoute({ method: "POST", path: "/v1/e/top", value: "post-top" }),
      compileRoute({ method: "GET", path: "/v1/e/{id}", value: "get-id" }),
    ]);
    expect(matchRoute(r, "GET", "/v1/e/top")).toEqual({ kind: "match", value: "get-id", params: { id: "top" } });
    expect(matchRoute(r, "GET", "/v1/e/TOP")).toEqual({ kind: "case_mismatch", template: "/v1/e/top" });
  });

  it("treats regex characters in templates literally", () => {
    const r = [compileRoute({ method: "GET", path: "/v1/a.b", value: 1 })];
    expect(matchRoute(r, "GET", "/v1/axb").kind).toBe("not_found");
    expect(matchRoute(r, "GET", "/v1/a.b").kind).toBe("match");
  });
});

describe("resolveTenant", () => {
  it("reads the path form", () => {
    expect(resolveTenant("localhost:8402", "/gw/demo/v1/ping", null)).toEqual({ slug: "demo", path: "/v1/ping", form: "path" });
    expect(resolveTenant("localhost:8402", "/gw/demo", null)).toEqual({ slug: "demo", path: "/", form: "path" });
  });

  it("reads the host form when a gateway domain is configured", () => {
    expect(resolveTenant("Market.gw.example.com:443", "/v1/verdict", ".gw.example.com")).toEqual({
      slug: "market",
      path: "/v1/verdict",
      form: "host",
    });
  });

  it("refuses hosts and slugs that are not tenants", () => {
    expect(resolveTenant("gw.example.com", "/v1/x", ".gw.example.com")).toBeNull();
    expect(resolveTenant("a.b.gw.example.com", "/v1/x", ".gw.example.com")).toBeNull();
    expect(resolveTenant("localhost", "/gw/../etc", null)).toBeNull();
    expect(resolveTenant("localhost", "/v1/x", null)).toBeNull();
  });
});

describe("normalizeRequestPath", () => {
  it.each(["/v1/../admin", "/v1/%2e%2e/admin", "/v1/a%2fb", "/v1/a%5cb", "/v1/%00", "/v1/%E0%A4%A", "/v1/a;b", "/v1/a#b"])("refuses %s", (p) => {
    expect(normalizeRequestPath(p)).toHaveProperty("problem", "invalid_path");
  });

  it("keeps unicode, drops . segments and collapses repeated slashes", () => {
    expect(normalizeRequestPath("/v1/caf%c3%a9//x")).toEqual({ path: "/v1/caf%C3%A9/x" });
    expect(normalizeRequestPath("/v1/./x/")).toEqual({ path: "/v1/x" });
  });
});
