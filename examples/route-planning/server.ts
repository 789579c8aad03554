// The route-planning origin, alone: `npm run example:routes` (or started by the hub's `npm start`,
// which passes the tenant's origin secrets and reads the port it reports). Builds (or loads from
// DATA_DIR) the road graph and the car hierarchy before listening; other profiles follow in the
// background, so the first call of each is not the one that pays for its preparation.
import { OriginConfigError, exitWithParent, originEnvironment, startOriginServer } from "../shared/origin-server.ts";
import { PROFILES, RouteEngine } from "./engine/index.ts";
import { operations } from "./operations/index.ts";
import { MAX_BODY_BYTES, PUBLIC_PATHS, createRoutePlanningOrigin } from "./origin.ts";

const DEFAULT_PORT = 8601;

function log(line: Record<string, unknown>) {
  console.log(JSON.stringify({ time: new Date().toISOString(), origin: "route-planning", ...line }));
}

async function main() {
  exitWithParent();
  let env;
  try {
    env = originEnvironment(process.env, DEFAULT_PORT);
  } catch (err) {
    if (err instanceof OriginConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const started = performance.now();
  const engine = new RouteEngine({ dataDir: env.dataDir, prepare: [{ profile: "car" }] });
  log({
    level: "info",
    msg: "road network ready",
    network: engine.stats.networkFrom,
    nodes: engine.network.nodeCount,
    segments: engine.network.segmentCount,
    millis: Math.round(performance.now() - started),
  });
  const origin = createRoutePlanningOrigin({ engine, operations });
  await startOriginServer({ name: "route-planning", env, maxBodyBytes: MAX_BODY_BYTES, publicPaths: PUBLIC_PATHS, handle: origin.handle, log });
  // The other profiles' hierarchies, one per turn of the event loop (each blocks it for seconds when
  // built, milliseconds when read from DATA_DIR).
  const rest = PROFILES.filter((p) => p !== "car");
  const next = () => {
    const profile = rest.shift();
    if (!profile)
      return log({ level: "info", msg: "all profiles ready", hierarchies: engine.stats.hierarchies, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) });
    engine.hierarchy(profile, "time");
    setTimeout(next, 50);
  };
  setTimeout(next, 50);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
