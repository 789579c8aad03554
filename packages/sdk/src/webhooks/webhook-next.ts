// Receiving webhooks in a Next.js App Router route handler (or any fetch-style server): reads the
// raw body with request.text() (never request.json(), which would lose the signed bytes).
import { verifyWebhook, type WebhookEnvelope, type WebhookVerifyCode } from "./webhook-verify.ts";

/** The verified envelope and raw body, or the failure code with a ready 400 response. */
export type NextWebhookResult<D = Record<string, unknown>> =
  { ok: true; event: WebhookEnvelope<D>; rawBody: string } | { ok: false; code: WebhookVerifyCode; response: Response };

/**
 * Verifies a delivery; on failure `response` is the 400 `{error: code}` to return as is.
 *
 *   const v = await verifyNextWebhook(request, process.env.WEBHOOK_SECRET!);
 *   if (!v.ok) return v.response;
 */
export async function verifyNextWebhook<D = Record<string, unknown>>(
  request: Request,
  secret: string | readonly string[] | undefined,
  options: { toleranceMs?: number; now?: number } = {},
): Promise<NextWebhookResult<D>> {
  const rawBody = await request.text();
  const result = verifyWebhook<D>({ secret, headers: request.headers, rawBody, toleranceMs: options.toleranceMs, now: options.now });
  if (result.ok) return { ok: true, event: result.event, rawBody };
  return { ok: false, code: result.code, response: Response.json({ error: result.code }, { status: 400 }) };
}
