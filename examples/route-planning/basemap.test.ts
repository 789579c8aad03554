// The basemap behind the API page's map: ways of a box, coarser for wider boxes, and hostile boxes
// refused with a 400 naming `bbox` (never a 500).
import { expect, it } from "vitest";
import { basemap, basemapQuerySchema } from "./basemap.ts";
import { OutsideCoverageError } from "./engine/index.ts";
import { testEngine } from "./operations/test-engine.ts";

it("draws every way of a small box, main roads only for the whole city", () => {
  const small = basemap(testEngine(), basemapQuerySchema.parse({ bbox: "11.96,57.70,11.975,57.71" }));
  expect(small.detail).toBe("all_ways");
  expect(small.features.length).toBeGreaterThan(50);
  expect(small.attribution).toBe("© OpenStreetMap contributors");
  const city = basemap(testEngine(), basemapQuerySchema.parse({ bbox: testEngine().bbox.join(",") }));
  expect(city.detail).toBe("main_roads");
  expect(new Set(city.features.map((f) => f.properties.highway)).has("residential")).toBe(false);
});

it("refuses boxes that are not boxes on Earth, and boxes outside the covered area", () => {
  for (const bbox of ["11.9,57.6,1" + "9".repeat(400) + ",57.8", "11.9,57.6,181,57.8", "11.9,95,12,96", "12,57.6,11.9,57.8", "a,b,c,d", "11.9,57.6,12"]) {
    expect(basemapQuerySchema.safeParse({ bbox }).success, bbox).toBe(false);
  }
  expect(() => basemap(testEngine(), basemapQuerySchema.parse({ bbox: "18.0,59.3,18.1,59.4" }))).toThrow(OutsideCoverageError);
});
