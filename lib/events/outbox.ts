// Event types written to the transactional outbox (spec 6.1). Webhook delivery reads them.

export const eventTypes = [
  "invoice.settled",
  "session.created",
  "session.expired",
  "billing.cycle_closed",
  "billing.payment_received",
  "billing.suspended",
  "endpoint.health_changed",
  "node.capacity_changed",
] as const;

export type EventType = (typeof eventTypes)[number];

/** `data` of invoice.settled: what a provider needs to reconcile a payment. */
export type InvoiceSettledData = {
  paymentHash: string;
  amountSats: number;
  purpose: "per_request" | "session" | "credit" | "billing";
  endpointId: string | null;
  settledAt: string;
  /** How we learned of it: the first valid proof at the gateway, or the wallet. */
  source: "proof" | "wallet";
};
