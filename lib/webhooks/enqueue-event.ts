// The outbox writer for every event producer (health monitor, sessions, billing, capacity monitor):
// call it inside the transaction that makes the change, so the event exists exactly when the change
// does. The webhook worker (./dispatch-outbox.ts) fans it out to subscriptions later.
import type { Prisma, PrismaClient } from "../db/client.ts";
import { eventDataSchemas, type EventData, type WebhookEventType } from "./events.ts";

/** A transaction client (`prisma.$transaction(async (tx) => ...)`) or the client itself. */
export type OutboxWriter = Prisma.TransactionClient | PrismaClient;

/** One event: the data type follows the event type, so producers get the catalogue's shape checked at compile time. */
export type EnqueueEventInput<T extends WebhookEventType> = {
  tenantId: string;
  type: T;
  data: EventData<T>;
};

/**
 * Writes one event to the outbox and returns its id. The data is checked against the catalogue
 * schema and stored as parsed, so receivers get exactly the documented fields; a producer bug throws
 * here (rolling back the producer's transaction) instead of reaching customers malformed.
 */
export async function enqueueEvent<T extends WebhookEventType>(tx: OutboxWriter, input: EnqueueEventInput<T>): Promise<string> {
  const schema = eventDataSchemas[input.type];
  if (!schema) throw new Error(`Unknown webhook event type ${JSON.stringify(input.type)}`);
  const parsed = schema.safeParse(input.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid ${input.type} event data at ${issue?.path.join(".") || "(data)"}: ${issue?.message ?? "invalid"}`);
  }
  const row = await tx.outboxEvent.create({
    data: { tenantId: input.tenantId, type: input.type, data: parsed.data as Prisma.InputJsonValue },
    select: { id: true },
  });
  return row.id;
}
