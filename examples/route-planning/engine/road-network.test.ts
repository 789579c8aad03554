// The prepared-graph cache under DATA_DIR: read back when source and GRAPH_VERSION match, rebuilt
// (and the stale files removed) when either changes; a cached hierarchy answers like a fresh one.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GRAPH_VERSION, buildRoadNetwork, defaultSourcePath, haversineMeters, loadRoadNetwork } from "./road-network.ts";
import { RouteEngine } from "./route-engine.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "route-network-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A slice of the real export (its first 1,500 ways), small enough to build in milliseconds. */
function writeSlice(name: string, count: number): string {
  const full = JSON.parse(readFileSync(defaultSourcePath(), "utf8"));
  const file = path.join(scratch, name);
  writeFileSync(file, JSON.stringify({ ...full, features: full.features.slice(0, count) }));
  return file;
}

describe("road network", () => {
  it("splits ways at shared vertices only: every segment joins two junctions, lengths are haversine sums", () => {
    const source = {
      features: [
        {
          properties: { "@id": "way/1", highway: "residential" },
          geometry: {
            type: "LineString",
            coordinates: [
              [11.9, 57.7],
              [11.901, 57.7],
              [11.902, 57.7],
            ],
          },
        },
        {
          properties: { "@id": "way/2", highway: "residential" },
          geometry: {
            type: "LineString",
            coordinates: [
              [11.901, 57.7],
              [11.901, 57.701],
            ],
          },
        },
        {
          properties: { "@id": "way/3", highway: "residential", area: "yes" },
          geometry: {
            type: "LineString",
            coordinates: [
              [11.9, 57.7],
              [11.9, 57.71],
            ],
          },
        },
        {
          properties: { "@id": "way/4", highway: "construction" },
          geometry: {
            type: "LineString",
            coordinates: [
              [11.9, 57.7],
              [11.9, 57.72],
            ],
          },
        },
        {
          properties: { "@id": "area/5", highway: "pedestrian" },
          geometry: {
            type: "Polygon",
            coordinates: [
              [
                [11.9, 57.7],
                [11.91, 57.7],
                [11.9, 57.71],
                [11.9, 57.7],
              ],
            ],
          },
        },
      ],
    };
    const n = buildRoadNetwork(source);
    expect(n.wayIds).toEqual(["way/1", "way/2"]);
    expect(n.nodeCount).toBe(4);
    expect(n.segmentCount).toBe(3);
    expect(n.segmentLength[0]).toBeCloseTo(haversineMeters(11.9, 57.7, 11.901, 57.7), 9);
    expect(n.segmentLength[0]).toBeCloseTo(59.6, 0);
    expect(n.bbox).toEqual([11.9, 57.7, 11.902, 57.701]);
  });

  it("is cached under DATA_DIR, read back while source and GRAPH_VERSION match, rebuilt when either changes", () => {
    const dataDir = path.join(scratch, "data");
    const sourcePath = writeSlice("slice.json", 1500);
    const first = loadRoadNetwork({ dataDir, sourcePath });
    expect(first.from).toBe("built");
    const again = loadRoadNetwork({ dataDir, sourcePath });
    expect(again.from).toBe("cache");
    expect(again.cacheKey).toBe(first.cacheKey);
    expect(again.network.segmentCount).toBe(first.network.segmentCount);
    expect(Array.from(again.network.segmentLength)).toEqual(Array.from(first.network.segmentLength));
    expect(Array.from(again.network.geometry)).toEqual(Array.from(first.network.geometry));
    expect(again.network.wayTags).toEqual(first.network.wayTags);

    const bumped = loadRoadNetwork({ dataDir, sourcePath, graphVersion: GRAPH_VERSION + 1 });
    expect(bumped.from).toBe("built");
    expect(bumped.cacheKey).not.toBe(first.cacheKey);
    expect(readdirSync(path.join(dataDir, "route-planning"))).toEqual([path.basename(bumped.cachePath)]);

    const changed = writeSlice("slice.json", 1400);
    const rebuilt = loadRoadNetwork({ dataDir, sourcePath: changed, graphVersion: GRAPH_VERSION + 1 });
    expect(rebuilt.from).toBe("built");
    expect(rebuilt.network.wayIds.length).toBeLessThan(first.network.wayIds.length);
  });

  it("a hierarchy read from the cache answers exactly as the one built", () => {
    const dataDir = path.join(scratch, "engine");
    const sourcePath = writeSlice("engine.json", 4000);
    const built = new RouteEngine({ dataDir, sourcePath, prepare: [{ profile: "car" }] });
    expect(built.stats.networkFrom).toBe("built");
    expect(built.stats.hierarchies["car-time-free"].from).toBe("built");
    const cached = new RouteEngine({ dataDir, sourcePath, prepare: [{ profile: "car" }] });
    expect(cached.stats.networkFrom).toBe("cache");
    expect(cached.stats.hierarchies["car-time-free"].from).toBe("cache");
    // Every 50th segment a car may use, at its first vertex.
    const costs = built.hierarchy("car", "time").costs;
    const net = built.network;
    const usable = [...net.segmentWay.keys()].filter((x) => costs.weight[2 * x] < Infinity || costs.weight[2 * x + 1] < Infinity);
    const snappable = usable
      .filter((_, i) => i % 50 === 0)
      .slice(0, 20)
      .map((x): [number, number] => [net.geometry[2 * net.geometryStart[x]], net.geometry[2 * net.geometryStart[x] + 1]]);
    expect(snappable.length).toBe(20);
    const a = built.matrix(snappable, snappable, { profile: "car" });
    const b = cached.matrix(snappable, snappable, { profile: "car" });
    expect(b.durations).toEqual(a.durations);
    expect(a.durations.flat().filter((d) => d !== null && d > 0).length).toBeGreaterThan(20);
    // The file is named by the costs it was contracted from: other speeds or access rules never reuse it.
    const w = costs.weight;
    const costHash = createHash("sha256")
      .update(new Uint8Array(w.buffer, w.byteOffset, w.byteLength))
      .digest("hex")
      .slice(0, 16);
    expect(readdirSync(path.join(dataDir, "route-planning")).filter((f) => f.startsWith("ch-"))).toEqual([
      expect.stringMatching(new RegExp(`-car-time-free-${costHash}\\.bin$`)),
    ]);
  });

  it("refuses a profile, metric or traffic band it does not know before it names a cache file", () => {
    const dataDir = path.join(scratch, "engine");
    const engine = new RouteEngine({ dataDir, sourcePath: writeSlice("engine.json", 4000) });
    expect(() => engine.hierarchy("../../escape" as never, "time")).toThrow(/profile must be one of car, van, truck, bike/);
    expect(() => engine.hierarchy("car", "../x" as never)).toThrow(/metric must be one of time, distance, fuel/);
    expect(() => engine.hierarchy("car", "time", "/tmp/x" as never)).toThrow(/unknown traffic band/);
    expect(readdirSync(scratch).some((f) => f.includes("escape"))).toBe(false);
  });
});
