// The one error type of the L402 client: a stable `code` a program can branch on, whether anything
// was paid for the request that failed, and the details that explain it.

/** Why the client stopped. */
export type L402ErrorCode =
  /** The invoice costs more than `maxPerRequestSats` (nothing paid). */
  | "max_per_request_exceeded"
  /** Paying would take the client past `budgetSats` (nothing paid). */
  | "budget_exceeded"
  /** The 402 had no usable L402 challenge, or its amounts disagree (nothing paid). */
  | "invalid_challenge"
  /** A credit purchase's `creditSats` echo differs from the credit asked for (nothing paid). */
  | "credit_mismatch"
  /** The wallet refused or failed to pay (nothing paid as far as the wallet says). */
  | "payment_failed"
  /** The gateway answered 402/401 again after we paid: we never pay twice for one request. */
  | "payment_not_accepted"
  /** 429 with a Retry-After beyond the client's bound, or still 429 after the bounded retries. */
  | "rate_limited"
  /** stream(): the endpoint answered something other than a 2xx event stream. */
  | "unexpected_response";

/** Thrown by the client; `paidSats` is what this request spent before it failed (0 for refusals). */
export class L402Error extends Error {
  readonly code: L402ErrorCode;
  readonly paidSats: number;
  readonly details: Record<string, unknown>;
  constructor(code: L402ErrorCode, message: string, options: { paidSats?: number; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "L402Error";
    this.code = code;
    this.paidSats = options.paidSats ?? 0;
    this.details = options.details ?? {};
  }
}
