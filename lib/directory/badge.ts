// The embeddable badge of a listed API (`{api_url}/badge/:slug.svg`, spec 4.3), rendered by
// badge-maker in shields.io's style (20 px high, role="img", aria-label and <title>). The message
// says what a call costs (or how many free endpoints there are) and whether the API is up, in
// words, so the colour is never the only carrier of the health state.
import { makeBadge } from "badge-maker";
import { z } from "zod";
import { describePriceRange } from "@/lib/pricing/describe-price.ts";
import type { DirectoryEntry } from "./schemas.ts";

export const badgeStyles = ["flat", "flat-square", "plastic", "for-the-badge", "social"] as const;

/** Query of the badge route: only the visual style may be chosen. */
export const badgeQuerySchema = z.object({ style: z.enum(badgeStyles).default("flat") });
export type BadgeQuery = z.output<typeof badgeQuerySchema>;

/** The health part of the message and the badge colour (shields.io named colours). */
function health(entry: DirectoryEntry): { word: string; color: string } {
  const { isHealthy, uptimePercentage } = entry.quality;
  if (uptimePercentage === null) return { word: "not checked yet", color: "blue" };
  const uptime = `${Number.isInteger(uptimePercentage) ? uptimePercentage : uptimePercentage.toFixed(1)}% up`;
  return isHealthy ? { word: uptime, color: "brightgreen" } : { word: `down · ${uptime}`, color: "red" };
}

/** What the badge says for an API: "1–10 sats · 99.5% up", "free · 2 endpoints · 100% up". */
export function badgeMessage(entry: DirectoryEntry): { message: string; color: string } {
  const priced = entry.endpoints.some((e) => e.pricingModel !== null);
  const cost = priced ? describePriceRange(entry.endpoints) : `free · ${entry.endpointCount} ${entry.endpointCount === 1 ? "endpoint" : "endpoints"}`;
  const state = health(entry);
  return { message: `${cost} · ${state.word}`, color: state.color };
}

/** The SVG of an API's badge, or of the "not listed" badge when `entry` is null. */
export function renderBadge(entry: DirectoryEntry | null, query: BadgeQuery = { style: "flat" }): string {
  if (!entry) return makeBadge({ label: "L402", message: "not listed", color: "lightgrey", style: query.style });
  const { message, color } = badgeMessage(entry);
  return makeBadge({ label: "L402", message, color, style: query.style });
}
