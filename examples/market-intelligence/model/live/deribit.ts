// Deribit's public options book (`/api/v2/public/get_book_summary_by_currency?currency=BTC&kind=option`,
// plus `/api/v2/public/get_index_price?index_name=btc_usd`) reduced to the model's summary: ATM IV
// and a 25-delta risk reversal of the front expiry, put/call open-interest ratio, and max pain per
// expiry. Deltas are not in the book summary, so they are computed with Black-76 from each option's
// `mark_iv` and `underlying_price` (the expiry's forward): an approximation, documented as such.
import { OPTIONS_VENUE, type OptionsSummary } from "../types.ts";
import { allSettledOrThrow } from "./errors.ts";
import { asArray, asNumber, asObject } from "./decode.ts";
import { UpstreamProtocolError, UpstreamThrottledSignal, type UpstreamAnswer, type UpstreamClient } from "./upstream-client.ts";

export const DERIBIT_TTL_MS = { bookSummary: 60_000, index: 5_000 } as const;
/** The front expiry is the nearest one at least this far away (an expiry on its last day prices little but gamma). */
const FRONT_MIN_MS = 86_400_000;
const YEAR_MS = 365 * 86_400_000;
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** Deribit's JSON-RPC envelope over HTTP: `{jsonrpc, result}` or `{jsonrpc, error: {code, message}}`; 10028 is `too_many_requests`. */
function deribitResult(answer: UpstreamAnswer): unknown {
  const body = asObject(answer.body, "deribit answer");
  if (body.error) {
    const error = asObject(body.error, "error");
    if (Number(error.code) === 10028) throw new UpstreamThrottledSignal(`too_many_requests (code 10028)`);
    throw new UpstreamProtocolError(`error ${String(error.code)}: ${String(error.message)}`);
  }
  if (answer.status >= 400) throw new UpstreamProtocolError(`HTTP ${answer.status}`);
  return body.result;
}

export interface DeribitOption {
  name: string;
  expiry: number;
  strike: number;
  kind: "call" | "put";
  openInterest: number;
  markIv: number;
  underlyingPrice: number;
}

/** `BTC-27DEC24-60000-C` → expiry (08:00 UTC of that day, Deribit's settlement time), strike, kind; null if not an option name. */
export function parseInstrument(name: string): { expiry: number; strike: number; kind: "call" | "put" } | null {
  const match = /^BTC-(\d{1,2})([A-Z]{3})(\d{2})-(\d+(?:d\d+)?)-([CP])$/.exec(name);
  if (!match) return null;
  const month = MONTHS.indexOf(match[2]);
  if (month < 0) return null;
  return {
    expiry: Date.UTC(2000 + Number(match[3]), month, Number(match[1]), 8),
    strike: Number(match[4].replace("d", ".")),
    kind: match[5] === "C" ? "call" : "put",
  };
}

function normalCdf(x: number): number {
  // Abramowitz & Stegun 7.1.26 (error below 1.5e-7): ample for choosing the 25-delta strikes.
  const t = 1 / (1 + 0.3275911 * Math.abs(x / Math.SQRT2));
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Black-76 delta on the forward: N(d1) for a call, N(d1) − 1 for a put. */
export function black76Delta(option: DeribitOption, now: number): number {
  const years = Math.max(1 / 365 / 24, (option.expiry - now) / YEAR_MS);
  const sigma = option.markIv;
  const d1 = (Math.log(option.underlyingPrice / option.strike) + (sigma * sigma * years) / 2) / (sigma * Math.sqrt(years));
  return option.kind === "call" ? normalCdf(d1) : normalCdf(d1) - 1;
}

/** The strike where option holders are paid least at expiry (sellers' "max pain"), over the listed strikes. */
export function maxPain(options: DeribitOption[]): number {
  const strikes = [...new Set(options.map((option) => option.strike))].sort((a, b) => a - b);
  let best = strikes[0] ?? 0;
  let bestPayout = Infinity;
  for (const settle of strikes) {
    let payout = 0;
    for (const option of options) payout += option.openInterest * Math.max(0, option.kind === "call" ? settle - option.strike : option.strike - settle);
    if (payout < bestPayout) [best, bestPayout] = [settle, payout];
  }
  return best;
}

/** ATM IV of one expiry: the mean mark IV of the call and put at the strike nearest the forward. */
function atmIv(options: DeribitOption[]): number {
  const forward = options[0].underlyingPrice;
  const nearest = options.reduce((a, b) => (Math.abs(b.strike - forward) < Math.abs(a.strike - forward) ? b : a)).strike;
  const atm = options.filter((option) => option.strike === nearest && option.markIv > 0);
  return atm.length ? atm.reduce((sum, option) => sum + option.markIv, 0) / atm.length : 0;
}

/** Reduces the book summary to the model's `OptionsSummary` at `now`. */
export function summarizeOptions(options: DeribitOption[], now: number): OptionsSummary {
  const live = options.filter((option) => option.expiry > now);
  if (!live.length) throw new UpstreamProtocolError("the book summary lists no unexpired BTC option");
  const byExpiry = new Map<number, DeribitOption[]>();
  for (const option of live) byExpiry.set(option.expiry, [...(byExpiry.get(option.expiry) ?? []), option]);
  const expiries = [...byExpiry.entries()]
    .sort(([a], [b]) => a - b)
    .map(([expiry, list]) => ({
      expiry,
      maxPain: maxPain(list),
      callOpenInterest: list.filter((option) => option.kind === "call").reduce((sum, option) => sum + option.openInterest, 0),
      putOpenInterest: list.filter((option) => option.kind === "put").reduce((sum, option) => sum + option.openInterest, 0),
      atmIv: atmIv(list),
    }));
  const front = expiries.find((entry) => entry.expiry - now >= FRONT_MIN_MS) ?? expiries[0];
  const frontOptions = (byExpiry.get(front.expiry) ?? []).filter((option) => option.markIv > 0);
  const closest = (kind: "call" | "put", target: number) =>
    frontOptions
      .filter((option) => option.kind === kind)
      .reduce<DeribitOption | null>((a, b) => (!a || Math.abs(black76Delta(b, now) - target) < Math.abs(black76Delta(a, now) - target) ? b : a), null);
  const call25 = closest("call", 0.25);
  const put25 = closest("put", -0.25);
  const calls = expiries.reduce((sum, entry) => sum + entry.callOpenInterest, 0);
  const puts = expiries.reduce((sum, entry) => sum + entry.putOpenInterest, 0);
  return {
    venue: OPTIONS_VENUE,
    time: now,
    atmIv: front.atmIv,
    skew25d: call25 && put25 ? call25.markIv - put25.markIv : 0,
    putCallRatio: calls > 0 ? puts / calls : 0,
    openInterestBtc: calls + puts,
    expiries,
  };
}

/** Fetches the book summary (and the index price, the forward's fallback) and summarizes it. */
export async function fetchOptionsSummary(client: UpstreamClient, now: number): Promise<OptionsSummary> {
  const [rows, index] = await allSettledOrThrow([
    client.get(
      "/api/v2/public/get_book_summary_by_currency",
      { currency: "BTC", kind: "option" },
      { ttlMs: DERIBIT_TTL_MS.bookSummary, decode: (answer) => asArray(deribitResult(answer), "result") },
    ),
    client.get(
      "/api/v2/public/get_index_price",
      { index_name: "btc_usd" },
      { ttlMs: DERIBIT_TTL_MS.index, decode: (answer) => asNumber(asObject(deribitResult(answer), "result").index_price, "index_price") },
    ),
  ]);
  const options: DeribitOption[] = [];
  for (const [position, value] of rows.entries()) {
    const row = asObject(value, `result[${position}]`);
    const name = String(row.instrument_name ?? "");
    const parsed = parseInstrument(name);
    if (!parsed) continue;
    const underlying = Number(row.underlying_price);
    options.push({
      name,
      ...parsed,
      openInterest: asNumber(row.open_interest ?? 0, `${name} open_interest`),
      markIv: asNumber(row.mark_iv ?? 0, `${name} mark_iv`) / 100,
      underlyingPrice: underlying > 0 ? underlying : index,
    });
  }
  return summarizeOptions(options, now);
}
