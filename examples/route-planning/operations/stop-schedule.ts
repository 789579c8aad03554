// Time on the optimizers' clock: seconds after the request's departure, to and from ISO instants.

/** Seconds from `departure` to an ISO 8601 instant (negative when before it). */
export function secondsAfter(departure: Date, iso: string): number {
  return (Date.parse(iso) - departure.getTime()) / 1000;
}

/** The ISO 8601 instant (UTC, whole seconds) `seconds` after `departure`. */
export function isoAt(departure: Date, seconds: number): string {
  return new Date(Math.round(departure.getTime() / 1000 + seconds) * 1000).toISOString().replace(".000Z", "Z");
}
