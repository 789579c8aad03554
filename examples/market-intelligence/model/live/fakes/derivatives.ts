// Fakes of Binance USDⓈ-M futures (REST `/fapi/v1/premiumIndex`, `/fapi/v1/openInterest`, and the
// WebSocket stream `/ws/btcusdt@forceOrder` on the same port) and of Deribit's public options API
// (`get_book_summary_by_currency`, `get_index_price`, JSON-RPC envelopes), from the shared market.
import { WebSocketServer, type WebSocket } from "ws";
import { decimal, startHttpFake, type FakeAnswer, type HttpFake } from "./http-fake.ts";
import type { FakeMarket } from "./fake-market.ts";

export interface BinanceFuturesFake extends HttpFake {
  /** `ws://…` base of the stream, as `MARKET_LIVE_BINANCE_FUTURES_WS_URL` takes it. */
  readonly wsUrl: string;
  /** Stream connections accepted so far. */
  readonly connections: number;
  /** Open stream sockets now. */
  readonly openSockets: number;
  /** Sends a `forceOrder` event, exactly as Binance documents it, to every connected client. */
  emitForceOrder(order: { side: "BUY" | "SELL"; quantity: number; price: number; averagePrice?: number; time?: number; symbol?: string }): void;
  /** Sends a raw frame (malformed input tests). */
  emitRaw(text: string): void;
  /** Drops every stream connection without a close handshake, as a network cut would. */
  dropConnections(): void;
  /** Resolves once `count` connections have been accepted in total. */
  waitForConnections(count: number): Promise<void>;
}

/** Open interest the fake reports, BTC. */
export const FAKE_OPEN_INTEREST_BTC = 80_000;
/** Funding the fake reports per 8 h. */
export const FAKE_FUNDING_RATE = 0.0001;

export async function startBinanceFuturesFake(market: FakeMarket): Promise<BinanceFuturesFake> {
  const fake = await startHttpFake(
    (url) => {
      if (url.pathname !== "/fapi/v1/premiumIndex" && url.pathname !== "/fapi/v1/openInterest")
        return { status: 404, body: "<html><body><h1>404 Not found</h1></body></html>" };
      if (url.searchParams.get("symbol") !== "BTCUSDT") return { status: 400, body: { code: -1121, msg: "Invalid symbol." } };
      const now = market.now();
      const index = market.price(now);
      if (url.pathname === "/fapi/v1/openInterest") return { body: { openInterest: decimal(FAKE_OPEN_INTEREST_BTC, 3), symbol: "BTCUSDT", time: now } };
      const nextFunding = (Math.floor(now / 28_800_000) + 1) * 28_800_000;
      return {
        body: {
          symbol: "BTCUSDT",
          markPrice: decimal(index * 1.0003, 8),
          indexPrice: decimal(index, 8),
          estimatedSettlePrice: decimal(index, 8),
          lastFundingRate: decimal(FAKE_FUNDING_RATE, 8),
          interestRate: "0.00010000",
          nextFundingTime: nextFunding,
          time: now,
        },
      };
    },
    () => ({ "X-MBX-USED-WEIGHT-1M": "10" }),
  );
  const sockets = new Set<WebSocket>();
  let connections = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const wss = new WebSocketServer({ server: fake.server, path: "/ws/btcusdt@forceOrder" });
  wss.on("connection", (socket) => {
    sockets.add(socket);
    connections += 1;
    socket.on("close", () => sockets.delete(socket));
    for (const waiter of waiters.filter((entry) => connections >= entry.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const send = (text: string) => {
    for (const socket of sockets) socket.send(text);
  };
  const close = fake.close;
  return Object.assign(fake, {
    wsUrl: fake.url.replace(/^http/, "ws"),
    get connections() {
      return connections;
    },
    get openSockets() {
      return sockets.size;
    },
    emitForceOrder(order: { side: "BUY" | "SELL"; quantity: number; price: number; averagePrice?: number; time?: number; symbol?: string }) {
      const time = order.time ?? market.now();
      send(
        JSON.stringify({
          e: "forceOrder",
          E: time + 5,
          o: {
            s: order.symbol ?? "BTCUSDT",
            S: order.side,
            o: "LIMIT",
            f: "IOC",
            q: String(order.quantity),
            p: String(order.price),
            ap: String(order.averagePrice ?? order.price),
            X: "FILLED",
            l: String(order.quantity),
            z: String(order.quantity),
            T: time,
          },
        }),
      );
    },
    emitRaw: send,
    dropConnections() {
      for (const socket of sockets) socket.terminate();
    },
    waitForConnections(count: number) {
      return connections >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      await close();
    },
  });
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** Deribit's JSON-RPC error answer. */
export function deribitError(code: number, message: string, status = 400): FakeAnswer {
  return { status, body: { jsonrpc: "2.0", error: { message, code }, usIn: 0, usOut: 0, usDiff: 0, testnet: false } };
}
export const DERIBIT_RATE_LIMIT = deribitError(10028, "too_many_requests", 429);

/** The fake chain's expiries at `now`: the next four Fridays and the last Fridays of the next three months, 08:00 UTC. */
export function fakeExpiries(now: number): number[] {
  const out = new Set<number>();
  const day = new Date(now);
  const friday = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + ((5 - day.getUTCDay() + 7) % 7), 8);
  for (let week = 0; week < 4; week += 1) if (friday + week * 604_800_000 > now) out.add(friday + week * 604_800_000);
  for (let month = 1; month <= 3; month += 1) {
    const last = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + month + 1, 0, 8));
    last.setUTCDate(last.getUTCDate() - ((last.getUTCDay() + 2) % 7));
    out.add(last.getTime());
  }
  return [...out].sort((a, b) => a - b);
}

function instrumentName(expiry: number, strike: number, kind: "C" | "P"): string {
  const date = new Date(expiry);
  return `BTC-${date.getUTCDate()}${MONTHS[date.getUTCMonth()]}${String(date.getUTCFullYear()).slice(2)}-${strike}-${kind}`;
}

/** Deribit public API: the BTC option chain's book summary (a put-skewed smile) and the btc_usd index. */
export async function startDeribitFake(market: FakeMarket): Promise<HttpFake> {
  const envelope = (result: unknown): FakeAnswer => ({
    body: { jsonrpc: "2.0", result, usIn: market.now() * 1000, usOut: market.now() * 1000 + 120, usDiff: 120, testnet: false },
  });
  return startHttpFake((url) => {
    const now = market.now();
    const index = market.price(now);
    if (url.pathname === "/api/v2/public/get_index_price") {
      if (url.searchParams.get("index_name") !== "btc_usd") return deribitError(-32602, "Invalid params");
      return envelope({ index_price: index, estimated_delivery_price: index });
    }
    if (url.pathname !== "/api/v2/public/get_book_summary_by_currency") return deribitError(-32601, "Method not found", 400);
    if (url.searchParams.get("currency") !== "BTC") return deribitError(-32602, "Invalid params");
    if (url.searchParams.get("kind") !== "option") return deribitError(-32602, "Invalid params");
    const rows: unknown[] = [];
    for (const expiry of fakeExpiries(now)) {
      const forward = Math.round(index * (1 + 0.05 * ((expiry - now) / 31_536_000_000)) * 100) / 100;
      const atmStrike = Math.round(index / 1000) * 1000;
      for (let strike = atmStrike - 15_000; strike <= atmStrike + 15_000; strike += 1000) {
        const moneyness = Math.log(strike / forward);
        // A smile with put skew: lower strikes richer; open interest peaks at round thousands near the money.
        const iv = 50 - 30 * moneyness + 80 * moneyness * moneyness;
        for (const kind of ["C", "P"] as const) {
          const openInterest = Math.round((kind === "C" ? 120 : 90) * Math.exp(-Math.abs(strike - atmStrike) / 6000) * (strike % 5000 === 0 ? 2 : 1) * 10) / 10;
          rows.push({
            volume_usd: 1000,
            volume: 12.3,
            underlying_price: forward,
            underlying_index: `BTC-${instrumentName(expiry, 0, "C").split("-")[1]}`,
            quote_currency: "BTC",
            price_change: null,
            open_interest: openInterest,
            mid_price: 0.05,
            mark_price: 0.05,
            mark_iv: Math.round(iv * 100) / 100,
            low: 0.04,
            last: 0.05,
            interest_rate: 0,
            instrument_name: instrumentName(expiry, strike, kind),
            high: 0.06,
            estimated_delivery_price: index,
            creation_timestamp: now,
            bid_price: 0.049,
            base_currency: "BTC",
            ask_price: 0.051,
          });
        }
      }
    }
    return envelope(rows);
  });
}
