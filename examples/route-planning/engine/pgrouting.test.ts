// pgRouting as the oracle (issue 20 item 6): the car graph loaded into PostgreSQL's pgRouting in a
// scratch database; its pgr_dijkstra distances for many node pairs and one pgr_dijkstraCostMatrix
// equal the engine's hierarchy. PostgreSQL only (skipped without DATABASE_URL); .ci/run installs
// the Debian package postgresql-15-pgrouting.
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchEndpoint } from "./contraction-hierarchy.ts";
import { edgeTail } from "./edge-costs.ts";
import { RouteEngine } from "./route-engine.ts";

const baseUrl = process.env.DATABASE_URL;

describe.skipIf(!baseUrl)("pgRouting agrees with the engine on the car graph", () => {
  let engine: RouteEngine;
  let client: pg.Client;
  let drop: () => Promise<void>;
  let nodes: number[];

  beforeAll(async () => {
    engine = new RouteEngine({ dataDir: path.join(os.tmpdir(), "l402-hub-route-engine-test"), prepare: [{ profile: "car" }] });
    const name = `routes_oracle_${randomBytes(5).toString("hex")}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    drop = async () => {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
    const url = new URL(baseUrl!);
    url.pathname = `/${name}`;
    client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query("CREATE EXTENSION pgrouting CASCADE");
    } catch (error) {
      throw new Error(`pgRouting is missing on this PostgreSQL (apt-get install -y postgresql-15-pgrouting; .ci/run does): ${(error as Error).message}`, {
        cause: error,
      });
    }
    // One row per segment: cost along it, reverse_cost against it, -1 where the car may not go (pgRouting's convention).
    const { network } = engine;
    const { costs } = engine.hierarchy("car", "time");
    const ids: number[] = [],
      sources: number[] = [],
      targets: number[] = [],
      cost: number[] = [],
      reverse: number[] = [];
    for (let s = 0; s < network.segmentCount; s++) {
      const f = costs.weight[2 * s],
        b = costs.weight[2 * s + 1];
      if (f === Infinity && b === Infinity) continue;
      ids.push(s + 1);
      sources.push(network.segmentFrom[s]);
      targets.push(network.segmentTo[s]);
      cost.push(f === Infinity ? -1 : f);
      reverse.push(b === Infinity ? -1 : b);
    }
    await client.query(
      "CREATE TABLE car_edges (id bigint PRIMARY KEY, source bigint NOT NULL, target bigint NOT NULL, cost float8 NOT NULL, reverse_cost float8 NOT NULL)",
    );
    await client.query("INSERT INTO car_edges SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::float8[], $5::float8[])", [
      ids,
      sources,
      targets,
      cost,
      reverse,
    ]);
    const routable = new Set<number>();
    for (let e = 0; e < costs.weight.length; e++) if (costs.weight[e] < Infinity) routable.add(edgeTail(network, e));
    nodes = [...routable].sort((a, b) => a - b);
  }, 180_000);

  afterAll(async () => {
    await client?.end();
    await drop?.();
  });

  const endpoint = (node: number): SearchEndpoint[] => [{ node, weight: 0, distance: 0, duration: 0 }];
  const EDGES_SQL = "SELECT id, source, target, cost, reverse_cost FROM car_edges";

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
