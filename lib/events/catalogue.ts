// The webhook event catalogue (spec 6.1): every event type, the exact shape of its `data`, and an
// example of each. Producers write events with enqueueEvent (./enqueue-event.ts), which checks the
// data against these schemas; docs/webhooks.md documents the same shapes and examples.
import { z } from "zod";
import { SESSION_MODELS } from "@/lib/pricing/quote.ts";
import { eventTypes, type EventType } from "./outbox.ts";

/** Every event a subscription can name (the list lives with the outbox writer, ./outbox.ts). */
export const WEBHOOK_EVENT_TYPES = eventTypes;
/** An event type name (`*` excluded). */
export type WebhookEventType = EventType;

/** Subscribes to every event, present and future. */
export const ALL_EVENTS = "*";

const isoTimestamp = z.iso.datetime({ offset: false, message: "must be an ISO 8601 UTC timestamp" });
const sats = z.int().min(0);
const paymentHash = z.string().regex(/^[0-9a-f]{64}$/, "must be a 32-byte lowercase hex payment hash");

/** invoice.settled: written with the settlement itself (gateway proof or wallet poll). */
export const invoiceSettledDataSchema = z.object({
  paymentHash,
  amountSats: sats,
  purpose: z.enum(["per_request", "session", "credit", "billing"]),
  endpointId: z.string().nullable(),
  settledAt: isoTimestamp,
  /** How we learned of it: the first valid proof at the gateway, or the wallet. */
  source: z.enum(["proof", "wallet"]),
});

const sessionModel = z.enum(SESSION_MODELS);

/** session.created: a proof bought a session (spec 3.3 rule 1). */
export const sessionCreatedDataSchema = z.object({
  sessionId: z.string(),
  endpointId: z.string(),
  model: sessionModel,
  paymentHash,
  /** Sats (metered, per_kb) or requests (token_bucket) bought; null for time_pass. */
  balance: z.int().min(0).nullable(),
  expiresAt: isoTimestamp,
});

/** session.expired: the session's window ended (spec 3.3 rule 2), written once per session. */
export const sessionExpiredDataSchema = z.object({
  sessionId: z.string(),
  endpointId: z.string(),
  model: sessionModel,
  /** What was left unused; null for time_pass. */
  remainingBalance: z.int().min(0).nullable(),
  expiredAt: isoTimestamp,
});

/** billing.cycle_closed: a 30-day platform fee cycle was closed and priced (spec 8). */
export const billingCycleClosedDataSchema = z.object({
  cycleId: z.string(),
  periodStart: isoTimestamp,
  periodEnd: isoTimestamp,
  requests: z.int().min(0),
  earningsSats: sats,
  baseFeeSats: sats,
  usageFeeSats: sats,
  /** 5% of the earnings: the most the usage fee may be. */
  capSats: sats,
  /** Whether the cap lowered the usage fee. */
  capApplied: z.boolean(),
  /** Each usage tier's share (lib/billing/fee.ts): requests in it, price each, sats before rounding. */
  tiers: z.array(
    z.object({
      tier: z.enum(["free", "tier_2_sats", "tier_1_sat", "tier_half_sat"]),
      requests: z.int().min(0),
      satsEach: z.number().min(0),
      sats: z.number().min(0),
    }),
  ),
  totalSats: sats,
  /** The bolt11 invoice to pay; null when the cycle costs nothing (no traffic). */
  paymentRequest: z.string().nullable(),
  dueAt: isoTimestamp.nullable(),
});

/** billing.payment_received: a platform fee invoice was paid. */
export const billingPaymentReceivedDataSchema = z.object({
  cycleId: z.string(),
  amountSats: sats,
  paymentHash,
  paidAt: isoTimestamp,
});

/** billing.suspended: the 7-day payment window passed without payment (spec 3.2). */
export const billingSuspendedDataSchema = z.object({
  cycleId: z.string(),
  amountDueSats: sats,
  dueAt: isoTimestamp,
  suspendedAt: isoTimestamp,
});

/** endpoint.health_changed: the health monitor saw an endpoint become reachable or unreachable. */
export const endpointHealthChangedDataSchema = z.object({
  endpointId: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.enum(["healthy", "unhealthy"]),
  previousStatus: z.enum(["healthy", "unhealthy"]).nullable(),
  statusCode: z.int().nullable(),
  latencyMs: z.int().min(0).nullable(),
  error: z.string().nullable(),
  checkedAt: isoTimestamp,
});

/** Why a node cannot receive well (spec 6.1); thresholds in ./capacity-monitor.ts. */
export const CAPACITY_REASONS = ["no_channels", "peers_offline", "receiving_full", "receiving_low"] as const;
/** One of the four degraded reasons. */
export type CapacityReason = (typeof CAPACITY_REASONS)[number];

/** node.capacity_changed: exactly the fields of spec 6.1, nothing else. */
export const nodeCapacityChangedDataSchema = z
  .object({
    nodeId: z.string(),
    status: z.enum(["degraded", "ok"]),
    reason: z.enum(CAPACITY_REASONS).nullable(),
    activeChannels: z.int().min(0),
    totalChannels: z.int().min(0),
    receivingCapacitySat: sats,
    totalCapacitySat: sats,
  })
  .refine((d) => (d.status === "ok") === (d.reason === null), { message: "reason is set exactly when status is degraded", path: ["reason"] });

/** The `data` schema of each event type: the contract producers and receivers share. */
export const eventDataSchemas = {
  "invoice.settled": invoiceSettledDataSchema,
  "session.created": sessionCreatedDataSchema,
  "session.expired": sessionExpiredDataSchema,
  "billing.cycle_closed": billingCycleClosedDataSchema,
  "billing.payment_received": billingPaymentReceivedDataSchema,
  "billing.suspended": billingSuspendedDataSchema,
  "endpoint.health_changed": endpointHealthChangedDataSchema,
  "node.capacity_changed": nodeCapacityChangedDataSchema,
} as const satisfies Record<WebhookEventType, z.ZodType>;

/** The `data` type of an event type. */
export type EventData<T extends WebhookEventType> = z.output<(typeof eventDataSchemas)[T]>;

/** One line per event for pickers and docs: what happened when the event is sent. */
export const eventDescriptions: { [T in WebhookEventType]: string } = {
  "invoice.settled": "A consumer paid one of your invoices (per request, session or credit).",
  "session.created": "A payment bought a session: a balance of sats or requests, or a time pass.",
  "session.expired": "A session's window ended, with what was left unused.",
  "billing.cycle_closed": "A 30-day platform fee cycle closed; carries the invoice to pay.",
  "billing.payment_received": "Your platform fee invoice was paid.",
  "billing.suspended": "The fee was not paid within 7 days and the workspace was suspended.",
  "endpoint.health_changed": "The health monitor saw an endpoint become reachable or unreachable.",
  "node.capacity_changed": "Your Lightning node became unable (or able again) to receive payments well.",
};

/** One example per event, used by docs/webhooks.md and checked against the schemas by the tests. */
export const eventExamples: { [T in WebhookEventType]: EventData<T> } = {
  "invoice.settled": {
    paymentHash: "5f1d1b3f8a1c4e1b9e3b2f7c6d5a4e3f2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e",
    amountSats: 21,
    purpose: "per_request",
    endpointId: "cm3k9v2qz0001a8b7c6d5e4f3",
    settledAt: "2026-11-21T12:00:00.000Z",
    source: "proof",
  },
  "session.created": {
    sessionId: "cm3k9w1ab0002a8b7c6d5e4f3",
    endpointId: "cm3k9v2qz0001a8b7c6d5e4f3",
    model: "token_bucket",
    paymentHash: "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
    balance: 100,
    expiresAt: "2026-11-22T12:00:00.000Z",
  },
  "session.expired": {
    sessionId: "cm3k9w1ab0002a8b7c6d5e4f3",
    endpointId: "cm3k9v2qz0001a8b7c6d5e4f3",
    model: "time_pass",
    remainingBalance: null,
    expiredAt: "2026-11-22T12:00:00.000Z",
  },
  "billing.cycle_closed": {
    cycleId: "cm3ka0c1d0003a8b7c6d5e4f3",
    periodStart: "2026-10-22T00:00:00.000Z",
    periodEnd: "2026-11-21T00:00:00.000Z",
    requests: 12500,
    earningsSats: 250000,
    baseFeeSats: 5000,
    usageFeeSats: 12500,
    capSats: 12500,
    capApplied: true,
    tiers: [
      { tier: "free", requests: 500, satsEach: 0, sats: 0 },
      { tier: "tier_2_sats", requests: 12000, satsEach: 2, sats: 24000 },
      { tier: "tier_1_sat", requests: 0, satsEach: 1, sats: 0 },
      { tier: "tier_half_sat", requests: 0, satsEach: 0.5, sats: 0 },
    ],
    totalSats: 17500,
    paymentRequest: "lnbc175u1p...",
    dueAt: "2026-11-28T00:00:00.000Z",
  },
  "billing.payment_received": {
    cycleId: "cm3ka0c1d0003a8b7c6d5e4f3",
    amountSats: 17500,
    paymentHash: "0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d",
    paidAt: "2026-11-23T09:30:00.000Z",
  },
  "billing.suspended": {
    cycleId: "cm3ka0c1d0003a8b7c6d5e4f3",
    amountDueSats: 17500,
    dueAt: "2026-11-28T00:00:00.000Z",
    suspendedAt: "2026-11-28T00:05:00.000Z",
  },
  "endpoint.health_changed": {
    endpointId: "cm3k9v2qz0001a8b7c6d5e4f3",
    method: "GET",
    path: "/v1/quote",
    status: "unhealthy",
    previousStatus: "healthy",
    statusCode: 503,
    latencyMs: 1240,
    error: "origin answered 503",
    checkedAt: "2026-11-21T12:05:00.000Z",
  },
  "node.capacity_changed": {
    nodeId: "02b0f4a5c1d7e3f9a8b6c4d2e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9",
    status: "degraded",
    reason: "receiving_low",
    activeChannels: 2,
    totalChannels: 3,
    receivingCapacitySat: 8000,
    totalCapacitySat: 2000000,
  },
};

/** True for a known event type (not `*`). */
export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}
