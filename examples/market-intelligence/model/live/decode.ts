// Small readers for upstream JSON: each throws `UpstreamProtocolError` naming what is off, so an
// upstream that changes its format reads as "unavailable: <what>" rather than NaN prices downstream.
import { UpstreamProtocolError } from "./upstream-client.ts";

export function asObject(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new UpstreamProtocolError(`${what} is not an object`);
  return value as Record<string, unknown>;
}

export function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new UpstreamProtocolError(`${what} is not an array`);
  return value;
}

/** A finite number from a number or a decimal string (exchanges send prices as strings). */
export function asNumber(value: unknown, what: string): number {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof number !== "number" || !Number.isFinite(number))
    throw new UpstreamProtocolError(`${what} is not a number (${JSON.stringify(value)?.slice(0, 40)})`);
  return number;
}

/** Book levels `[[price, size, ...], ...]` as they come from every venue, best first. */
export function asLevels(value: unknown, what: string, depth: number): Array<{ price: number; size: number }> {
  return asArray(value, what)
    .slice(0, depth)
    .map((level, index) => {
      const row = asArray(level, `${what}[${index}]`);
      return { price: asNumber(row[0], `${what}[${index}] price`), size: asNumber(row[1], `${what}[${index}] size`) };
    });
}
