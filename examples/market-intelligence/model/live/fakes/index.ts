// Every upstream of the live source as a local fake, started together on loopback: `env` holds the
// `MARKET_LIVE_*` variables that point `createLiveMarketSource` (or the origin run with
// `MARKET_SOURCE=live`) at them. The fakes share one `FakeMarket` and one clock, so venues agree.
import { startBinanceFuturesFake, startDeribitFake, type BinanceFuturesFake } from "./derivatives.ts";
import { FakeMarket } from "./fake-market.ts";
import type { HttpFake } from "./http-fake.ts";
import { startFearGreedFake, startMempoolFake, startStablecoinsFake } from "./network-sentiment.ts";
import { startBinanceSpotFake, startBitstampFake, startCoinbaseFake, startKrakenFake, startOkxFake, type BinanceSpotFake } from "./spot-venues.ts";

export { FakeMarket } from "./fake-market.ts";
export type { HttpFake } from "./http-fake.ts";

export interface LiveFakes {
  market: FakeMarket;
  binance: BinanceSpotFake;
  coinbase: HttpFake;
  kraken: HttpFake;
  bitstamp: HttpFake;
  okx: HttpFake;
  futures: BinanceFuturesFake;
  deribit: HttpFake;
  mempool: HttpFake;
  fearGreed: HttpFake;
  stablecoins: HttpFake;
  /** The `MARKET_LIVE_*` variables naming each fake. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLiveFakes(options: { now?: () => number; basePrice?: number } = {}): Promise<LiveFakes> {
  const market = new FakeMarket(options.now ?? Date.now, options.basePrice);
  const [binance, coinbase, kraken, bitstamp, okx, futures, deribit, mempool, fearGreed, stablecoins] = await Promise.all([
    startBinanceSpotFake(market),
    startCoinbaseFake(market),
    startKrakenFake(market),
    startBitstampFake(market),
    startOkxFake(market),
    startBinanceFuturesFake(market),
    startDeribitFake(market),
    startMempoolFake(market),
    startFearGreedFake(market),
    startStablecoinsFake(),
  ]);
  const all = [binance, coinbase, kraken, bitstamp, okx, futures, deribit, mempool, fearGreed, stablecoins];
  return {
    market,
    binance,
    coinbase,
    kraken,
    bitstamp,
    okx,
    futures,
    deribit,
    mempool,
    fearGreed,
    stablecoins,
    env: {
      MARKET_LIVE_BINANCE_URL: binance.url,
      MARKET_LIVE_COINBASE_URL: coinbase.url,
      MARKET_LIVE_KRAKEN_URL: kraken.url,
      MARKET_LIVE_BITSTAMP_URL: bitstamp.url,
      MARKET_LIVE_OKX_URL: okx.url,
      MARKET_LIVE_BINANCE_FUTURES_URL: futures.url,
      MARKET_LIVE_BINANCE_FUTURES_WS_URL: futures.wsUrl,
      MARKET_LIVE_DERIBIT_URL: deribit.url,
      MARKET_LIVE_MEMPOOL_URL: mempool.url,
      MARKET_LIVE_FEAR_GREED_URL: fearGreed.url,
      MARKET_LIVE_STABLECOINS_URL: stablecoins.url,
    },
    async close() {
      await Promise.all(all.map((fake) => fake.close()));
    },
  };
}
