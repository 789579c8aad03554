// The worker's listing-reviews job: claims due listings (FOR UPDATE SKIP LOCKED plus a lease on the
// row, so two workers never review one listing at once, and a review lost with its worker is taken
// up again once the lease lapses), reviews each (./review-listing.ts), records the decision only while
// it still holds the claim, then e-mails the result to the contact address. A decided listing whose
// mail failed stays due for its mail alone (never reviewed again) for up to a day.
import { randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import type { Config } from "@/lib/config/index.ts";
import type { PrismaClient } from "@/lib/db/client.ts";
import type { Logger } from "@/lib/logging/logger.ts";
import { deliverMail } from "@/lib/mail/deliver-mail.ts";
import { listingReviewMail } from "./review-mail.ts";
import { REVIEW_DEADLINE_MS, reviewListing, type ReviewOutcome, type ReviewPayer } from "./review-listing.ts";
import { listingEndpointSchema, type ListingEndpoint, type ListingFinding } from "./schemas.ts";

/** Reviews one claim may take before another worker may take the listing over (the deadline plus slack). */
export const REVIEW_LEASE_MS = REVIEW_DEADLINE_MS + 60_000;
/** Claims of one listing whose review failed on our side before it is rejected with a finding saying so. */
export const MAX_REVIEW_ATTEMPTS = 3;
/** Listings one pass claims (each review is bounded by REVIEW_DEADLINE_MS; they run side by side). */
export const REVIEWS_PER_PASS = 2;
/** How long after the decision a failed result mail is retried, and how often. */
export const MAIL_RETRY_WINDOW_MS = 24 * 3_600_000;
export const MAIL_RETRY_DELAY_MS = 5 * 60_000;

export type RunListingReviewsOptions = {
  prisma: PrismaClient;
  config: Pick<Config, "listingReviewBudgetSats" | "listingDenyList" | "smtpUrl" | "emailFrom" | "devMailbox" | "apiUrl">;
  /** The SSRF-pinned dispatcher (./review-dispatcher.ts). */
  dispatcher: Dispatcher;
  payer: ReviewPayer | null;
  log: Logger;
  /** Test hooks: the review's limits. */
  deadlineMs?: number;
  requestTimeoutMs?: number;
};

type ClaimedListing = {
  id: string;
  slug: string;
  name: string;
  description: string;
  tags: string[];
  gatewayUrl: string;
  contactEmail: string;
  endpoints: unknown;
  status: "pending" | "approved" | "rejected" | "suspended";
  reviewNotes: string | null;
  findings: unknown;
  reviewedAt: Date | null;
  reviewAttempts: number;
};

/** Claims up to `limit` due listings for `claim`; each claim counts a review attempt unless only the mail is due. */
export async function claimDueListings(prisma: PrismaClient, claim: string, limit: number, leaseMs = REVIEW_LEASE_MS): Promise<ClaimedListing[]> {
  return prisma.$queryRaw<ClaimedListing[]>`
    UPDATE "ExternalListing" l SET "reviewClaim" = ${claim},
      "reviewLockedUntil" = now() + ${leaseMs}::double precision * interval '1 millisecond',
      "reviewDueAt" = now() + ${leaseMs}::double precision * interval '1 millisecond',
      "reviewAttempts" = l."reviewAttempts" + CASE WHEN l."reviewedAt" IS NULL THEN 1 ELSE 0 END,
      "updatedAt" = now()
    WHERE l."id" IN (
      SELECT "id" FROM "ExternalListing"
      WHERE "reviewDueAt" <= now() AND ("reviewLockedUntil" IS NULL OR "reviewLockedUntil" < now())
      ORDER BY "reviewDueAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      AND l."reviewDueAt" <= now() AND (l."reviewLockedUntil" IS NULL OR l."reviewLockedUntil" < now())
    RETURNING l."id", l."slug", l."name", l."description", l."tags", l."gatewayUrl", l."contactEmail", l."endpoints", l."status",
      l."reviewNotes", l."findings", l."reviewedAt", l."reviewAttempts"`;
}

/** Stores the decision while `claim` still holds the listing and it is still pending; false when it lost the claim. */
async function recordDecision(prisma: PrismaClient, listing: ClaimedListing, claim: string, outcome: ReviewOutcome): Promise<boolean> {
  const written = await prisma.$executeRaw`
    UPDATE "ExternalListing" SET "status" = ${outcome.decision}::"ListingStatus", "reviewNotes" = ${outcome.summary},
      "findings" = ${JSON.stringify(outcome.findings)}::jsonb, "endpoints" = ${JSON.stringify(outcome.endpoints)}::jsonb,
      "reviewedAt" = now(), "updatedAt" = now()
    WHERE "id" = ${listing.id} AND "reviewClaim" = ${claim} AND "status" = 'pending'`;
  return written === 1;
}

/** Releases the claim: done (nothing more due), or due again after `retryInMs`. */
async function release(prisma: PrismaClient, id: string, claim: string, next: { notified: boolean; retryInMs: number | null }): Promise<void> {
  await prisma.$executeRaw`
    UPDATE "ExternalListing" SET "reviewClaim" = NULL, "reviewLockedUntil" = NULL,
      "reviewDueAt" = CASE WHEN ${next.retryInMs}::double precision IS NULL THEN NULL
        ELSE now() + ${next.retryInMs}::double precision * interval '1 millisecond' END,
      "notifiedAt" = CASE WHEN ${next.notified}::boolean THEN now() ELSE "notifiedAt" END, "updatedAt" = now()
    WHERE "id" = ${id} AND "reviewClaim" = ${claim}`;
}

function submittedEndpoints(value: unknown): ListingEndpoint[] {
  return Array.isArray(value) ? value.flatMap((e) => listingEndpointSchema.safeParse(e).data ?? []) : [];
}

/** One pass of the job: claim, review, record, mail. Returns how many listings it decided. */
export async function runListingReviews(options: RunListingReviewsOptions): Promise<{ decided: number; mailed: number }> {
  const claim = randomUUID();
  const claimed = await claimDueListings(options.prisma, claim, REVIEWS_PER_PASS);
  const results = await Promise.all(claimed.map((listing) => reviewClaimed(options, listing, claim)));
  return { decided: results.filter((r) => r.decided).length, mailed: results.filter((r) => r.mailed).length };
}

async function reviewClaimed(options: RunListingReviewsOptions, listing: ClaimedListing, claim: string): Promise<{ decided: boolean; mailed: boolean }> {
  const { prisma, log } = options;
  let decision: { status: string; summary: string; findings: ListingFinding[] };
  let decided = false;
  if (listing.reviewedAt) {
    // Decided earlier; only the mail is due.
    if (Date.now() - listing.reviewedAt.getTime() > MAIL_RETRY_WINDOW_MS) {
      log.warn("listing review mail given up", { slug: listing.slug });
      await release(prisma, listing.id, claim, { notified: false, retryInMs: null });
      return { decided: false, mailed: false };
    }
    decision = {
      status: listing.status,
      summary: listing.reviewNotes ?? "",
      findings: Array.isArray(listing.findings) ? (listing.findings as ListingFinding[]) : [],
    };
  } else {
    let outcome: ReviewOutcome;
    try {
      outcome = await reviewListing({
        listing: { ...listing, endpoints: submittedEndpoints(listing.endpoints) },
        dispatcher: options.dispatcher,
        payer: options.payer,
        budgetSats: options.config.listingReviewBudgetSats,
        denyList: options.config.listingDenyList,
        deadlineMs: options.deadlineMs,
        requestTimeoutMs: options.requestTimeoutMs,
      });
    } catch (error) {
      log.error("listing review failed", { slug: listing.slug, attempt: listing.reviewAttempts, error });
      if (listing.reviewAttempts < MAX_REVIEW_ATTEMPTS) {
        await release(prisma, listing.id, claim, { notified: false, retryInMs: 60_000 * listing.reviewAttempts });
        return { decided: false, mailed: false };
      }
      const message = `the review could not complete after ${MAX_REVIEW_ATTEMPTS} attempts (${(error as Error).message}); submit the listing again or contact the operator`;
      outcome = {
        decision: "rejected",
        summary: `Rejected: ${message}`,
        findings: [{ check: "review", endpoint: null, outcome: "fail", message }],
        endpoints: submittedEndpoints(listing.endpoints),
      };
    }
    if (!(await recordDecision(prisma, listing, claim, outcome))) {
      log.warn("listing review outcome not recorded: the claim lapsed or the listing changed meanwhile", { slug: listing.slug });
      return { decided: false, mailed: false };
    }
    decided = true;
    log.info("listing reviewed", { slug: listing.slug, decision: outcome.decision, failures: outcome.findings.filter((f) => f.outcome === "fail").length });
    decision = { status: outcome.decision, summary: outcome.summary, findings: outcome.findings };
  }

  try {
    const statusUrl = `${options.config.apiUrl}/external-listings/${listing.slug}/status`;
    const content = listingReviewMail({ slug: listing.slug, name: listing.name, gatewayUrl: listing.gatewayUrl, statusUrl, ...decision });
    await deliverMail({ config: options.config, prisma, log, to: listing.contactEmail, content });
    await release(prisma, listing.id, claim, { notified: true, retryInMs: null });
    return { decided, mailed: true };
  } catch (error) {
    log.error("listing review mail not sent; retrying later", { slug: listing.slug, error });
    await release(prisma, listing.id, claim, { notified: false, retryInMs: MAIL_RETRY_DELAY_MS });
    return { decided, mailed: false };
  }
}
