// The car graph (time metric) in pgRouting, for the oracle test and the benchmark that compares
// matrices with pgr_dijkstraCostMatrix: a scratch database with one row per segment, `cost` along it
// and `reverse_cost` against it, -1 where the car may not go (pgRouting's convention). Node ids are
// the engine's node indexes. Needs PostgreSQL with the pgrouting extension (postgresql-15-pgrouting).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { edgeTail } from "./edge-costs.ts";
import type { RouteEngine } from "./route-engine.ts";

export const EDGES_SQL = "SELECT id, source, target, cost, reverse_cost FROM car_edges";

export interface PgRoutingGraph {
  client: pg.Client;
  /** Nodes the car can leave, ascending. */
  nodes: number[];
  drop(): Promise<void>;
}

export async function loadCarGraphIntoPgRouting(engine: RouteEngine, databaseUrl: string): Promise<PgRoutingGraph> {
  const name = `routes_oracle_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  const drop = async () => {
    await client.end().catch(() => {});
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  };
  try {
    await client.connect();
    try {
      await client.query("CREATE EXTENSION pgrouting CASCADE");
    } catch (error) {
      throw new Error(`pgRouting is missing on this PostgreSQL (apt-get install -y postgresql-15-pgrouting; .ci/run does): ${(error as Error).message}`, {
        cause: error,
      });
    }
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
    return { client, nodes: [...routable].sort((a, b) => a - b), drop };
  } catch (error) {
    await drop();
    throw error;
  }
}
