// The pure parts of guidance: turn angles and modifiers, locale matching, spoken distances, SSML.
// The steps themselves are tested on real routes through the operations (operations/*.test.ts).
import { describe, expect, it } from "vitest";
import { INSTRUCTION_LANGUAGES, bearing, localeSchema, modifierFor, resolveLocale, spokenDistance, ssml, turnAngle } from "./index.ts";

describe("bearings and modifiers", () => {
  it("bearing is clockwise from north", () => {
    expect(bearing([11.97, 57.7], [11.97, 57.71])).toBe(0);
    expect(bearing([11.97, 57.7], [11.98, 57.7])).toBe(90);
    expect(bearing([11.97, 57.7], [11.97, 57.69])).toBe(180);
    expect(bearing([11.97, 57.7], [11.96, 57.7])).toBe(270);
  });

  it("turn angles are signed, right positive, across north", () => {
    expect(turnAngle(350, 10)).toBe(20);
    expect(turnAngle(10, 350)).toBe(-20);
    expect(turnAngle(90, 270)).toBe(180);
  });

  it.each([
    [0, "straight"],
    [15, "straight"],
    [-30, "slight left"],
    [30, "slight right"],
    [90, "right"],
    [-90, "left"],
    [150, "sharp right"],
    [-150, "sharp left"],
    [175, "uturn"],
    [-180, "uturn"],
  ] as const)("a turn of %i° is %s", (angle, modifier) => {
    expect(modifierFor(angle)).toBe(modifier);
  });
});

describe("locale", () => {
  it.each([
    ["sv", "sv"],
    ["sv-SE", "sv"],
    ["SV_se", "sv"],
    ["pt-BR", "pt-BR"],
    ["pt_pt", "pt-PT"],
    ["es-MX", "es"],
    ["nb-NO", "no"],
    ["zh-Hans-CN", "zh-Hans"],
    ["de-CH", "de"],
  ])("%s is written in %s", (tag, language) => {
    expect(resolveLocale(tag)).toEqual({ language, fallback: false });
  });

  it("falls back to English for well-formed tags without a translation", () => {
    for (const tag of ["xx", "zh-Hant", "is-IS", "el"]) expect(resolveLocale(tag)).toEqual({ language: "en", fallback: true });
    expect(INSTRUCTION_LANGUAGES).toContain("sv");
    expect(INSTRUCTION_LANGUAGES).toHaveLength(31);
  });

  it("refuses what is not a language tag", () => {
    for (const bad of ["../", "../../etc/passwd", "s", "x".repeat(50), "en-", "<b>", "en us", ""]) expect(localeSchema.safeParse(bad).success, bad).toBe(false);
    expect(localeSchema.parse(undefined)).toBe("en");
  });
});

describe("spoken text", () => {
  it("rounds distances as a voice says them, in the language", () => {
    expect(spokenDistance(47, "en")).toBe("50 meters");
    expect(spokenDistance(333, "en")).toBe("350 meters");
    expect(spokenDistance(1249, "en")).toBe("1.2 kilometers");
    expect(spokenDistance(333, "sv")).toBe("350 meter");
    expect(spokenDistance(1249, "sv")).toMatch(/^1,2 kilometer$/);
  });

  it("wraps announcements in Mapbox's SSML, escaping markup", () => {
    expect(ssml("Turn left onto A & B")).toBe(
      '<speak><amazon:effect name="drc"><prosody rate="1.08">Turn left onto A &amp; B</prosody></amazon:effect></speak>',
    );
  });
});
