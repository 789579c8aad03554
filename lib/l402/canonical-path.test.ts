import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalQuery, canonicalRequestPath, isWithinPrefix, normalizePathPrefix } from "./canonical-path.ts";

// The vectors of ../shared/INTEROP.md "Delegation caveats" (the deployed SDK pins the same ones in its
// caveat_vectors.json): a prefix a client attenuates with must be judged as the client meant it.
describe("path_prefix normalization (../shared/INTEROP.md vectors)", () => {
  it.each([
    ["/v1/search", "/v1/search"],
    ["/v1/search/", "/v1/search"],
    ["/", "/"],
    ["/v1/%73earch", "/v1/search"],
    ["/v1/./search", "/v1/search"],
    ["/v1/caf%c3%a9", "/v1/caf%C3%A9"],
    ["/v1/café", "/v1/caf%C3%A9"],
  ])("%s → %s", (input, output) => {
    expect(normalizePathPrefix(input)).toEqual({ path: output });
  });

  it.each([
    "",
    "v1/search",
    "/v1/../admin",
    "/v1/%2e%2e/admin",
    "/v1/.%2E/admin",
    "/v1//search",
    "//evil.example/x",
    "/a://b",
    "/v1\\admin",
    "/v1/a%2fb",
    "/v1/%zz",
  ])("refuses %j", (input) => {
    expect(normalizePathPrefix(input)).toHaveProperty("problem");
  });
});

describe("canonical request path (../shared/INTEROP.md vectors)", () => {
  it.each([
    ["/v1//search", "/v1/search"],
    ["/v1/search/", "/v1/search"],
    ["/v1/./search", "/v1/search"],
    ["/v1/%73earch", "/v1/search"],
  ])("%s → %s", (input, output) => {
    expect(canonicalRequestPath(input)).toEqual({ path: output });
  });

  it("decodes a double-encoded %252e once: the segment is the literal text %2e, not a dot segment", () => {
    const canonical = canonicalRequestPath("/v1/%252e%252e/x");
    expect(canonical).toEqual({ path: "/v1/%252e%252e/x" });
    expect(decodeURIComponent((canonical as { path: string }).path)).toBe("/v1/%2e%2e/x");
  });

  it.each(["/v1/../x", "/v1\\x", "/v1/%2E%2e/x", "/v1/a;b", "/v1/a#b", "v1/x", "/v1/%c3"])("refuses %j", (input) => {
    expect(canonicalRequestPath(input)).toHaveProperty("problem");
  });

  it("is idempotent and never leaves an unreserved character encoded or a lower-case escape", () => {
    const char = fc.constantFrom(..."aZ09-._~!$&'()*+,=:@/%\"<>`{}|^[]é€ ".split(""), "%2e", "%2E", "%41", "%7e", "%c3%a9", "%25", "%3b", "/.", "/./", "//");
    fc.assert(
      fc.property(fc.array(char, { maxLength: 20 }), (chars) => {
        const once = canonicalRequestPath(`/${chars.join("")}`);
        if ("problem" in once) return;
        expect(canonicalRequestPath(once.path)).toEqual(once);
        expect(once.path).not.toMatch(/%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2D|2E|5F|7E)/);
        expect(once.path).not.toMatch(/%[0-9A-F]?[a-f]/);
        expect(once.path).not.toMatch(/\/\/|\/\.\/|\/\.$|.\/$/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("prefix match (../shared/INTEROP.md vectors)", () => {
  it.each([
    ["/v1/search", "/v1/search", true],
    ["/v1/search", "/v1/search/deep", true],
    ["/v1/search", "/v1/searchx", false],
    ["/v1/search", "/v1", false],
    ["/", "/anything/at/all", true],
    ["/v1/Search", "/v1/search", false],
  ])("prefix %s, path %s → %s", (prefix, path, within) => {
    expect(isWithinPrefix(path, prefix)).toBe(within);
  });
});

describe("canonicalQuery", () => {
  it.each([
    ["", ""],
    ["?", ""],
    ["?a=1&b=%20x", "?a=1&b=%20x"],
    ["?q=a'b", "?q=a%27b"],
    ['?q="<x>"', "?q=%22%3Cx%3E%22"],
    ["?q=%7e&r=ü", "?q=%7e&r=%C3%BC"],
  ])("%j → %j", (input, output) => {
    expect(canonicalQuery(input)).toEqual({ search: output });
  });

  it("refuses a fragment", () => {
    expect(canonicalQuery("?a=1#x")).toHaveProperty("problem");
  });
});
