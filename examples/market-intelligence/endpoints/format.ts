// How answers write instants and numbers: ISO 8601 UTC, rounded to a fixed number of digits.
import { z } from "zod";

export function iso(time: number): string {
  return new Date(time).toISOString();
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export const isoSchema = z.iso.datetime().describe("ISO 8601 instant, UTC");
