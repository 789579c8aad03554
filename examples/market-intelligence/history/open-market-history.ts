// What the market origin calls once at start: the history store (PGlite under DATA_DIR/market-history,
// or PostgreSQL when MARKET_DATABASE_URL is set) and its recorder, not yet ticking. The origin then
// either lets the recorder keep its own minute schedule (`recorder.start()`) or calls
// `recorder.tick()` from its scheduler; the first tick backfills the year in the background while
// the origin already answers (history endpoints see the history fill up).
import type { MarketSource } from "../model/types.ts";
import { HistoryRecorder, type HistoryRecorderOptions } from "./recorder.ts";
import { historyPgliteDir, openHistoryStore, type HistoryStore } from "./store.ts";

export class HistoryConfigError extends Error {}

export interface MarketHistoryOptions {
  source: MarketSource;
  /** The origin's DATA_DIR; PGlite keeps the history in DATA_DIR/market-history. */
  dataDir: string;
  /** The process environment: MARKET_DATABASE_URL selects PostgreSQL. */
  env?: Record<string, string | undefined>;
  log?: (line: Record<string, unknown>) => void;
  /** Recorder settings beyond the defaults (backfill days, schedule, retention). */
  recorder?: Omit<HistoryRecorderOptions, "store" | "source" | "log">;
}

export interface MarketHistory {
  store: HistoryStore;
  recorder: HistoryRecorder;
  /** Stops the recorder (waiting for a running tick) and closes the store. */
  close(): Promise<void>;
}

/** MARKET_DATABASE_URL when set (a postgres:// or postgresql:// URL), else null for PGlite. */
export function marketDatabaseUrl(env: Record<string, string | undefined>): string | null {
  const url = env.MARKET_DATABASE_URL?.trim();
  if (!url) return null;
  if (!/^postgres(ql)?:\/\//.test(url))
    throw new HistoryConfigError("MARKET_DATABASE_URL must be a postgres:// or postgresql:// URL (unset it to use the embedded PGlite)");
  return url;
}

export async function openMarketHistory(options: MarketHistoryOptions): Promise<MarketHistory> {
  const databaseUrl = marketDatabaseUrl(options.env ?? process.env);
  const store = await openHistoryStore({ databaseUrl, pgliteDir: databaseUrl ? null : historyPgliteDir(options.dataDir) });
  const recorder = new HistoryRecorder({ ...options.recorder, store, source: options.source, log: options.log });
  options.log?.({ level: "info", msg: "market history open", engine: store.sql.kind });
  return {
    store,
    recorder,
    close: async () => {
      await recorder.stop();
      await store.close();
    },
  };
}
