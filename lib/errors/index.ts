// One error model for the platform API and the gateway (../shared/STYLE.md rule 4): framework-free.
import { z } from "zod";

export const errorStatus = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  /** A macaroon condition the gateway does not understand (fails closed, ../shared/INTEROP.md). */
  unknown_caveat: 401,
  /** A delegation caveat (method, path_prefix, valid_until, n_uses, max_sats) refuses this request. */
  caveat_failed: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  /** The request (its body) did not arrive in time (the gateway's 15 s body deadline). */
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export type ErrorBody = {
  error: { code: ErrorCode; message: string; details?: unknown };
};

/** An expected failure with a stable code, a human message and optional structured details. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

/** Turns a zod error into a 422 that names every invalid field. */
export function validationError(error: z.ZodError): AppError {
  const fields = error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    message: issue.message,
  }));
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join("; ");
  return new AppError("validation_failed", `Invalid request: ${summary}`, { fields });
}

/**
 * Maps any thrown value to a status and JSON body. Unknown errors become 500 with the message
 * hidden from the client and handed to `log` instead.
 */
export function toErrorResponse(err: unknown, log: (err: unknown) => void = console.error): { status: number; body: ErrorBody } {
  if (err instanceof z.ZodError) err = validationError(err);
  if (err instanceof AppError) {
    const body: ErrorBody = { error: { code: err.code, message: err.message } };
    if (err.details !== undefined) body.error.details = err.details;
    return { status: err.status, body };
  }
  log(err);
  return { status: 500, body: { error: { code: "internal", message: "Internal server error" } } };
}
