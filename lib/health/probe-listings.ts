// Health probes of external listings (spec 3.1: an approved listing "may be temporarily suspended"
// when its gateway is unreachable for an extended period). Each round probes every approved
// listing, and every listing health monitoring suspended, at its own gateway: one request per
// declared endpoint (or the gateway's base address when none is declared), UNSIGNED (the gateway
// is not ours and shares no secret with us) but marked as a probe with `X-Hub-Probe: 1`, through
// the SSRF-pinned dispatcher of WEBHOOK_ALLOWED_TARGETS (the policy the listing's gatewayUrl was
// accepted under).
//
// Rules (docs/listings-directory.md, docs/decisions.md):
// - A probe is healthy when the gateway answers with a status below 500 within the timeout (a 402
//   challenge is the normal answer of a priced endpoint); unreachable, timeout and 5xx are not.
//   A round is healthy when every probe of the listing was.
// - The listing keeps the start of its current run of failing rounds (`unhealthySince`) and of
//   healthy rounds (`healthySince`); a round of the other kind clears it.
// - approved -> suspended when every round for `suspendAfterHours` (LISTING_SUSPEND_AFTER_HOURS,
//   default 24) failed; suspended -> approved when every round for `recoverAfterHours`
//   (LISTING_RECOVER_AFTER_HOURS, default 1) succeeded, and only for a listing that health
//   monitoring itself suspended (`suspendedAt`). Each transition is one conditional UPDATE on the
//   status it leaves, so two workers probing at once make it once.
// - Time comes from the injected clock (`now`), as for the hosted health monitor.
import type { Dispatcher } from "undici";
import { Prisma, type PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { originTarget } from "@/lib/origin/origin-call.ts";
import { healthDefaults, probeRequest, Semaphore } from "./monitor.ts";

export type ListingProbeOptions = {
  prisma: PrismaClient;
  /** The SSRF-pinned dispatcher (createPinnedDispatcher with the webhook policy). */
  dispatcher: Dispatcher;
  log: Logger;
  /** LISTING_SUSPEND_AFTER_HOURS. */
  suspendAfterHours: number;
  /** LISTING_RECOVER_AFTER_HOURS. */
  recoverAfterHours: number;
  /** The health clock: sample days, the runs' starts and the transitions are judged at this instant. */
  now?: () => Date;
  /** Probes in flight at once across all listings. */
  concurrency?: number;
  /** Per-probe timeout. */
  timeoutMs?: number;
};

/** One round's outcome; `suspended` and `recovered` are the slugs this call moved. */
export type ListingRoundSummary = { listings: number; probed: number; unhealthy: number; suspended: string[]; recovered: string[] };

type ProbeOutcome = { ok: boolean; latencyMs: number | null };

/** Probes at most this many declared endpoints of one listing per round. */
export const maxProbesPerListing = 20;

/** The method and path of each declared endpoint (the stored spec 2.5 items), or the base address. */
export function listingProbeTargets(endpoints: unknown): { method: string; path: string }[] {
  const targets: { method: string; path: string }[] = [];
  for (const item of Array.isArray(endpoints) ? endpoints : []) {
    if (typeof item !== "object" || item === null) continue;
    const { path, method } = item as { path?: unknown; method?: unknown };
    if (typeof path !== "string" || !path) continue;
    targets.push({ method: typeof method === "string" && method ? method.toUpperCase() : "GET", path: path.startsWith("/") ? path : `/${path}` });
    if (targets.length === maxProbesPerListing) break;
  }
  return targets.length ? targets : [{ method: "GET", path: "/" }];
}

/** Probes every approved (and health-suspended) listing once and applies the transitions. */
export async function probeListings(options: ListingProbeOptions): Promise<ListingRoundSummary> {
  const { prisma } = options;
  const semaphore = new Semaphore(options.concurrency ?? healthDefaults.concurrency);
  const listings = await prisma.externalListing.findMany({
    where: { OR: [{ status: "approved" }, { status: "suspended", suspendedAt: { not: null } }] },
    select: { id: true, slug: true, gatewayUrl: true, endpoints: true },
    orderBy: { id: "asc" },
  });
  const summary: ListingRoundSummary = { listings: listings.length, probed: 0, unhealthy: 0, suspended: [], recovered: [] };
  await Promise.all(
    listings.map(async (listing) => {
      try {
        const outcomes = await Promise.all(
          listingProbeTargets(listing.endpoints).map((target) => semaphore.run(() => probeOne(options, listing.gatewayUrl, target))),
        );
        summary.probed += outcomes.length;
        summary.unhealthy += outcomes.filter((o) => !o.ok).length;
        const moved = await recordRound(options, listing.id, outcomes);
        if (moved === "suspended") summary.suspended.push(listing.slug);
        if (moved === "recovered") summary.recovered.push(listing.slug);
        if (moved) options.log.info(`external listing ${moved}`, { slug: listing.slug });
      } catch (err) {
        options.log.error("external listing probe failed", { slug: listing.slug, error: err });
      }
    }),
  );
  return summary;
}

/** One unsigned probe; the body is never read (headers decide, as for hosted endpoints). */
async function probeOne(options: ListingProbeOptions, gatewayUrl: string, target: { method: string; path: string }): Promise<ProbeOutcome> {
  const request = probeRequest({ endpointId: "", method: target.method, path: target.path, exampleRequest: {} });
  let where: { origin: string; path: string };
  try {
    where = originTarget(gatewayUrl, request.path, request.search);
  } catch {
    return { ok: false, latencyMs: null };
  }
  const timeoutMs = options.timeoutMs ?? healthDefaults.timeoutMs;
  const started = performance.now();
  try {
    const response = await options.dispatcher.request({
      origin: where.origin,
      path: where.path,
      method: target.method as Dispatcher.HttpMethod,
      headers: { "x-hub-probe": "1", "user-agent": "l402-hub-health/1" },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const latencyMs = Math.round(performance.now() - started);
    response.body.on("error", () => {});
    response.body.destroy();
    return { ok: response.statusCode < 500, latencyMs };
  } catch {
    return { ok: false, latencyMs: null };
  }
}

/** Records one round of a listing (its day and its runs), then tries its transition. */
async function recordRound(options: ListingProbeOptions, listingId: string, outcomes: ProbeOutcome[]): Promise<"suspended" | "recovered" | null> {
  const { prisma } = options;
  const now = (options.now ?? (() => new Date()))();
  const at = Prisma.sql`CAST(${now.toISOString()} AS timestamptz)`;
  const ok = outcomes.every((o) => o.ok);
  const timed = outcomes.filter((o) => o.ok && o.latencyMs !== null);
  await prisma.$transaction([
    prisma.$executeRaw(Prisma.sql`
      INSERT INTO "ExternalListingHealthDay" AS d ("listingId", "day", "total", "ok", "okLatencySum", "okLatencyCount", "lastOk", "lastCheckedAt")
      VALUES (${listingId}, CAST(${now.toISOString().slice(0, 10)} AS date), ${outcomes.length}, ${outcomes.filter((o) => o.ok).length},
        ${timed.reduce((sum, o) => sum + o.latencyMs!, 0)}, ${timed.length}, ${ok}, ${at})
      ON CONFLICT ("listingId", "day") DO UPDATE SET
        "total" = d."total" + EXCLUDED."total",
        "ok" = d."ok" + EXCLUDED."ok",
        "okLatencySum" = d."okLatencySum" + EXCLUDED."okLatencySum",
        "okLatencyCount" = d."okLatencyCount" + EXCLUDED."okLatencyCount",
        "lastOk" = CASE WHEN EXCLUDED."lastCheckedAt" >= d."lastCheckedAt" THEN EXCLUDED."lastOk" ELSE d."lastOk" END,
        "lastCheckedAt" = GREATEST(d."lastCheckedAt", EXCLUDED."lastCheckedAt")`),
    // A round older than the last one recorded (a slow worker) changes nothing about the runs.
    prisma.$executeRaw(Prisma.sql`
      UPDATE "ExternalListing" SET
        "lastProbeAt" = ${at},
        "lastHealthyAt" = CASE WHEN ${ok} THEN ${at} ELSE "lastHealthyAt" END,
        "healthySince" = CASE WHEN ${ok} THEN coalesce("healthySince", ${at}) ELSE NULL END,
        "unhealthySince" = CASE WHEN ${ok} THEN NULL ELSE coalesce("unhealthySince", ${at}) END
      WHERE "id" = ${listingId} AND ("lastProbeAt" IS NULL OR "lastProbeAt" <= ${at})`),
    // Days outside the quality window are never read again.
    prisma.$executeRaw(Prisma.sql`
      DELETE FROM "ExternalListingHealthDay" WHERE "listingId" = ${listingId} AND "day" < CAST(${new Date(now.getTime() - 8 * 86_400_000).toISOString().slice(0, 10)} AS date)`),
  ]);
  const hours = (n: number) => Prisma.sql`CAST(${new Date(now.getTime() - n * 3_600_000).toISOString()} AS timestamptz)`;
  if (!ok) {
    const suspended = await prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
      UPDATE "ExternalListing" SET "status" = 'suspended', "suspendedAt" = ${at}, "updatedAt" = ${at}
      WHERE "id" = ${listingId} AND "status" = 'approved' AND "unhealthySince" <= ${hours(options.suspendAfterHours)}
      RETURNING "id"`);
    return suspended.length ? "suspended" : null;
  }
  const recovered = await prisma.$queryRaw<{ id: string }[]>(Prisma.sql`
    UPDATE "ExternalListing" SET "status" = 'approved', "suspendedAt" = NULL, "updatedAt" = ${at}
    WHERE "id" = ${listingId} AND "status" = 'suspended' AND "suspendedAt" IS NOT NULL AND "healthySince" <= ${hours(options.recoverAfterHours)}
    RETURNING "id"`);
  return recovered.length ? "recovered" : null;
}
