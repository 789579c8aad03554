// Measures the route-planning engine in-process (no HTTP): graph build and hierarchy preparation
// from a cold DATA_DIR, start from the warm cache, memory, route query p50/p95 across the city,
// the restricted search, a 100×100 matrix, fuel-optimal routes and 30-minute reachable areas (the
// engine's search alone and the whole /reachable operation with its hull). `npm run bench:route-engine`
// (docs/route-planning.md).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PROFILES, type Profile, RouteEngine } from "@/examples/route-planning/engine/index.ts";
import { reachableOperation } from "@/examples/route-planning/operations/reachable.ts";
import { ms, percentile, pointsNearRoads as points } from "@/bench/route-points.ts";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "route-bench-"));
try {
  const heapBefore = process.memoryUsage().heapUsed;
  const cold = new RouteEngine({ dataDir, prepare: PROFILES.map((profile) => ({ profile })) });
  const memory = process.memoryUsage();
  console.log(`network: ${cold.network.nodeCount} nodes, ${cold.network.segmentCount} segments, ${cold.network.wayIds.length} ways`);
  console.log(`cold start: network built in ${ms(cold.stats.networkMillis)}, snap index + adjacency ${ms(cold.stats.snapIndexMillis)}`);
  for (const [key, h] of Object.entries(cold.stats.hierarchies)) {
    const ch = cold.hierarchy(key.split("-")[0] as Profile, "time").ch;
    console.log(`  hierarchy ${key}: ${h.from} in ${ms(h.millis)} (${ch.edgeFrom.length} edges incl. shortcuts)`);
  }
  console.log(
    `memory after preparing all four profiles: rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used +${((memory.heapUsed - heapBefore) / 2 ** 20).toFixed(0)} MiB, array buffers ${(memory.arrayBuffers / 2 ** 20).toFixed(0)} MiB`,
  );

  const warmStarted = performance.now();
  const engine = new RouteEngine({ dataDir, prepare: PROFILES.map((profile) => ({ profile })) });
  console.log(`warm start (everything from DATA_DIR's cache): ${ms(performance.now() - warmStarted)}`);

  for (const profile of PROFILES) {
    const pts = points(engine, profile, 2000, 1 + PROFILES.indexOf(profile));
    const times: number[] = [];
    let found = 0;
    for (let i = 0; i < pts.length; i += 2) {
      const t = performance.now();
      const r = engine.route([pts[i], pts[i + 1]], { profile, optimizeFor: "time" });
      times.push(performance.now() - t);
      if (r) found++;
    }
    times.sort((a, b) => a - b);
    console.log(
      `route ${profile} (1000 random pairs across the city, snap + CH + unpack + geometry): p50 ${ms(percentile(times, 0.5))}, p95 ${ms(percentile(times, 0.95))}, ${found} found`,
    );
  }

  const truckPts = points(engine, "truck", 200, 9);
  const restricted: number[] = [];
  for (let i = 0; i < truckPts.length; i += 2) {
    const t = performance.now();
    engine.route([truckPts[i], truckPts[i + 1]], { profile: "truck", vehicle: { height_meters: 4.2, hazardous_goods: true } });
    restricted.push(performance.now() - t);
  }
  restricted.sort((a, b) => a - b);
  console.log(`route truck with dimensions (restricted Dijkstra, 100 pairs): p50 ${ms(percentile(restricted, 0.5))}, p95 ${ms(percentile(restricted, 0.95))}`);

  for (const profile of ["car", "bike"] as const) {
    const pts = points(engine, profile, 100, 42);
    const runs: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      engine.matrix(pts, pts, { profile });
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    console.log(`matrix ${profile} 100×100 (snap + bucket many-to-many), 7 runs: median ${ms(runs[3])}, best ${ms(runs[0])}`);
  }

  const fuelStarted = performance.now();
  engine.hierarchy("car", "fuel");
  console.log(`hierarchy car-fuel-free: ${engine.stats.hierarchies["car-fuel-free"].from} in ${ms(performance.now() - fuelStarted)}`);
  const fuelPts = points(engine, "car", 1000, 11);
  const fuelTimes: number[] = [];
  for (let i = 0; i < fuelPts.length; i += 2) {
    const t = performance.now();
    engine.route([fuelPts[i], fuelPts[i + 1]], { profile: "car", optimizeFor: "fuel" });
    fuelTimes.push(performance.now() - t);
  }
  fuelTimes.sort((a, b) => a - b);
  console.log(`route car optimize_for fuel (500 pairs): p50 ${ms(percentile(fuelTimes, 0.5))}, p95 ${ms(percentile(fuelTimes, 0.95))}`);

  // 30-minute car areas from 20 centers across the city, 3 rounds: the engine's bounded search and
  // network collection, then the whole operation (search + concave hull + area).
  const centers = points(engine, "car", 20, 13);
  const search: number[] = [];
  const operation: number[] = [];
  const ctx = { engine, now: new Date("2026-11-26T09:00:00Z") };
  for (let round = 0; round < 3; round++)
    for (const [lng, lat] of centers) {
      let t = performance.now();
      engine.reachable([lng, lat], { profile: "car", metric: "time", limits: [1800] });
      search.push(performance.now() - t);
      t = performance.now();
      reachableOperation.run(reachableOperation.request.parse({ center: { lng, lat }, minutes: 30 }), ctx);
      operation.push(performance.now() - t);
    }
  search.sort((a, b) => a - b);
  operation.sort((a, b) => a - b);
  console.log(
    `reachable car 30 min, engine (bounded Dijkstra + network points), 60 runs: p50 ${ms(percentile(search, 0.5))}, p95 ${ms(percentile(search, 0.95))}`,
  );
  console.log(
    `reachable car 30 min, whole /reachable (+ concave hull, area), 60 runs: p50 ${ms(percentile(operation, 0.5))}, p95 ${ms(percentile(operation, 0.95))}`,
  );
  const banded: number[] = [];
  for (const [lng, lat] of centers.slice(0, 10)) {
    const t = performance.now();
    reachableOperation.run(reachableOperation.request.parse({ center: { lng, lat }, minutes: 30, buckets: 3 }), ctx);
    banded.push(performance.now() - t);
  }
  banded.sort((a, b) => a - b);
  console.log(`reachable car 30 min in 3 bands (3 hulls, 2 unions), 10 runs: p50 ${ms(percentile(banded, 0.5))}, p95 ${ms(percentile(banded, 0.95))}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
