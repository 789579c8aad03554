// The dashboard view of a delivery row: what deliveryResponseSchema names, with the event type
// under the envelope's field name.
import type { WebhookDelivery } from "@/lib/db/generated/client.ts";

/** Maps a row to the shape deliveryResponseSchema parses (it drops tenantId and the lease). */
export function toDeliveryView(row: WebhookDelivery) {
  return { ...row, event: row.eventType };
}
