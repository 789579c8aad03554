// What try-it shows of a response.
import { describe, expect, it } from "vitest";
import { explainStatus, formatElapsed, formatResponseBody, headersThatMatter, MAX_SHOWN_BODY_CHARS } from "./response-summary.ts";

describe("response summary", () => {
  it("picks the headers that matter in display order", () => {
    const headers = new Headers({ "x-request-id": "id", "x-hub-payment": "charged", "x-session-balance": "3", server: "x" });
    expect(headersThatMatter(headers)).toEqual([
      ["X-Hub-Payment", "charged"],
      ["X-Session-Balance", "3"],
      ["X-Request-Id", "id"],
    ]);
  });

  it("pretty-prints JSON, keeps other text, cuts very long bodies", () => {
    expect(formatResponseBody('{"a":[1,2]}')).toEqual({ text: '{\n  "a": [\n    1,\n    2\n  ]\n}', json: true, truncated: false });
    expect(formatResponseBody("plain")).toEqual({ text: "plain", json: false, truncated: false });
    const long = formatResponseBody("x".repeat(MAX_SHOWN_BODY_CHARS + 5));
    expect([long.text.length, long.truncated]).toEqual([MAX_SHOWN_BODY_CHARS, true]);
  });

  it("formats times and explains failures", () => {
    expect(formatElapsed(84.4)).toBe("84 ms");
    expect(formatElapsed(1320)).toBe("1.3 s");
    expect(explainStatus(200, new Headers())).toBeNull();
    expect(explainStatus(304, new Headers())).toContain("Not Modified");
    expect(explainStatus(502, new Headers({ "x-hub-payment-code": "upstream_failed_retryable" }))).toContain("reverted");
    expect(explainStatus(429, new Headers({ "retry-after": "7" }))).toContain("in 7 s");
  });
});
