// Examples must stay valid JSON and read well.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prettyJson } from "./pretty-json.ts";

describe("prettyJson", () => {
  it("expands the top level and keeps short nested values on one line", () => {
    expect(
      prettyJson({
        durations: [
          [0, 300],
          [310, 0],
        ],
        ok: true,
      }),
    ).toBe(["{", '  "durations": [[0, 300], [310, 0]],', '  "ok": true', "}"].join("\n"));
  });

  it("breaks nested values that do not fit", () => {
    const steps = Array.from({ length: 3 }, (_, i) => ({ instruction: `Head south on street number ${i}`, distance: 320 }));
    expect(prettyJson({ steps })).toBe(
      [
        "{",
        '  "steps": [',
        '    { "instruction": "Head south on street number 0", "distance": 320 },',
        '    { "instruction": "Head south on street number 1", "distance": 320 },',
        '    { "instruction": "Head south on street number 2", "distance": 320 }',
        "  ]",
        "}",
      ].join("\n"),
    );
  });

  it("prints scalars, empty containers and strings plainly", () => {
    expect(prettyJson(42)).toBe("42");
    expect(prettyJson(null)).toBe("null");
    expect(prettyJson({})).toBe("{}");
    expect(prettyJson([])).toBe("[]");
    expect(prettyJson("plain text body")).toBe("plain text body");
  });

  it("always produces JSON equal to its input", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        if (typeof value === "string") return;
        expect(JSON.parse(prettyJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
