// pgRouting as the oracle (issue 20 item 6): the car graph loaded into PostgreSQL's pgRouting in a
// scratch database; its pgr_dijkstra distances for many node pairs and one pgr_dijkstraCostMatrix
// equal the engine's hierarchy. PostgreSQL only (skipped without DATABASE_URL); .ci/run installs
// the Debian package postgresql-15-pgrouting.
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchEndpoint } from "./contraction-hierarchy.ts";
import { EDGES_SQL, loadCarGraphIntoPgRouting } from "./pgrouting-graph.ts";
import { RouteEngine } from "./route-engine.ts";

const baseUrl = process.env.DATABASE_URL;

describe.skipIf(!baseUrl)("pgRouting agrees with the engine on the car graph", () => {
  let engine: RouteEngine;
  let client: pg.Client;
  let drop: () => Promise<void>;
  let nodes: number[];

  beforeAll(async () => {
    engine = new RouteEngine({ dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test"), prepare: [{ profile: "car" }] });
    ({ client, drop, nodes } = await loadCarGraphIntoPgRouting(engine, baseUrl!));
  }, 180_000);

  afterAll(async () => {
    await drop?.();
  });

  const endpoint = (node: number): SearchEndpoint[] => [{ node, weight: 0, distance: 0, duration: 0 }];

  it("pgr_dijkstra: 100 random sources × 20 random targets, the same shortest durations (and the same unreachable pairs)", async () => {
    let seed = 20;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), nodes[seed % nodes.length]);
    const from = [...new Set(Array.from({ length: 100 }, next))];
    const to = [...new Set(Array.from({ length: 20 }, next))];
    const pairs = from.flatMap((a) => to.filter((b) => b !== a).map((b) => [a, b] as [number, number]));
    // One-to-many per source (one Dijkstra each); edge = -1 marks the row carrying a pair's total.
    const { rows } = await client.query(
      "SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstra($1, $2::bigint[], $3::bigint[], directed => true) WHERE edge = -1",
      [EDGES_SQL, from, to],
    );
    const oracle = new Map(rows.map((r) => [`${r.start_vid}:${r.end_vid}`, Number(r.agg_cost)]));
    const { query } = engine.hierarchy("car", "time");
    let compared = 0;
    for (const [a, b] of pairs) {
      const ours = query.shortestPath(endpoint(a), endpoint(b));
      const theirs = oracle.get(`${a}:${b}`);
      expect(ours === null, `${a}→${b}`).toBe(theirs === undefined);
      if (ours && theirs !== undefined) {
        expect(ours.weight, `${a}→${b}`).toBeCloseTo(theirs, 6);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1200);
  }, 180_000);

  it("pgr_dijkstraCostMatrix: a 100×100 matrix equals the bucket many-to-many", async () => {
    const picked = Array.from({ length: 100 }, (_, i) => nodes[Math.floor(((i * 7919) % 1000) * (nodes.length / 1000))]);
    const { rows } = await client.query("SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstraCostMatrix($1, $2::bigint[], directed => true)", [
      EDGES_SQL,
      picked,
    ]);
    const oracle = new Map(rows.map((r) => [`${r.start_vid}:${r.end_vid}`, Number(r.agg_cost)]));
    const { query } = engine.hierarchy("car", "time");
    const ours = query.manyToMany(picked.map(endpoint), picked.map(endpoint));
    let compared = 0;
    picked.forEach((a, i) =>
      picked.forEach((b, j) => {
        if (a === b) return expect(ours.weight[i][j]).toBe(0);
        const theirs = oracle.get(`${a}:${b}`);
        const mine = ours.weight[i][j];
        expect(mine === Infinity, `${a}→${b}`).toBe(theirs === undefined);
        if (theirs !== undefined) {
          expect(mine, `${a}→${b}`).toBeCloseTo(theirs, 6);
          compared++;
        }
      }),
    );
    expect(compared).toBeGreaterThan(6000);
  }, 180_000);
});
