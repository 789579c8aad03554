// Webhook resource (spec 2.6, 4.5): request schemas, the deliveries query, and the response schemas.
// The secret appears in exactly two responses: creation and an explicit rotate-secret. Save-time
// address checks (DNS) are not here: they are async and run in lib/origin/ssrf.ts (assertWebhookUrl).
import { z } from "zod";
import { AppError } from "@/lib/errors/index.ts";
import { ALL_EVENTS, isWebhookEventType, WEBHOOK_EVENT_TYPES } from "@/lib/events/catalogue.ts";

/** Longest subscription URL we store. */
export const MAX_URL_LENGTH = 2048;
/** Spec 4.5 / 8: deliveries list size. */
export const DELIVERIES_DEFAULT_LIMIT = 50;
/** Spec 4.5 / 8: the largest page of deliveries. */
export const DELIVERIES_MAX_LIMIT = 100;

const url = z.string({ message: "must be a string" }).trim().min(1, "must not be empty").max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`);

/** At least one known event name or `*`; duplicates dropped, and `*` alone when present. */
const events = z
  .array(z.string({ message: "must be an event name" }), { message: `must be an array of event names or ["${ALL_EVENTS}"]` })
  .min(1, `must name at least one event (${WEBHOOK_EVENT_TYPES.join(", ")}) or "${ALL_EVENTS}"`)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .superRefine((names, ctx) => {
    names.forEach((name, i) => {
      if (name !== ALL_EVENTS && !isWebhookEventType(name)) {
        ctx.addIssue({ code: "custom", path: [i], message: `unknown event "${name}"; valid: ${WEBHOOK_EVENT_TYPES.join(", ")} or "${ALL_EVENTS}"` });
      }
    });
  })
  .transform((names) => (names.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(names)]));

/** POST /api/tenants/:tenantId/webhooks */
export const webhookCreateSchema = z.strictObject({ url, events });
/** A validated create body (events deduplicated, `*` alone). */
export type WebhookCreate = z.output<typeof webhookCreateSchema>;

/** PATCH /api/tenants/:tenantId/webhooks/:id: any subset; never touches the secret. */
export const webhookUpdateSchema = z
  .strictObject({ url: url.optional(), events: events.optional(), isActive: z.boolean({ message: "must be true or false" }).optional() })
  .refine((patch) => Object.values(patch).some((v) => v !== undefined), { message: "send at least one of url, events, isActive" });
/** A validated PATCH body with at least one field. */
export type WebhookUpdate = z.output<typeof webhookUpdateSchema>;

/** GET …/:id/deliveries?limit&before: 1 to 100, default 50; `before` is the previous page's `nextCursor`. Out of range is a 400 naming the parameter. */
export const deliveriesQuerySchema = z.object({
  before: z.string().min(1, "must be a delivery id").max(64, "must be a delivery id").optional(),
  limit: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return DELIVERIES_DEFAULT_LIMIT;
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < 1 || n > DELIVERIES_MAX_LIMIT) {
        ctx.addIssue({ code: "custom", message: `must be an integer from 1 to ${DELIVERIES_MAX_LIMIT}` });
        return z.NEVER;
      }
      return n;
    }),
});
/** The parsed deliveries query. */
export type DeliveriesQuery = z.output<typeof deliveriesQuerySchema>;

/** Parses the deliveries query string; a bad `limit` is a 400 naming the parameter (spec 4.5). */
export function parseDeliveriesQuery(searchParams: URLSearchParams): DeliveriesQuery {
  const parsed = deliveriesQuerySchema.safeParse({ limit: searchParams.get("limit") ?? undefined, before: searchParams.get("before") ?? undefined });
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "limit", message: issue.message }));
  throw new AppError("bad_request", `Invalid query: ${fields.map((f) => `${f.field}: ${f.message}`).join("; ")}`, { fields });
}

const isoDate = z.date().transform((d) => d.toISOString());

/** A subscription as its workspace sees it: never the secret. */
export const webhookResponseSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  isActive: z.boolean(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
/** A subscription as returned by list and update. */
export type WebhookResponse = z.output<typeof webhookResponseSchema>;

/** GET …/webhooks: `{webhooks: [...]}`. */
export const webhookListResponseSchema = z.object({ webhooks: z.array(webhookResponseSchema) });

/** The creation response: the only ordinary response that carries `secret`. */
export const webhookCreatedSchema = webhookResponseSchema.extend({ secret: z.string() });

/** POST …/:id/rotate-secret: the new secret, shown once. */
export const webhookSecretRotatedSchema = z.object({ id: z.string(), secret: z.string() });

/** Delivery states: pending (due or waiting to retry), delivering (leased), succeeded, failed (retries exhausted). */
export const DELIVERY_STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;

/** A delivery for the dashboard (spec 4.5): status, HTTP status, attempts, errors, timestamps, snippets. */
export const deliveryResponseSchema = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  event: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number(),
  responseStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: isoDate.nullable(),
  lastAttemptAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
  requestSnippet: z.string().nullable(),
  responseSnippet: z.string().nullable(),
});
/** A delivery as the dashboard shows it. */
export type DeliveryResponse = z.output<typeof deliveryResponseSchema>;

/** GET …/:id/deliveries: `{deliveries: [...], nextCursor}`, newest first; `nextCursor` is null on the last page. */
export const deliveryListResponseSchema = z.object({ deliveries: z.array(deliveryResponseSchema), nextCursor: z.string().nullable() });
/** A page of deliveries as the dashboard reads it. */
export type DeliveryListResponse = z.output<typeof deliveryListResponseSchema>;

/** Retry and test answer 202 with the queued delivery. */
export const deliveryQueuedResponseSchema = z.object({ delivery: deliveryResponseSchema });
