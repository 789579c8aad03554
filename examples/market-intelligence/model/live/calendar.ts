// The live source's events calendar: only what follows from published rules, with no upstream.
// Deribit's monthly BTC options and futures expire on the last Friday of each month at 08:00 UTC
// (the quarterly ones in March, June, September and December carry more open interest); CME's
// monthly Bitcoin futures settle on the last Friday of the month too (at 16:00 London time, given
// here as 15:00 UTC, an approximation across daylight saving); US CPI, FOMC and other dated
// releases are not computable by rule and are left out.
import type { MarketEvent } from "../types.ts";

function lastFriday(year: number, month: number): Date {
  const last = new Date(Date.UTC(year, month + 1, 0));
  last.setUTCDate(last.getUTCDate() - ((last.getUTCDay() + 2) % 7));
  return last;
}

/** Rule-computed events in [now, now + horizonDays), earliest first. */
export function ruleBasedEvents(now: number, horizonDays: number): MarketEvent[] {
  const until = now + horizonDays * 86_400_000;
  const events: MarketEvent[] = [];
  const start = new Date(now);
  for (let offset = 0; ; offset += 1) {
    const year = start.getUTCFullYear() + Math.floor((start.getUTCMonth() + offset) / 12);
    const month = (start.getUTCMonth() + offset) % 12;
    const friday = lastFriday(year, month);
    const day = friday.toISOString().slice(0, 10);
    const quarterly = month % 3 === 2;
    const deribit = Date.UTC(year, month, friday.getUTCDate(), 8);
    const cme = Date.UTC(year, month, friday.getUTCDate(), 15);
    if (deribit >= until) break;
    if (deribit >= now)
      events.push({
        id: `deribit-expiry-${day}`,
        time: deribit,
        title: `Deribit ${quarterly ? "quarterly" : "monthly"} BTC options and futures expiry`,
        kind: "options_expiry",
        importance: quarterly ? "high" : "medium",
      });
    if (cme >= now && cme < until)
      events.push({
        id: `cme-expiry-${day}`,
        time: cme,
        title: "CME Bitcoin futures monthly settlement",
        kind: "futures_expiry",
        importance: quarterly ? "medium" : "low",
      });
  }
  return events.sort((a, b) => a.time - b.time);
}
