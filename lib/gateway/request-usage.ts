// What one request counts for in UsageCounter (docs/decisions.md "Usage counters"): noted while
// the call runs, counted once when its response closes (usage-recorder.ts batches the writes).
import type { CallOutcome } from "./respond.ts";
import type { Reservation } from "./reserve-payment.ts";
import type { UsageRecorder } from "./usage-recorder.ts";

/** How a request to an endpoint ended, for the usage counters (counted when the response closes). */
export type RequestUsage = { tenantId: string; endpointId: string; outcome: CallOutcome | null; paid: boolean; upstreamError: boolean };

/** Notes how a paid call ended; nothing for a request that matched no endpoint (usage null). */
export function noteOutcome(usage: RequestUsage | null, reservation: Reservation, outcome: CallOutcome, upstreamError: boolean): void {
  if (!usage) return;
  usage.outcome = outcome;
  usage.paid = reservation.kind === "proof" || reservation.kind === "session" || reservation.kind === "credit";
  usage.upstreamError = upstreamError;
}

/** Counts a finished request: every match is a request; paid, served, refunded and origin failures by its outcome. */
export function countUsage(recorder: UsageRecorder, u: RequestUsage, statusCode: number): void {
  const charged = u.paid && (u.outcome === "served" || u.outcome === "rejected");
  recorder.record(u.tenantId, u.endpointId, {
    requests: 1,
    paidRequests: charged ? 1 : 0,
    servedRequests: statusCode >= 200 && statusCode < 300 && u.outcome !== "refunded" ? 1 : 0,
    refunds: u.paid && u.outcome === "refunded" ? 1 : 0,
    upstreamErrors: u.upstreamError ? 1 : 0,
  });
}
