// Fakes of the five spot venues' public REST APIs, answering in each venue's documented JSON shape
// (field names, string decimals, ordering, error envelopes and parameter limits) from the shared
// `FakeMarket`. Only what the live adapters call is served; anything else is the venue's 404.
import { decimal, numberParam, startHttpFake, type FakeAnswer, type HttpFake } from "./http-fake.ts";
import type { FakeMarket } from "./fake-market.ts";

const MINUTE = 60_000;
const BINANCE_INTERVALS: Record<string, number> = {
  "1m": MINUTE,
  "3m": 3 * MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "2h": 120 * MINUTE,
  "4h": 240 * MINUTE,
  "6h": 360 * MINUTE,
  "8h": 480 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": 1440 * MINUTE,
  "3d": 4320 * MINUTE,
};
const BINANCE_DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000, 5000];
const BINANCE_WEIGHTS: Record<string, number> = { "/api/v3/klines": 2, "/api/v3/ticker/24hr": 2, "/api/v3/depth": 5 };

/** Binance's error body: `{code, msg}` with its negative codes. */
const binanceError = (status: number, code: number, msg: string): FakeAnswer => ({ status, body: { code, msg } });

export interface BinanceSpotFake extends HttpFake {
  /** Added to the used weight each answer reports (`X-MBX-USED-WEIGHT-1M`): set near 6000 to test the pause. */
  weightOffset: number;
}

/** Binance spot: `/api/v3/klines`, `/api/v3/ticker/24hr`, `/api/v3/depth`, with `X-MBX-USED-WEIGHT-1M` on every answer. */
export async function startBinanceSpotFake(market: FakeMarket): Promise<BinanceSpotFake> {
  let minute = -1;
  let used = 0;
  const state = { weightOffset: 0 };
  const fake = await startHttpFake(
    (url) => {
      if (!["/api/v3/klines", "/api/v3/ticker/24hr", "/api/v3/depth"].includes(url.pathname))
        return { status: 404, body: "<html><body><h1>404 Not found</h1></body></html>" };
      if (url.searchParams.get("symbol") !== "BTCUSDT") return binanceError(400, -1121, "Invalid symbol.");
      if (url.pathname === "/api/v3/klines") {
        const span = BINANCE_INTERVALS[url.searchParams.get("interval") ?? ""];
        if (!span) return binanceError(400, -1120, "Invalid interval.");
        const limit = numberParam(url, "limit") ?? 500;
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return binanceError(400, -1130, "Data sent for parameter 'limit' is not valid.");
        const start = numberParam(url, "startTime");
        const end = numberParam(url, "endTime");
        const candles = start !== undefined ? market.candles(span, start, end ?? market.now()).slice(0, limit) : market.latestCandles(span, limit, end);
        return {
          body: candles.map((c) => [
            c.time,
            decimal(c.open, 8),
            decimal(c.high, 8),
            decimal(c.low, 8),
            decimal(c.close, 8),
            decimal(c.volume, 8),
            c.time + span - 1,
            decimal(c.volume * c.close, 8),
            1000,
            decimal(c.volume / 2, 8),
            decimal((c.volume / 2) * c.close, 8),
            "0",
          ]),
        };
      }
      if (url.pathname === "/api/v3/ticker/24hr") {
        const now = market.now();
        const price = market.price(now);
        const open = market.price(now - 86_400_000);
        const day = market.latestCandles(3_600_000, 24);
        return {
          body: {
            symbol: "BTCUSDT",
            priceChange: decimal(price - open, 8),
            priceChangePercent: decimal(((price - open) / open) * 100, 3),
            weightedAvgPrice: decimal((price + open) / 2, 8),
            prevClosePrice: decimal(open, 8),
            lastPrice: decimal(price, 8),
            lastQty: "0.00120000",
            bidPrice: decimal(price - 0.01, 8),
            bidQty: "1.20000000",
            askPrice: decimal(price, 8),
            askQty: "0.80000000",
            openPrice: decimal(open, 8),
            highPrice: decimal(Math.max(...day.map((c) => c.high)), 8),
            lowPrice: decimal(Math.min(...day.map((c) => c.low)), 8),
            volume: decimal(
              day.reduce((sum, c) => sum + c.volume, 0),
              8,
            ),
            quoteVolume: decimal(
              day.reduce((sum, c) => sum + c.volume * c.close, 0),
              8,
            ),
            openTime: now - 86_400_000,
            closeTime: now,
            firstId: 1,
            lastId: 1000,
            count: 1000,
          },
        };
      }
      const limit = numberParam(url, "limit") ?? 100;
      if (!BINANCE_DEPTH_LIMITS.includes(limit))
        return binanceError(400, -1100, "Illegal characters found in parameter 'limit'; legal range is '5, 10, 20, 50, 100, 500, 1000, 5000'.");
      const book = market.book("binance", Math.min(limit, 1000));
      return {
        body: {
          lastUpdateId: market.now(),
          bids: book.bids.map(([p, q]) => [decimal(p, 8), decimal(q, 8)]),
          asks: book.asks.map(([p, q]) => [decimal(p, 8), decimal(q, 8)]),
        },
      };
    },
    (url) => {
      const current = Math.floor(market.now() / MINUTE);
      if (current !== minute) [minute, used] = [current, 0];
      used += BINANCE_WEIGHTS[url.pathname] ?? 1;
      return { "X-MBX-USED-WEIGHT-1M": String(used + state.weightOffset) };
    },
  );
  return Object.defineProperty(fake, "weightOffset", {
    get: () => state.weightOffset,
    set: (value: number) => (state.weightOffset = value),
    enumerable: true,
  }) as BinanceSpotFake;
}

const COINBASE_GRANULARITIES = [60, 300, 900, 3600, 21600, 86400];

/** Coinbase Exchange: `/products/BTC-USD/{candles,ticker,stats,book}`; candles newest first as `[time, low, high, open, close, volume]`, ≤ 300 buckets. */
export async function startCoinbaseFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    const match = /^\/products\/([^/]+)\/(candles|ticker|stats|book)$/.exec(url.pathname);
    if (!match) return { status: 404, body: { message: "Not Found" } };
    if (match[1] !== "BTC-USD") return { status: 404, body: { message: "NotFound" } };
    const now = market.now();
    const price = market.price(now, "coinbase");
    switch (match[2]) {
      case "candles": {
        const granularity = numberParam(url, "granularity") ?? 60;
        if (!COINBASE_GRANULARITIES.includes(granularity)) return { status: 400, body: { message: "Unsupported granularity" } };
        const span = granularity * 1000;
        const start = url.searchParams.get("start");
        const end = url.searchParams.get("end");
        let candles;
        if (start && end) {
          const from = Date.parse(start);
          const to = Date.parse(end);
          if (Number.isNaN(from) || Number.isNaN(to)) return { status: 400, body: { message: "Invalid start or end" } };
          if ((to - from) / span > 300)
            return { status: 400, body: { message: "granularity too small for the requested time range. Count of aggregations requested exceeds 300" } };
          candles = market.candles(span, from, to, "coinbase");
        } else {
          candles = market.latestCandles(span, 300, now, "coinbase");
        }
        return { body: candles.reverse().map((c) => [c.time / 1000, c.low, c.high, c.open, c.close, c.volume]) };
      }
      case "ticker":
        return {
          body: {
            ask: decimal(price + 0.01),
            bid: decimal(price),
            volume: decimal(
              market.latestCandles(3_600_000, 24, now, "coinbase").reduce((sum, c) => sum + c.volume, 0),
              8,
            ),
            trade_id: 700_000_001,
            price: decimal(price),
            size: "0.00150000",
            time: new Date(now).toISOString(),
            rfq_volume: "0.000000",
          },
        };
      case "stats": {
        const day = market.latestCandles(3_600_000, 24, now, "coinbase");
        return {
          body: {
            open: decimal(market.price(now - 86_400_000, "coinbase")),
            high: decimal(Math.max(...day.map((c) => c.high))),
            low: decimal(Math.min(...day.map((c) => c.low))),
            last: decimal(price),
            volume: decimal(
              day.reduce((sum, c) => sum + c.volume, 0),
              8,
            ),
            volume_30day: "250000.00000000",
          },
        };
      }
      default: {
        if (url.searchParams.get("level") !== "2") return { status: 400, body: { message: "Invalid level" } };
        const book = market.book("coinbase", 1000);
        return {
          body: {
            bids: book.bids.map(([p, q]) => [decimal(p), decimal(q, 8), 3]),
            asks: book.asks.map(([p, q]) => [decimal(p), decimal(q, 8), 2]),
            sequence: now,
            auction_mode: false,
            auction: null,
            time: new Date(now).toISOString(),
          },
        };
      }
    }
  });
}

const KRAKEN_INTERVALS = [1, 5, 15, 30, 60, 240, 1440, 10080, 21600];
/** Kraken's envelope: errors in an `error` array with HTTP 200. */
const krakenError = (...error: string[]): FakeAnswer => ({ body: { error } });

/** Kraken: `/0/public/{OHLC,Ticker,Depth}` for XBTUSD, answered under the pair's full name `XXBTZUSD`; OHLC ≤ 720, oldest first. */
export async function startKrakenFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    if (!["/0/public/OHLC", "/0/public/Ticker", "/0/public/Depth"].includes(url.pathname)) return krakenError("EGeneral:Unknown method");
    const pair = url.searchParams.get("pair");
    if (pair !== "XBTUSD" && pair !== "XXBTZUSD") return krakenError("EQuery:Unknown asset pair");
    const now = market.now();
    if (url.pathname === "/0/public/OHLC") {
      const interval = numberParam(url, "interval") ?? 1;
      if (!KRAKEN_INTERVALS.includes(interval)) return krakenError("EGeneral:Invalid arguments");
      const since = (numberParam(url, "since") ?? 0) * 1000;
      const all = market.latestCandles(interval * MINUTE, 720, now, "kraken");
      const rows = all.filter((c, index) => c.time > since || index === all.length - 1);
      return {
        body: {
          error: [],
          result: {
            XXBTZUSD: rows.map((c) => [
              c.time / 1000,
              decimal(c.open, 1),
              decimal(c.high, 1),
              decimal(c.low, 1),
              decimal(c.close, 1),
              decimal((c.high + c.low + c.close) / 3, 1),
              decimal(c.volume, 8),
              42,
            ]),
            last: (all[all.length - 2]?.time ?? 0) / 1000,
          },
        },
      };
    }
    if (url.pathname === "/0/public/Ticker") {
      const price = market.price(now, "kraken");
      const volume = market.latestCandles(3_600_000, 24, now, "kraken").reduce((sum, c) => sum + c.volume, 0);
      return {
        body: {
          error: [],
          result: {
            XXBTZUSD: {
              a: [decimal(price + 0.1, 5), "1", "1.000"],
              b: [decimal(price, 5), "2", "2.000"],
              c: [decimal(price, 5), "0.00100000"],
              v: [decimal(volume / 2, 8), decimal(volume, 8)],
              p: [decimal(price, 5), decimal(price, 5)],
              t: [5000, 10000],
              l: [decimal(price * 0.98, 5), decimal(price * 0.97, 5)],
              h: [decimal(price * 1.02, 5), decimal(price * 1.03, 5)],
              o: decimal(market.price(Math.floor(now / 86_400_000) * 86_400_000, "kraken"), 5),
            },
          },
        },
      };
    }
    const count = numberParam(url, "count") ?? 100;
    if (!Number.isInteger(count) || count < 1 || count > 500) return krakenError("EGeneral:Invalid arguments");
    const book = market.book("kraken", count);
    const stamp = Math.floor(now / 1000);
    return {
      body: {
        error: [],
        result: {
          XXBTZUSD: {
            asks: book.asks.map(([p, q]) => [decimal(p, 1), decimal(q, 3), stamp]),
            bids: book.bids.map(([p, q]) => [decimal(p, 1), decimal(q, 3), stamp]),
          },
        },
      },
    };
  });
}

const BITSTAMP_STEPS = [60, 180, 300, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400, 259200];
const bitstampError = (status: number, reason: string, code: string): FakeAnswer => ({ status, body: { status: "error", reason, code } });

/** Bitstamp: `/api/v2/{ohlc,ticker,order_book}/btcusd/`; OHLC ≤ 1000 objects of strings, oldest first. */
export async function startBitstampFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    const match = /^\/api\/v2\/(ohlc|ticker|order_book)\/([a-z]+)\/$/.exec(url.pathname);
    if (!match) return { status: 404, body: { status: "error", reason: "Not found", code: "404" } };
    if (match[2] !== "btcusd") return bitstampError(404, "Invalid currency pair", "API0001");
    const now = market.now();
    if (match[1] === "ohlc") {
      const step = numberParam(url, "step");
      const limit = numberParam(url, "limit");
      if (step === undefined || !BITSTAMP_STEPS.includes(step))
        return bitstampError(400, "step: Must be one of 60, 180, 300, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400, 259200.", "API0002");
      if (limit === undefined || !Number.isInteger(limit) || limit < 1 || limit > 1000)
        return bitstampError(400, "limit: Must be between 1 and 1000.", "API0002");
      const end = numberParam(url, "end");
      const start = numberParam(url, "start");
      const span = step * 1000;
      const candles =
        start !== undefined
          ? market.candles(span, start * 1000, end !== undefined ? end * 1000 : now, "bitstamp").slice(0, limit)
          : market.latestCandles(span, limit, end !== undefined ? end * 1000 : now, "bitstamp");
      return {
        body: {
          data: {
            pair: "BTC/USD",
            ohlc: candles.map((c) => ({
              close: decimal(c.close, 0),
              high: decimal(c.high, 0),
              low: decimal(c.low, 0),
              open: decimal(c.open, 0),
              timestamp: String(c.time / 1000),
              volume: decimal(c.volume, 8),
            })),
          },
        },
      };
    }
    if (match[1] === "ticker") {
      const price = market.price(now, "bitstamp");
      const open = market.price(now - 86_400_000, "bitstamp");
      return {
        body: {
          timestamp: String(Math.floor(now / 1000)),
          open: decimal(market.price(Math.floor(now / 86_400_000) * 86_400_000, "bitstamp"), 0),
          high: decimal(price * 1.02, 0),
          low: decimal(price * 0.98, 0),
          last: decimal(price, 0),
          volume: decimal(
            market.latestCandles(3_600_000, 24, now, "bitstamp").reduce((sum, c) => sum + c.volume, 0),
            8,
          ),
          vwap: decimal(price, 0),
          bid: decimal(price - 1, 0),
          ask: decimal(price, 0),
          side: "0",
          open_24: decimal(open, 0),
          percent_change_24: decimal(((price - open) / open) * 100, 2),
          market_type: "SPOT",
        },
      };
    }
    const book = market.book("bitstamp", 1000, 1);
    return {
      body: {
        timestamp: String(Math.floor(now / 1000)),
        microtimestamp: String(now * 1000),
        bids: book.bids.map(([p, q]) => [decimal(p, 0), decimal(q, 8)]),
        asks: book.asks.map(([p, q]) => [decimal(p, 0), decimal(q, 8)]),
      },
    };
  });
}

const HOUR = 3_600_000;
/** OKX bars: span and grid offset; plain `1D` is aligned to Hong Kong midnight (16:00 UTC), `1Dutc` to UTC. */
const OKX_BARS: Record<string, { span: number; offset: number }> = {
  "1m": { span: MINUTE, offset: 0 },
  "5m": { span: 5 * MINUTE, offset: 0 },
  "1H": { span: HOUR, offset: 0 },
  "4H": { span: 4 * HOUR, offset: 0 },
  "1D": { span: 24 * HOUR, offset: -8 * HOUR },
  "1Dutc": { span: 24 * HOUR, offset: 0 },
};
const okxError = (code: string, msg: string, status = 200): FakeAnswer => ({ status, body: { code, msg, data: [] } });
export const OKX_RATE_LIMIT: FakeAnswer = okxError("50011", "Rate limit reached. Please refer to API documentation and throttle requests accordingly.", 429);

/** OKX: `/api/v5/market/{candles,ticker,books}` in its `{code, msg, data}` envelope; candles newest first, ≤ 300; books ≤ 400 a side. */
export async function startOkxFake(market: FakeMarket): Promise<HttpFake> {
  return startHttpFake((url) => {
    if (!["/api/v5/market/candles", "/api/v5/market/ticker", "/api/v5/market/books"].includes(url.pathname))
      return { status: 404, body: { code: "404", msg: "Not Found", data: [] } };
    if (url.searchParams.get("instId") !== "BTC-USDT") return okxError("51001", "Instrument ID does not exist.");
    const now = market.now();
    if (url.pathname === "/api/v5/market/candles") {
      const bar = OKX_BARS[url.searchParams.get("bar") ?? "1m"];
      if (!bar) return okxError("51000", "Parameter bar error");
      const limit = numberParam(url, "limit") ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 300) return okxError("51000", "Parameter limit error");
      const after = numberParam(url, "after");
      const candles = market.latestCandles(bar.span, limit, after !== undefined ? after - 1 : now, "okx", bar.offset).reverse();
      const current = Math.floor((now - bar.offset) / bar.span) * bar.span + bar.offset;
      return {
        body: {
          code: "0",
          msg: "",
          data: candles.map((c) => [
            String(c.time),
            decimal(c.open, 1),
            decimal(c.high, 1),
            decimal(c.low, 1),
            decimal(c.close, 1),
            decimal(c.volume, 8),
            decimal(c.volume * c.close, 2),
            decimal(c.volume * c.close, 2),
            c.time === current ? "0" : "1",
          ]),
        },
      };
    }
    if (url.pathname === "/api/v5/market/ticker") {
      const price = market.price(now, "okx");
      const volume = market.latestCandles(HOUR, 24, now, "okx").reduce((sum, c) => sum + c.volume, 0);
      return {
        body: {
          code: "0",
          msg: "",
          data: [
            {
              instType: "SPOT",
              instId: "BTC-USDT",
              last: decimal(price, 1),
              lastSz: "0.0001",
              askPx: decimal(price + 0.1, 1),
              askSz: "0.5",
              bidPx: decimal(price, 1),
              bidSz: "0.7",
              open24h: decimal(market.price(now - 86_400_000, "okx"), 1),
              high24h: decimal(price * 1.02, 1),
              low24h: decimal(price * 0.98, 1),
              volCcy24h: decimal(volume * price, 2),
              vol24h: decimal(volume, 8),
              ts: String(now),
              sodUtc0: decimal(price, 1),
              sodUtc8: decimal(price, 1),
            },
          ],
        },
      };
    }
    const size = numberParam(url, "sz") ?? 1;
    if (!Number.isInteger(size) || size < 1 || size > 400) return okxError("51000", "Parameter sz error");
    const book = market.book("okx", size);
    return {
      body: {
        code: "0",
        msg: "",
        data: [
          {
            asks: book.asks.map(([p, q]) => [decimal(p, 1), decimal(q, 8), "0", "4"]),
            bids: book.bids.map(([p, q]) => [decimal(p, 1), decimal(q, 8), "0", "3"]),
            ts: String(now),
          },
        ],
      },
    };
  });
}
