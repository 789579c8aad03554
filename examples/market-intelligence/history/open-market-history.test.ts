// The origin's entry point: PGlite under DATA_DIR/market-history survives a reopen; a malformed
// MARKET_DATABASE_URL is refused with the variable's name.
import { mkdtempSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FixtureMarketSource } from "./fixture-source.ts";
import { HistoryConfigError, marketDatabaseUrl, openMarketHistory } from "./open-market-history.ts";

const T0 = Date.UTC(2026, 0, 1);

describe("openMarketHistory", () => {
  it("keeps the embedded history under DATA_DIR/market-history across restarts", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "market-history-"));
    const source = new FixtureMarketSource({ start: T0, closes: Array.from({ length: 48 }, (_, i) => 100 + i), now: T0 + 48 * 3_600_000 });
    const first = await openMarketHistory({ source, dataDir, env: {}, recorder: { backfillDays: 5 } });
    expect(first.store.sql.kind).toBe("pglite");
    const report = await first.recorder.tick()!;
    expect(report.candles["binance:1h"]).toBe(48);
    await first.close();
    expect(existsSync(path.join(dataDir, "market-history"))).toBe(true);

    const second = await openMarketHistory({ source, dataDir, env: {}, recorder: { backfillDays: 5 } });
    expect(await second.store.latestCandleTime("binance", "1h")).toBe(T0 + 47 * 3_600_000);
    expect((await second.recorder.tick()!).candles["binance:1h"]).toBe(0);
    await second.close();
    // Two on-disk PGlite opens with migrations: seconds alone, much longer on a loaded CI machine.
  }, 180_000);

  it("reads MARKET_DATABASE_URL, refusing what is not a PostgreSQL URL", () => {
    expect(marketDatabaseUrl({})).toBeNull();
    expect(marketDatabaseUrl({ MARKET_DATABASE_URL: " " })).toBeNull();
    expect(marketDatabaseUrl({ MARKET_DATABASE_URL: "postgresql://127.0.0.1/market" })).toBe("postgresql://127.0.0.1/market");
    expect(() => marketDatabaseUrl({ MARKET_DATABASE_URL: "mysql://127.0.0.1/market" })).toThrow(HistoryConfigError);
    expect(() => marketDatabaseUrl({ MARKET_DATABASE_URL: "mysql://x" })).toThrow(/MARKET_DATABASE_URL/);
  });
});
