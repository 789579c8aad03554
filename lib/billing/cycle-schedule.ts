// When a tenant's trial ends and its 30-day cycles fall (spec 1.10, 8): pure date arithmetic.
// Boundaries sit on whole UTC hours, the grain of BillableUsage, so every served request belongs
// to exactly one cycle (docs/decisions.md "Billing").

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Length of one billing cycle. */
export const CYCLE_DAYS = 30;
/** Days a billing invoice may stay unpaid before the tenant is suspended (spec 3.2). */
export const PAYMENT_WINDOW_DAYS = 7;
/**
 * How long after a cycle's end it is closed: every gateway writes its counts every 2 s, so after
 * this the cycle's last hour holds everything it served.
 */
export const CLOSE_GRACE_MS = 5 * 60_000;

/** What the schedule needs of a tenant. */
export type TrialState = { trialStartedAt: Date | null; trialDays: number };

/** The hour an instant falls in. */
export function startOfHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

/**
 * When billing starts: the trial's end, counted from the hour the first endpoint was published;
 * null while the workspace is empty (free).
 */
export function billingStartsAt({ trialStartedAt, trialDays }: TrialState): Date | null {
  if (!trialStartedAt) return null;
  return new Date(startOfHour(trialStartedAt).getTime() + trialDays * DAY_MS);
}

/** The cycle that starts at `periodStart`. */
export function cycleFrom(periodStart: Date): { periodStart: Date; periodEnd: Date } {
  return { periodStart, periodEnd: new Date(periodStart.getTime() + CYCLE_DAYS * DAY_MS) };
}

/** The cycle `now` falls in, or null before billing starts. */
export function cycleAt(billingStart: Date, now: Date): { periodStart: Date; periodEnd: Date } | null {
  const elapsed = now.getTime() - billingStart.getTime();
  if (elapsed < 0) return null;
  const index = Math.floor(elapsed / (CYCLE_DAYS * DAY_MS));
  return cycleFrom(new Date(billingStart.getTime() + index * CYCLE_DAYS * DAY_MS));
}

/** True once a cycle may be closed at `now` (its end plus the grace for the last counts). */
export function isDueForClosing(periodEnd: Date, now: Date): boolean {
  return periodEnd.getTime() + CLOSE_GRACE_MS <= now.getTime();
}

/** When a billing invoice issued at `issuedAt` must be paid by. */
export function paymentDueAt(issuedAt: Date): Date {
  return new Date(issuedAt.getTime() + PAYMENT_WINDOW_DAYS * DAY_MS);
}
