// Binance USDⓈ-M futures, BTCUSDT perpetual: funding and mark/index from `/fapi/v1/premiumIndex`,
// open interest from `/fapi/v1/openInterest`, and forced liquidations from the public WebSocket
// stream `<ws>/ws/btcusdt@forceOrder`, reconnected with exponential backoff. The live source knows
// only the liquidations the stream delivered since it connected (Binance offers no key-less history);
// it keeps them for `LIQUIDATION_RETENTION_MS`.
import { createHash } from "node:crypto";
import WebSocket from "ws";
import { DERIVATIVES_VENUE, PERP_SYMBOL, type FundingRate, type Liquidation, type OpenInterest } from "../types.ts";
import { allSettledOrThrow } from "./errors.ts";
import { asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, type UpstreamAnswer, type UpstreamClient } from "./upstream-client.ts";

/** Cache lifetimes: funding moves with the mark price (1 s upstream), open interest is refreshed by Binance about every few seconds. */
export const FUTURES_TTL_MS = { premiumIndex: 5_000, openInterest: 10_000 } as const;
/** How long seen liquidations are kept: the longest `window_hours` (72) plus an hour. */
export const LIQUIDATION_RETENTION_MS = 73 * 3_600_000;
const LIQUIDATION_MAX_KEPT = 200_000;

function futuresBody(answer: UpstreamAnswer, what: string): Record<string, unknown> {
  const body = asObject(answer.body, what);
  if (answer.status >= 400) throw new UpstreamProtocolError(`HTTP ${answer.status}: ${String(body.msg ?? "")} (code ${String(body.code ?? "")})`);
  return body;
}

/** Funding per 8-hour interval (`lastFundingRate`, the rate of the interval now running) with mark and index price. */
export async function fetchFunding(client: UpstreamClient): Promise<FundingRate> {
  return client.get(
    "/fapi/v1/premiumIndex",
    { symbol: PERP_SYMBOL },
    {
      ttlMs: FUTURES_TTL_MS.premiumIndex,
      decode: (answer) => {
        const body = futuresBody(answer, "premiumIndex");
        return {
          venue: DERIVATIVES_VENUE,
          symbol: PERP_SYMBOL,
          time: asNumber(body.time, "time"),
          rate: asNumber(body.lastFundingRate, "lastFundingRate"),
          nextFundingTime: asNumber(body.nextFundingTime, "nextFundingTime"),
          markPrice: asNumber(body.markPrice, "markPrice"),
          indexPrice: asNumber(body.indexPrice, "indexPrice"),
        };
      },
    },
  );
}

/** Open interest in BTC; its USD value at the mark price of the same moment (`premiumIndex`). */
export async function fetchOpenInterest(client: UpstreamClient): Promise<OpenInterest> {
  const [interest, funding] = await allSettledOrThrow([
    client.get(
      "/fapi/v1/openInterest",
      { symbol: PERP_SYMBOL },
      {
        ttlMs: FUTURES_TTL_MS.openInterest,
        decode: (answer) => {
          const body = futuresBody(answer, "openInterest");
          return { size: asNumber(body.openInterest, "openInterest"), time: asNumber(body.time, "time") };
        },
      },
    ),
    fetchFunding(client),
  ]);
  return { venue: DERIVATIVES_VENUE, symbol: PERP_SYMBOL, time: interest.time, size: interest.size, valueUsd: interest.size * funding.markPrice };
}

/**
 * A `forceOrder` event as Binance documents it: `{"e":"forceOrder","E":…,"o":{"s":"BTCUSDT","S":"SELL",
 * "q":"0.014","p":"9910","ap":"9910","X":"FILLED","T":…}}`. The order's side is the liquidation's side:
 * BUY buys back a short (a short was liquidated), SELL sells a long. Price is the average fill `ap`,
 * else the order price `p`. Null for anything else (other symbols, malformed frames).
 */
export function parseForceOrder(raw: string): Liquidation | null {
  let event: unknown;
  try {
    event = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!event || typeof event !== "object" || (event as { e?: unknown }).e !== "forceOrder") return null;
  const order = (event as { o?: unknown }).o;
  if (!order || typeof order !== "object") return null;
  const o = order as Record<string, unknown>;
  if (o.s !== PERP_SYMBOL || (o.S !== "BUY" && o.S !== "SELL")) return null;
  try {
    const size = asNumber(o.q, "q");
    const average = Number(o.ap);
    const price = average > 0 ? average : asNumber(o.p, "p");
    const time = asNumber(o.T, "T");
    const id = `bnf-${createHash("sha256")
      .update(`${time}|${o.S}|${String(o.q)}|${String(o.p)}|${String(o.ap)}`)
      .digest("hex")
      .slice(0, 16)}`;
    return { id, venue: DERIVATIVES_VENUE, symbol: PERP_SYMBOL, side: o.S, size, price, valueUsd: size * price, time };
  } catch {
    return null;
  }
}

export interface LiquidationStreamOptions {
  /** The stream's base, e.g. `wss://fstream.binance.com`; `/ws/btcusdt@forceOrder` is appended. */
  baseUrl: string;
  now: () => number;
  /** First reconnect delay; doubles per failed attempt up to `maxReconnectMs`, back to the base once connected. */
  reconnectBaseMs?: number;
  maxReconnectMs?: number;
  onError?: (error: Error) => void;
}

/** The `forceOrder` stream: connects, keeps what it sees, fans it out, and reconnects when dropped. */
export class LiquidationStream {
  private socket: WebSocket | null = null;
  private readonly seen: Liquidation[] = [];
  private readonly ids = new Set<string>();
  private readonly listeners = new Set<(event: Liquidation) => void>();
  private attempts = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** When the current connection opened (null while disconnected) and when the first one did. */
  connectedAt: number | null = null;
  firstConnectedAt: number | null = null;
  /** Connections opened so far: the tests read it to see a reconnect. */
  connections = 0;
  lastError: string | null = null;

  constructor(private readonly options: LiquidationStreamOptions) {}

  start(): void {
    if (this.socket || this.closed) return;
    const url = `${this.options.baseUrl.replace(/\/+$/, "")}/ws/btcusdt@forceOrder`;
    const socket = new WebSocket(url, { handshakeTimeout: 10_000 });
    this.socket = socket;
    socket.on("open", () => {
      this.attempts = 0;
      this.connections += 1;
      this.connectedAt = this.options.now();
      this.firstConnectedAt ??= this.connectedAt;
    });
    socket.on("message", (data) => this.receive(data.toString()));
    socket.on("error", (error) => {
      this.lastError = error.message;
      this.options.onError?.(error);
    });
    socket.on("close", () => {
      this.socket = null;
      this.connectedAt = null;
      this.scheduleReconnect();
    });
  }

  /** Listeners get every new liquidation; the returned function unsubscribes. */
  subscribe(listener: (event: Liquidation) => void): () => void {
    this.listeners.add(listener);
    this.start();
    return () => this.listeners.delete(listener);
  }

  /** Seen liquidations with `since <= time < until`, oldest first. */
  between(since: number, until: number): Liquidation[] {
    return this.seen.filter((event) => event.time >= since && event.time < until);
  }

  status(): { connected: boolean; since: number | null; lastError: string | null } {
    return { connected: this.connectedAt !== null, since: this.firstConnectedAt, lastError: this.lastError };
  }

  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    await new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.CLOSED) return resolve();
      socket.once("close", () => resolve());
      socket.terminate();
    });
  }

  private receive(raw: string): void {
    const event = parseForceOrder(raw);
    if (!event || this.ids.has(event.id)) return;
    this.ids.add(event.id);
    // Binance sends events in time order; insert in place should one arrive late.
    let index = this.seen.length;
    while (index > 0 && this.seen[index - 1].time > event.time) index -= 1;
    this.seen.splice(index, 0, event);
    this.prune();
    for (const listener of this.listeners) listener(event);
  }

  private prune(): void {
    const horizon = this.options.now() - LIQUIDATION_RETENTION_MS;
    let drop = 0;
    while (drop < this.seen.length && (this.seen[drop].time < horizon || this.seen.length - drop > LIQUIDATION_MAX_KEPT)) drop += 1;
    for (const event of this.seen.splice(0, drop)) this.ids.delete(event.id);
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer) return;
    const base = this.options.reconnectBaseMs ?? 1_000;
    const delay = Math.min(this.options.maxReconnectMs ?? 60_000, base * 2 ** this.attempts);
    this.attempts += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start();
    }, delay);
    this.timer.unref();
  }
}
