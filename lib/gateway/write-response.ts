// Writes the gateway's own JSON answers (errors, 402 challenges, /healthz): the one place that
// serializes a body the gateway made itself. Headers are decided by the caller (respond.ts).
import type { ErrorCode } from "@/lib/errors/index.ts";
import type { RequestContext } from "./request-context.ts";
import { gatewayErrorStatus } from "./respond.ts";

/** Sends `body` as JSON (no body on HEAD); a response whose head already left is cut instead. */
export function sendJson(ctx: RequestContext, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (ctx.res.headersSent) return void ctx.res.destroy();
  const text = JSON.stringify(body);
  ctx.res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : text);
}

/**
 * Sends `{error: {code, message, details?}}` (../shared/STYLE.md rule 4's one error shape) with the status
 * the error table gives the code (gatewayErrorStatus: lib/errors, with the spec's exceptions).
 */
export function sendError(ctx: RequestContext, code: ErrorCode, message: string, headers: Record<string, string | string[]> = {}, details?: unknown): void {
  sendJson(ctx, gatewayErrorStatus(code), { error: details === undefined ? { code, message } : { code, message, details } }, headers);
}
