// Submissions per client IP (spec 4.4 is unauthenticated, so this is its only brake): a fixed
// one-hour window of LISTING_SUBMISSIONS_PER_HOUR in the KeyValueStore (Redis when configured, so
// every web instance shares it). Every POST counts, valid or not: probing with bad bodies costs too.
import { rateLimitClient } from "@/lib/client-address.ts";
import { AppError } from "@/lib/errors/index.ts";
import type { KeyValueStore } from "@/lib/store/types.ts";

const hour = 3_600_000;

/** Counts one submission of `ip`; throws 429 (details.retryAfterSeconds) past `perHour`. */
export async function countListingSubmission(options: { store: KeyValueStore; ip: string; perHour: number }): Promise<void> {
  const client = rateLimitClient(options.ip);
  const { count, ttlMs } = await options.store.increment(`listings:submit:${client}`, hour);
  if (count <= options.perHour) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
  throw new AppError("rate_limited", `Too many listing submissions (${options.perHour} per hour per client address); retry in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });
}
