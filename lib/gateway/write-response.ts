// Writes the gateway's own JSON answers (errors, 402 challenges, /healthz): the one place that
// serializes a body the gateway made itself. Headers are decided by the caller (respond.ts).
import type { ErrorCode } from "../errors/index.ts";
import type { RequestContext } from "./request-context.ts";

/** Sends `body` as JSON (no body on HEAD); a response whose head already left is cut instead. */
export function sendJson(ctx: RequestContext, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (ctx.res.headersSent) return void ctx.res.destroy();
  const text = JSON.stringify(body);
  ctx.res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers });
  ctx.res.end(ctx.req.method === "HEAD" ? undefined : text);
}

/** Sends `{error: {code, message}}` (STYLE.md rule 4's one error shape). */
export function sendError(ctx: RequestContext, status: number, code: ErrorCode | string, message: string, headers: Record<string, string | string[]> = {}): void {
  sendJson(ctx, status, { error: { code, message } }, headers);
}
