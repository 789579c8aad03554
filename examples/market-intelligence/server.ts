// The market-intelligence origin, alone: `npm run example:market` (or started by the hub's
// `npm start`, which passes the tenant's origin secrets and reads the port it reports). Prepares the
// market (a year of simulated history, MARKET_HISTORY_DAYS, or the live adapters) before listening.
import { OriginConfigError, exitWithParent, originEnvironment, startOriginServer } from "../shared/origin-server.ts";
import { createMarketApp } from "./app.ts";
import { KEEPALIVE_SECONDS } from "./endpoints/derivatives.ts";
import { MarketConfigError, createMarketSource, marketHistoryDays } from "./model/index.ts";
import { HistoryConfigError, openMarketHistory } from "./history/open-market-history.ts";
import { MAX_BODY_BYTES, PUBLIC_PATHS } from "./origin.ts";

const DEFAULT_PORT = 8602;

function log(line: Record<string, unknown>) {
  console.log(JSON.stringify({ time: new Date().toISOString(), origin: "market-intelligence", ...line }));
}

async function main() {
  exitWithParent();
  let env;
  let source;
  let history;
  const started = performance.now();
  try {
    env = originEnvironment(process.env, DEFAULT_PORT);
    source = await createMarketSource(process.env);
    // MARKET_HISTORY_DAYS (default a year): what the simulation prepares is what the recorder backfills.
    history = await openMarketHistory({ source, dataDir: env.dataDir, env: process.env, recorder: { backfillDays: marketHistoryDays(process.env) } });
  } catch (err) {
    if (err instanceof OriginConfigError || err instanceof MarketConfigError || err instanceof HistoryConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  // The first tick records what is missing (a year on a first start, minutes after a restart), so the
  // history endpoints and their documented examples answer from the start; then one tick a minute.
  const recorded = await history.recorder.tick();
  history.recorder.start();
  const app = await createMarketApp({ source, history: history.store });
  log({
    level: "info",
    msg: "market ready",
    source: source.kind,
    regime: source.regime(),
    endpoints: app.endpoints.length,
    historyCandles: recorded ? Object.values(recorded.candles).reduce((sum, n) => sum + n, 0) : 0,
    millis: Math.round(performance.now() - started),
    rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
  });
  await startOriginServer({
    name: "market-intelligence",
    env,
    maxBodyBytes: MAX_BODY_BYTES,
    publicPaths: PUBLIC_PATHS,
    handle: app.origin.handle,
    keepAliveMs: KEEPALIVE_SECONDS * 1_000,
    log,
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
