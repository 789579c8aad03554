import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { originTarget } from "./origin-call.ts";
import { normalizeRequestPath } from "./resolve-tenant.ts";

/** What originTarget did before it had a fast path: the URL parser on every call. */
function parsed(originUrl: string, path: string, search: string) {
  const base = new URL(originUrl);
  const url = new URL(`${base.pathname.replace(/\/+$/, "")}${path}${search}`, base);
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

const origins = ["http://127.0.0.1:8080", "https://api.example.com/", "https://api.example.com/base/", "http://[::1]:3000/v2//", "https://user:pw@h.example/p%20q"];

describe("originTarget", () => {
  it.each([
    ["/v1/entity/bc1q", ""],
    ["/v1/entity/bc1q", "?a=1&b=%20x"],
    ["/v1/caf%C3%A9", "?q=a+b"],
    ["/v1/café", "?q=ü"],
    ["/v1/a b", "?q=a b"],
    ["/v1/x", "?q=<script>"],
    ["/v1/x", "?q=a#frag"],
    ["/v1/{id}", "?q=\"x\""],
    ["/", ""],
    ["/v1/x/", "?"],
  ])("joins %s%s exactly as the URL parser does", (path, search) => {
    for (const origin of origins) expect(originTarget(origin, path, search)).toEqual(parsed(origin, path, search));
  });

  it("agrees with the URL parser on every normalized path and query", () => {
    const char = fc.constantFrom(..."aZ09-._~!$&'()*+,;=:@/%?# \"<>`{}|^[]\\é€\t".split(""));
    const text = fc.array(char, { maxLength: 24 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(fc.constantFrom(...origins), text, text, (origin, rawPath, query) => {
        const normalized = normalizeRequestPath(`/${rawPath.replace(/[?#]/g, "")}`);
        if ("problem" in normalized) return;
        const search = query ? `?${query}` : "";
        expect(originTarget(origin, normalized.path, search)).toEqual(parsed(origin, normalized.path, search));
      }),
      { numRuns: 3000 },
    );
  });

  it("throws on an origin URL that does not parse, as callOrigin expects", () => {
    expect(() => originTarget("not a url", "/v1", "")).toThrow();
  });
});
