// The five spot venues' public, key-less REST APIs, each mapped to the model's candles, ticker and
// order book (BTC against USD; Binance and OKX quote USDT, read as USD). One request per call,
// capped at the venue's own per-request maximum (docs/market-live-source.md lists them); answers
// are oldest first whatever order the venue sends.
import { TIMEFRAME_MS, type Candle, type CandleQuery, type OrderBook, type Ticker, type Timeframe, type Venue } from "../types.ts";
import { aggregateCandles, wantedCandles, windowCandles } from "./candles.ts";
import { allSettledOrThrow } from "./errors.ts";
import { asArray, asLevels, asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, UpstreamThrottledSignal, type UpstreamAnswer, type UpstreamClient } from "./upstream-client.ts";

export interface SpotVenueAdapter {
  readonly venue: Venue;
  candles(timeframe: Timeframe, query: CandleQuery): Promise<Candle[]>;
  ticker(): Promise<Ticker>;
  orderBook(depth: number): Promise<OrderBook>;
}

/** Cache lifetimes per resource (docs/market-live-source.md): a burst of calls within one costs one request. */
export const SPOT_TTL_MS = { candles1m: 5_000, candlesLonger: 30_000, ticker: 2_000, book: 2_000 } as const;

/** Levels a side kept from a book answer; callers get the best `depth` of them (the cache holds the whole answer). */
const MAX_BOOK_LEVELS = 1000;

/**
 * The best `depth` levels of a venue's book: the whole answer fetched (or read from the cache) and
 * decoded by `read` into its time and the object holding its `bids` and `asks`.
 */
async function fetchBook(
  client: UpstreamClient,
  venue: Venue,
  depth: number,
  path: string,
  params: Record<string, string | number | undefined>,
  read: (answer: UpstreamAnswer) => { time: number; sides: Record<string, unknown> },
): Promise<OrderBook> {
  const book = await client.get(path, params, {
    ttlMs: SPOT_TTL_MS.book,
    decode: (answer): OrderBook => {
      const { time, sides } = read(answer);
      return { venue, time, bids: asLevels(sides.bids, "bids", MAX_BOOK_LEVELS), asks: asLevels(sides.asks, "asks", MAX_BOOK_LEVELS) };
    },
  });
  return { ...book, bids: book.bids.slice(0, depth), asks: book.asks.slice(0, depth) };
}

/** The 24-hour change in percent from the price 24 hours ago, for venues that send only that open. */
function changePct(open: number, price: number): number {
  return open > 0 ? ((price - open) / open) * 100 : 0;
}

function candleTtl(timeframe: Timeframe): number {
  return timeframe === "1m" ? SPOT_TTL_MS.candles1m : SPOT_TTL_MS.candlesLonger;
}

/** A venue's JSON body, or a protocol error when a 4xx carries the venue's error text. */
function okBody(answer: UpstreamAnswer, message: (body: unknown) => string | undefined): unknown {
  if (answer.status >= 400) throw new UpstreamProtocolError(`HTTP ${answer.status}${message(answer.body) ? `: ${message(answer.body)}` : ""}`);
  return answer.body;
}

// ---- Binance spot ----------------------------------------------------------------------------

const BINANCE_SYMBOL = "BTCUSDT";
const BINANCE_DEPTHS = [5, 10, 20, 50, 100, 500, 1000];

function binanceMessage(body: unknown): string | undefined {
  return body && typeof body === "object" && "msg" in body
    ? `${String((body as { msg: unknown }).msg)} (code ${String((body as { code?: unknown }).code)})`
    : undefined;
}

/** Binance spot: `/api/v3/klines` (oldest first, ≤ 1000), `/api/v3/ticker/24hr`, `/api/v3/depth`. */
export function binanceSpot(client: UpstreamClient, now: () => number): SpotVenueAdapter {
  return {
    venue: "binance",
    async candles(timeframe, query) {
      const limit = wantedCandles(timeframe, query, now(), 1000);
      const rows = await client.get(
        "/api/v3/klines",
        { symbol: BINANCE_SYMBOL, interval: timeframe, limit, endTime: query.end !== undefined ? query.end - 1 : undefined },
        { ttlMs: candleTtl(timeframe), decode: (answer) => asArray(okBody(answer, binanceMessage), "klines").map((row, i) => binanceKline(row, i)) },
      );
      return windowCandles(rows, query);
    },
    async ticker() {
      return client.get(
        "/api/v3/ticker/24hr",
        { symbol: BINANCE_SYMBOL },
        {
          ttlMs: SPOT_TTL_MS.ticker,
          decode: (answer) => {
            const body = asObject(okBody(answer, binanceMessage), "ticker");
            return {
              venue: "binance" as const,
              time: asNumber(body.closeTime, "closeTime"),
              price: asNumber(body.lastPrice, "lastPrice"),
              bid: asNumber(body.bidPrice, "bidPrice"),
              ask: asNumber(body.askPrice, "askPrice"),
              volume24h: asNumber(body.volume, "volume"),
              change24hPct: asNumber(body.priceChangePercent, "priceChangePercent"),
            };
          },
        },
      );
    },
    async orderBook(depth) {
      const limit = BINANCE_DEPTHS.find((allowed) => allowed >= depth) ?? 1000;
      return fetchBook(client, "binance", depth, "/api/v3/depth", { symbol: BINANCE_SYMBOL, limit }, (answer) => {
        const body = asObject(okBody(answer, binanceMessage), "depth");
        return { time: now(), sides: body };
      });
    },
  };
}

function binanceKline(value: unknown, index: number): Candle {
  const row = asArray(value, `kline[${index}]`);
  return {
    time: asNumber(row[0], "open time"),
    open: asNumber(row[1], "open"),
    high: asNumber(row[2], "high"),
    low: asNumber(row[3], "low"),
    close: asNumber(row[4], "close"),
    volume: asNumber(row[5], "volume"),
  };
}

// ---- Coinbase Exchange -------------------------------------------------------------------------

const COINBASE_PRODUCT = "/products/BTC-USD";
/** Coinbase's granularities (seconds); no 4h, so 4h is aggregated from 1h. At most 300 buckets per request. */
const COINBASE_GRANULARITY: Record<Timeframe, number> = { "1m": 60, "1h": 3600, "4h": 3600, "1d": 86400 };
const COINBASE_MAX_BUCKETS = 300;

function coinbaseMessage(body: unknown): string | undefined {
  return body && typeof body === "object" && "message" in body ? String((body as { message: unknown }).message) : undefined;
}

/** Coinbase Exchange: `/products/BTC-USD/candles` (newest first, [time, low, high, open, close, volume]), `/ticker` + `/stats`, `/book?level=2`. */
export function coinbaseExchange(client: UpstreamClient, now: () => number): SpotVenueAdapter {
  return {
    venue: "coinbase",
    async candles(timeframe, query) {
      const granularity = COINBASE_GRANULARITY[timeframe];
      const perCandle = TIMEFRAME_MS[timeframe] / (granularity * 1000);
      const wanted = wantedCandles(timeframe, query, now(), Math.floor(COINBASE_MAX_BUCKETS / perCandle));
      const span = TIMEFRAME_MS[timeframe];
      // From the open of the oldest wanted candle to the last bucket inside the newest one (the current
      // candle, or the last before `end`): wanted × buckets-per-candle ≤ 300 buckets.
      const lastOpen = Math.floor(((query.end ?? now() + 1) - 1) / span) * span;
      const start = lastOpen - (wanted - 1) * span;
      const end = lastOpen + span - granularity * 1000;
      const rows = await client.get(
        `${COINBASE_PRODUCT}/candles`,
        { granularity, start: new Date(start).toISOString(), end: new Date(end).toISOString() },
        {
          ttlMs: candleTtl(timeframe),
          decode: (answer) =>
            asArray(okBody(answer, coinbaseMessage), "candles").map((value, index): Candle => {
              const row = asArray(value, `candle[${index}]`);
              return {
                time: asNumber(row[0], "time") * 1000,
                low: asNumber(row[1], "low"),
                high: asNumber(row[2], "high"),
                open: asNumber(row[3], "open"),
                close: asNumber(row[4], "close"),
                volume: asNumber(row[5], "volume"),
              };
            }),
        },
      );
      const oldestFirst = windowCandles(rows, {});
      return windowCandles(timeframe === "4h" ? aggregateCandles(oldestFirst, span) : oldestFirst, query);
    },
    async ticker() {
      const [ticker, stats] = await allSettledOrThrow([
        client.get(`${COINBASE_PRODUCT}/ticker`, {}, { ttlMs: SPOT_TTL_MS.ticker, decode: (answer) => asObject(okBody(answer, coinbaseMessage), "ticker") }),
        client.get(`${COINBASE_PRODUCT}/stats`, {}, { ttlMs: SPOT_TTL_MS.ticker, decode: (answer) => asObject(okBody(answer, coinbaseMessage), "stats") }),
      ]);
      const price = asNumber(ticker.price, "price");
      const open = asNumber(stats.open, "stats open");
      return {
        venue: "coinbase",
        time: Date.parse(String(ticker.time)) || now(),
        price,
        bid: asNumber(ticker.bid, "bid"),
        ask: asNumber(ticker.ask, "ask"),
        volume24h: asNumber(ticker.volume, "volume"),
        change24hPct: changePct(open, price),
      };
    },
    async orderBook(depth) {
      return fetchBook(client, "coinbase", depth, `${COINBASE_PRODUCT}/book`, { level: 2 }, (answer) => {
        const body = asObject(okBody(answer, coinbaseMessage), "book");
        return { time: Date.parse(String(body.time)) || now(), sides: body };
      });
    },
  };
}

// ---- Kraken ----------------------------------------------------------------------------------

const KRAKEN_PAIR = "XBTUSD";
const KRAKEN_INTERVAL: Record<Timeframe, number> = { "1m": 1, "1h": 60, "4h": 240, "1d": 1440 };
/** Kraken answers at most the 720 most recent candles of an interval, whatever `since` says. */
const KRAKEN_MAX_CANDLES = 720;

/**
 * Kraken's envelope: `{error: [...], result: {...}}`, errors arriving with HTTP 200. `EAPI:Rate limit
 * exceeded` and `EService:Busy|Unavailable` are throttles; any other error is a protocol error.
 */
function krakenResult(answer: UpstreamAnswer): Record<string, unknown> {
  const body = asObject(answer.body, "kraken answer");
  const errors = Array.isArray(body.error) ? body.error.map(String) : [];
  if (errors.some((error) => error.startsWith("EAPI:Rate limit") || error.startsWith("EService:")))
    throw new UpstreamThrottledSignal(`throttled: ${errors.join(", ")}`);
  if (errors.length || answer.status >= 400) throw new UpstreamProtocolError(errors.length ? errors.join(", ") : `HTTP ${answer.status}`);
  return asObject(body.result, "result");
}

/** The pair's entry of a Kraken result, whatever its name (`XXBTZUSD` for XBTUSD); `last` is not a pair. */
function krakenPair(result: Record<string, unknown>): unknown {
  const key = Object.keys(result).find((name) => name !== "last");
  if (!key) throw new UpstreamProtocolError("result names no pair");
  return result[key];
}

/** Kraken: `/0/public/OHLC` (oldest first, ≤ 720, has 4h), `/0/public/Ticker`, `/0/public/Depth`. */
export function kraken(client: UpstreamClient, now: () => number): SpotVenueAdapter {
  const adapter: SpotVenueAdapter = {
    venue: "kraken",
    async candles(timeframe, query) {
      const span = TIMEFRAME_MS[timeframe];
      const wanted = wantedCandles(timeframe, query, now(), KRAKEN_MAX_CANDLES);
      const end = query.end ?? now() + span;
      // One second before the oldest wanted open: Kraken answers candles after `since`.
      const since = Math.floor((Math.floor(end / span) * span - wanted * span) / 1000) - 1;
      const rows = await client.get(
        "/0/public/OHLC",
        { pair: KRAKEN_PAIR, interval: KRAKEN_INTERVAL[timeframe], since },
        {
          ttlMs: candleTtl(timeframe),
          decode: (answer) =>
            asArray(krakenPair(krakenResult(answer)), "ohlc").map((value, index): Candle => {
              const row = asArray(value, `ohlc[${index}]`);
              return {
                time: asNumber(row[0], "time") * 1000,
                open: asNumber(row[1], "open"),
                high: asNumber(row[2], "high"),
                low: asNumber(row[3], "low"),
                close: asNumber(row[4], "close"),
                volume: asNumber(row[6], "volume"),
              };
            }),
        },
      );
      return windowCandles(rows, { ...query, limit: query.limit ?? wanted });
    },
    async ticker() {
      // Kraken's ticker has no 24-hour open (`o` is today's UTC open): the change is against the
      // open of the hourly candle 24 hours back.
      const [body, hourly] = await allSettledOrThrow([
        client.get(
          "/0/public/Ticker",
          { pair: KRAKEN_PAIR },
          { ttlMs: SPOT_TTL_MS.ticker, decode: (answer) => asObject(krakenPair(krakenResult(answer)), "ticker") },
        ),
        adapter.candles("1h", { limit: 25 }),
      ]);
      const price = asNumber(asArray(body.c, "c")[0], "last trade");
      const open = hourly.length ? hourly[0].open : price;
      return {
        venue: "kraken",
        time: now(),
        price,
        bid: asNumber(asArray(body.b, "b")[0], "bid"),
        ask: asNumber(asArray(body.a, "a")[0], "ask"),
        volume24h: asNumber(asArray(body.v, "v")[1], "24h volume"),
        change24hPct: changePct(open, price),
      };
    },
    async orderBook(depth) {
      return fetchBook(client, "kraken", depth, "/0/public/Depth", { pair: KRAKEN_PAIR, count: Math.min(500, depth) }, (answer) => {
        const book = asObject(krakenPair(krakenResult(answer)), "depth");
        return { time: now(), sides: book };
      });
    },
  };
  return adapter;
}

// ---- Bitstamp --------------------------------------------------------------------------------

const BITSTAMP_STEP: Record<Timeframe, number> = { "1m": 60, "1h": 3600, "4h": 14400, "1d": 86400 };

function bitstampMessage(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const detail = record.reason ?? record.errors ?? record.code;
  return detail === undefined ? undefined : typeof detail === "string" ? detail : JSON.stringify(detail);
}

/** Bitstamp: `/api/v2/ohlc/btcusd/` (oldest first, ≤ 1000, has 4h), `/api/v2/ticker/btcusd/`, `/api/v2/order_book/btcusd/`. */
export function bitstamp(client: UpstreamClient, now: () => number): SpotVenueAdapter {
  return {
    venue: "bitstamp",
    async candles(timeframe, query) {
      const limit = wantedCandles(timeframe, query, now(), 1000);
      const rows = await client.get(
        "/api/v2/ohlc/btcusd/",
        { step: BITSTAMP_STEP[timeframe], limit, end: query.end !== undefined ? Math.floor((query.end - 1) / 1000) : undefined },
        {
          ttlMs: candleTtl(timeframe),
          decode: (answer) => {
            const body = asObject(okBody(answer, bitstampMessage), "ohlc");
            if (body.status === "error") throw new UpstreamProtocolError(bitstampMessage(body) ?? "error");
            return asArray(asObject(body.data, "data").ohlc, "data.ohlc").map((value, index): Candle => {
              const row = asObject(value, `ohlc[${index}]`);
              return {
                time: asNumber(row.timestamp, "timestamp") * 1000,
                open: asNumber(row.open, "open"),
                high: asNumber(row.high, "high"),
                low: asNumber(row.low, "low"),
                close: asNumber(row.close, "close"),
                volume: asNumber(row.volume, "volume"),
              };
            });
          },
        },
      );
      return windowCandles(rows, query);
    },
    async ticker() {
      return client.get(
        "/api/v2/ticker/btcusd/",
        {},
        {
          ttlMs: SPOT_TTL_MS.ticker,
          decode: (answer) => {
            const body = asObject(okBody(answer, bitstampMessage), "ticker");
            return {
              venue: "bitstamp" as const,
              time: asNumber(body.timestamp, "timestamp") * 1000,
              price: asNumber(body.last, "last"),
              bid: asNumber(body.bid, "bid"),
              ask: asNumber(body.ask, "ask"),
              volume24h: asNumber(body.volume, "volume"),
              change24hPct: asNumber(body.percent_change_24, "percent_change_24"),
            };
          },
        },
      );
    },
    async orderBook(depth) {
      return fetchBook(client, "bitstamp", depth, "/api/v2/order_book/btcusd/", {}, (answer) => {
        const body = asObject(okBody(answer, bitstampMessage), "order book");
        return { time: Math.floor(asNumber(body.microtimestamp ?? Number(body.timestamp) * 1e6, "microtimestamp") / 1000), sides: body };
      });
    },
  };
}

// ---- OKX -------------------------------------------------------------------------------------

const OKX_INSTRUMENT = "BTC-USDT";
/** OKX bars; `1Dutc` because OKX's plain `1D` is aligned to Hong Kong midnight. 4H boundaries are UTC-aligned either way. */
const OKX_BAR: Record<Timeframe, string> = { "1m": "1m", "1h": "1H", "4h": "4H", "1d": "1Dutc" };

/** OKX's envelope: `{code: "0", msg: "", data: [...]}`; 50011 is its rate limit, other codes are errors. */
function okxData(answer: UpstreamAnswer): unknown[] {
  const body = asObject(answer.body, "okx answer");
  const code = String(body.code ?? "");
  if (code === "50011" || code === "50061") throw new UpstreamThrottledSignal(`rate limited: code ${code} (${String(body.msg ?? "")})`);
  if (code !== "0") throw new UpstreamProtocolError(`code ${code}: ${String(body.msg ?? "")}`);
  return asArray(body.data, "data");
}

/** OKX: `/api/v5/market/candles` (newest first, ≤ 300), `/api/v5/market/ticker`, `/api/v5/market/books` (≤ 400 a side). */
export function okx(client: UpstreamClient, now: () => number): SpotVenueAdapter {
  return {
    venue: "okx",
    async candles(timeframe, query) {
      const limit = wantedCandles(timeframe, query, now(), 300);
      const rows = await client.get(
        "/api/v5/market/candles",
        { instId: OKX_INSTRUMENT, bar: OKX_BAR[timeframe], limit, after: query.end },
        {
          ttlMs: candleTtl(timeframe),
          decode: (answer) =>
            okxData(answer).map((value, index): Candle => {
              const row = asArray(value, `candle[${index}]`);
              return {
                time: asNumber(row[0], "ts"),
                open: asNumber(row[1], "o"),
                high: asNumber(row[2], "h"),
                low: asNumber(row[3], "l"),
                close: asNumber(row[4], "c"),
                volume: asNumber(row[5], "vol"),
              };
            }),
        },
      );
      return windowCandles(rows, query);
    },
    async ticker() {
      return client.get(
        "/api/v5/market/ticker",
        { instId: OKX_INSTRUMENT },
        {
          ttlMs: SPOT_TTL_MS.ticker,
          decode: (answer) => {
            const body = asObject(okxData(answer)[0], "ticker");
            const price = asNumber(body.last, "last");
            const open = asNumber(body.open24h, "open24h");
            return {
              venue: "okx" as const,
              time: asNumber(body.ts, "ts"),
              price,
              bid: asNumber(body.bidPx, "bidPx"),
              ask: asNumber(body.askPx, "askPx"),
              volume24h: asNumber(body.vol24h, "vol24h"),
              change24hPct: changePct(open, price),
            };
          },
        },
      );
    },
    async orderBook(depth) {
      return fetchBook(client, "okx", depth, "/api/v5/market/books", { instId: OKX_INSTRUMENT, sz: Math.min(400, depth) }, (answer) => {
        const book = asObject(okxData(answer)[0], "books");
        return { time: asNumber(book.ts, "ts"), sides: book };
      });
    },
  };
}
