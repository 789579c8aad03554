// `npm run bench:routes`: the route-planning API measured against issue 20's goals, side by side in
// one run. Part 1, the operations in-process (validation + engine + answer shaping, no HTTP): 100×100
// matrix (and pgRouting's pgr_dijkstraCostMatrix on the same 100 nodes when DATABASE_URL points at a
// PostgreSQL with pgrouting: the ratio), directions across the city with steps, a 30-minute reachable
// area, optimize with 50 stops, optimize-fleet with 200 stops and 10 vehicles. Part 2, through the
// gateway: the origin started as `npm start` starts it, each call paid with a fresh L402 proof, beside
// the same request sent straight to the origin (signed as the gateway signs it).
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { request } from "undici";
import { connectedPoints, ms, percentile, pointsNearRoads, random } from "@/bench/route-points.ts";
import { PROFILES, RouteEngine } from "@/examples/route-planning/engine/index.ts";
import { loadCarGraphIntoPgRouting, EDGES_SQL } from "@/examples/route-planning/engine/pgrouting-graph.ts";
import type { Operation } from "@/examples/route-planning/operations/common.ts";
import { operations } from "@/examples/route-planning/operations/index.ts";
import { launchHostedExamples } from "@/lib/hosted-examples/launch-hosted-examples.ts";
import { DevLightningNode } from "@/lib/lightning/dev-node.ts";
import { createLogger } from "@/lib/logging/logger.ts";
import { canonicalOriginPayload, canonicalOriginPayloadV2, signOriginPayload } from "@l402-hub/sdk/origin";
import { getOriginSecrets } from "@/lib/tenants/get-origin-secrets.ts";
import { createTestContext } from "@/tests/helpers/context.ts";
import { startGateways } from "@/tests/helpers/gateway.ts";

const dataDir = path.join(os.tmpdir(), "l402-hub-route-engine-test");
const op = (name: string): Operation | undefined => operations.find((o) => o.name === name);
const at = ([lng, lat]: [number, number]) => ({ lat, lng });

function timeRuns(runs: number, fn: (i: number) => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn(i);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

const summary: string[] = [];
function report(line: string, goal?: string, met?: boolean) {
  const full = goal ? `${line} (goal ${goal}: ${met ? "met" : "MISSED"})` : line;
  console.log(full);
  summary.push(full);
}

const started = performance.now();
const engine = new RouteEngine({ dataDir, prepare: PROFILES.map((profile) => ({ profile })) });
report(
  `engine start from DATA_DIR: ${ms(performance.now() - started)} (network ${engine.stats.networkFrom}; hierarchies ${Object.entries(engine.stats.hierarchies)
    .map(([k, h]) => `${k} ${h.from} ${ms(h.millis)}`)
    .join(", ")}), rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
);
const ctx = { engine, now: new Date("2026-11-26T09:00:00Z") };
const run = (name: string, body: unknown) => {
  const o = op(name)!;
  return o.run(o.request.parse(body), ctx);
};

// ---- Part 1: in-process --------------------------------------------------------------------
const matrixPoints = pointsNearRoads(engine, "car", 100, 42);
const matrixTimes = timeRuns(9, () => run("matrix", { points: matrixPoints.map(at) }));
report(`matrix 100×100 (car, snap + bucket many-to-many + answer): median ${ms(matrixTimes[4])}, best ${ms(matrixTimes[0])}`, "≤ 25 ms", matrixTimes[4] <= 25);

if (process.env.DATABASE_URL) {
  const graph = await loadCarGraphIntoPgRouting(engine, process.env.DATABASE_URL);
  try {
    const rnd = random(11);
    const nodes = Array.from({ length: 100 }, () => graph.nodes[Math.floor(rnd() * graph.nodes.length)]);
    const endpoints = nodes.map((node) => [{ node, weight: 0, distance: 0, duration: 0 }]);
    const query = engine.hierarchy("car", "time").query;
    const ours = timeRuns(9, () => query.manyToMany(endpoints, endpoints));
    const theirs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await graph.client.query("SELECT start_vid, end_vid, agg_cost FROM pgr_dijkstraCostMatrix($1, $2::bigint[], directed => true)", [EDGES_SQL, nodes]);
      theirs.push(performance.now() - t);
    }
    theirs.sort((a, b) => a - b);
    report(
      `matrix 100×100 node to node, same car graph: engine bucket many-to-many median ${ms(ours[4])}, pgRouting pgr_dijkstraCostMatrix median ${ms(theirs[1])}: ` +
        `pgRouting / engine = ${(theirs[1] / ours[4]).toFixed(0)}×`,
    );
  } finally {
    await graph.drop();
  }
} else {
  report("pgRouting comparison skipped: set DATABASE_URL to a PostgreSQL with pgrouting (apt-get install -y postgresql-15-pgrouting)");
}

if (op("directions")) {
  const pts = pointsNearRoads(engine, "car", 1000, 1);
  const times = timeRuns(500, (i) => {
    try {
      run("directions", { waypoints: [at(pts[2 * i]), at(pts[2 * i + 1])], steps: true, geometry: "simplified" });
    } catch {
      // an unreachable pair answers 422; its time counts like any other
    }
  });
  report(
    `directions across the city (car, steps + simplified geometry), 500 pairs: p50 ${ms(percentile(times, 0.5))}, p95 ${ms(percentile(times, 0.95))}`,
    "p95 ≤ 5 ms",
    percentile(times, 0.95) <= 5,
  );
}

if (op("reachable")) {
  // The origin is a long-running process: measure it warm. Its first calls JIT-compile the search,
  // concaveman and polygon-clipping (the very first takes ~300 ms, the eighth ~45 ms).
  for (const c of pointsNearRoads(engine, "car", 10, 6)) run("reachable", { center: at(c), minutes: 30 });
  const centers = pointsNearRoads(engine, "car", 20, 5);
  const times = timeRuns(20, (i) => run("reachable", { center: at(centers[i]), minutes: 30 }));
  report(
    `reachable 30 minutes (car), 20 centers: p50 ${ms(percentile(times, 0.5))}, p95 ${ms(percentile(times, 0.95))}`,
    "≤ 100 ms",
    percentile(times, 0.95) <= 100,
  );
}

if (op("optimize")) {
  const times = timeRuns(3, (i) => run("optimize", { stops: connectedPoints(engine, "car", 50, 100 + i).map((p, k) => ({ ...at(p), id: `s${k}` })) }));
  report(`optimize 50 stops (car), 3 instances: median ${ms(times[1])}, worst ${ms(times[2])}`, "≤ 1 s", times[2] <= 1000);
}

if (op("optimize-fleet")) {
  const times = timeRuns(2, (i) => {
    const pts = connectedPoints(engine, "van", 201, 200 + i);
    run("optimize-fleet", {
      start: at(pts[200]),
      stops: pts.slice(0, 200).map((p, k) => ({ ...at(p), id: `s${k}`, demand: { items: 1 + (k % 3) } })),
      vehicles: Array.from({ length: 10 }, (_, v) => ({ id: `v${v}`, type: "van", capacity: { items: 60 } })),
    });
  });
  report(`optimize-fleet 200 stops / 10 vehicles (van), 2 instances: worst ${ms(times[1])}`, "≤ 5 s", times[1] <= 5000);
}

// ---- Part 2: through the gateway -----------------------------------------------------------
const test = await createTestContext({ SEED_DEMO: "false" });
const devNode = new DevLightningNode({ prisma: test.db.prisma, appSecret: test.config.appSecret });
const { urls, close } = await startGateways(test, devNode, 1);
const launched = await launchHostedExamples({
  prisma: test.db.prisma,
  store: test.store,
  config: { ...test.config, hostedExamples: ["routes"] },
  devNode,
  log: createLogger("error"),
  root: process.cwd(),
  dataDir,
});
try {
  const origin = launched.running[0].originUrl;
  const tenant = await test.db.prisma.tenant.findUniqueOrThrow({ where: { slug: "routes" }, select: { id: true } });
  const secrets = await getOriginSecrets({ prisma: test.db.prisma, appSecret: test.config.appSecret, tenantId: tenant.id });

  const post = async (url: string, body: string, headers: Record<string, string> = {}) => {
    const res = await request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
    return { status: res.statusCode, headers: res.headers, json: (await res.body.json()) as Record<string, unknown> };
  };
  /** The request as the gateway would send it: both signatures over path, body, timestamp and nonce. */
  const signed = (pathname: string, body: string) => {
    const parts = { method: "POST", path: pathname, timestamp: String(Date.now()), nonce: randomUUID(), body };
    return {
      "x-gateway-secret": secrets.gatewaySecret,
      "x-gateway-timestamp": parts.timestamp,
      "x-gateway-nonce": parts.nonce,
      "x-gateway-signature": signOriginPayload(secrets.hmacSecret, canonicalOriginPayload(parts)),
      "x-gateway-signature-v2": signOriginPayload(secrets.hmacSecret, canonicalOriginPayloadV2({ ...parts, query: "" })),
    };
  };
  const cases: [string, unknown][] = [["matrix", { points: pointsNearRoads(engine, "car", 10, 3).map(at) }]];
  if (op("directions")) cases.push(["directions", { waypoints: pointsNearRoads(engine, "car", 2, 4).map(at), steps: true }]);
  for (const [name, body] of cases) {
    const pathname = `/origin/v1/routes/${name}`;
    const text = JSON.stringify(body);
    const direct: number[] = [],
      paidCall: number[] = [],
      whole: number[] = [];
    for (let i = 0; i < 60; i++) {
      let t = performance.now();
      const d = await post(`${origin}${pathname}`, text, signed(pathname, text));
      direct.push(performance.now() - t);
      if (d.status !== 200) throw new Error(`origin direct answered ${d.status}: ${JSON.stringify(d.json)}`);
      t = performance.now();
      const challenge = await post(`${urls[0]}/gw/routes${pathname}`, text);
      const macaroon = /macaroon="([^"]+)"/.exec(String(challenge.headers["www-authenticate"]))![1];
      const { preimage } = await devNode.pay(String(challenge.json.paymentRequest));
      const t2 = performance.now();
      const paid = await post(`${urls[0]}/gw/routes${pathname}`, text, { authorization: `L402 ${macaroon}:${preimage}` });
      const end = performance.now();
      if (paid.status !== 200) throw new Error(`paid call answered ${paid.status}: ${JSON.stringify(paid.json)}`);
      paidCall.push(end - t2);
      whole.push(end - t);
    }
    for (const list of [direct, paidCall, whole]) list.sort((a, b) => a - b);
    report(
      `${name} through the gateway, 60 sequential calls: origin direct (signed) p50 ${ms(percentile(direct, 0.5))}; the paid call with its proof p50 ${ms(percentile(paidCall, 0.5))} ` +
        `(${(percentile(paidCall, 0.5) / percentile(direct, 0.5)).toFixed(2)}× direct); 402 + pay + paid call p50 ${ms(percentile(whole, 0.5))}`,
    );
  }
} finally {
  await launched.stop();
  await close();
  await test.close();
}

console.log("\nSummary (paste into BENCHMARKS.md):");
for (const line of summary) console.log(`- ${line}`);
process.exit(0);
