// Receiving webhooks in Express or plain node:http: verify the RAW body (never re-serialized JSON),
// answer 400 `{error: code}` on any verifier failure, otherwise hand the envelope to the next handler.
import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_TOLERANCE_MS, verifyWebhook, type WebhookEnvelope } from "./webhook-verify.ts";

/** Deliveries are small JSON envelopes; anything larger is not ours and is refused unread. */
export const MAX_WEBHOOK_BODY_BYTES = 1_000_000;

/** The secret(s) to accept and the replay window. */
export type WebhookMiddlewareOptions = {
  /** The subscription secret (several while you rotate). */
  secret: string | readonly string[];
  toleranceMs?: number;
  /** Current time in ms (tests). */
  now?: () => number;
};

/** What the middleware leaves on the request for the next handler. */
export type VerifiedWebhookRequest = IncomingMessage & { webhook?: WebhookEnvelope; rawBody?: Buffer };

type Next = (err?: unknown) => void;

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(body));
}

/** Reads the request stream up to the byte limit; null when it is larger. */
async function readRawBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_WEBHOOK_BODY_BYTES) return null;
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * Express/Connect-style middleware (also callable from node:http with your own `next`). Mount it
 * BEFORE express.json(), or after express.raw({type: "application/json"}): it needs the bytes as
 * sent. On success `req.webhook` holds the envelope and `req.rawBody` the bytes.
 */
export function webhookMiddleware(options: WebhookMiddlewareOptions) {
  return (req: VerifiedWebhookRequest, res: ServerResponse, next: Next): void => {
    void (async () => {
      const existing = (req as { body?: unknown }).body;
      let raw: Buffer | null;
      if (Buffer.isBuffer(existing)) raw = existing;
      else if (typeof existing === "string") raw = Buffer.from(existing, "utf8");
      else if (req.readableEnded) {
        // A body parser already consumed the stream and kept only parsed JSON: the signed bytes are gone.
        next(new Error("webhookMiddleware needs the raw body: mount it before express.json() or use express.raw({ type: 'application/json' })"));
        return;
      } else raw = await readRawBody(req);
      if (raw === null) return answer(res, 413, { error: "payload_too_large" });
      const result = verifyWebhook({
        secret: options.secret,
        headers: req.headers,
        rawBody: raw,
        toleranceMs: options.toleranceMs ?? DEFAULT_TOLERANCE_MS,
        now: options.now?.(),
      });
      if (!result.ok) return answer(res, 400, { error: result.code });
      req.webhook = result.event;
      req.rawBody = raw;
      next();
    })().catch(next);
  };
}
