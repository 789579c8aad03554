// The outbox writer for every event producer (health monitor, sessions, billing, capacity monitor):
// call it inside the transaction that makes the change, so the event exists exactly when the change
// does. The webhook worker (lib/webhooks/dispatch-outbox.ts) fans it out to subscriptions later.
// An event is written only when its tenant has an active subscription that receives its type: the
// outbox exists to feed deliveries, so an event nobody receives would be written, marked dispatched
// and deleted for nothing (on the paid request path, the claim's event insert was a quarter of its
// database time). A subscription receives the events that happen once it exists.
import type { PrismaClient } from "@/lib/db/client.ts";
import { Prisma } from "@/lib/db/client.ts";
import { eventDataSchemas, type EventData, type WebhookEventType } from "./catalogue.ts";

/** A transaction client (`prisma.$transaction(async (tx) => ...)`) or the client itself. */
export type OutboxWriter = Prisma.TransactionClient | PrismaClient;

/** One event: the data type follows the event type, so producers get the catalogue's shape checked at compile time. */
export type EnqueueEventInput<T extends WebhookEventType> = {
  tenantId: string;
  type: T;
  data: EventData<T>;
};

/**
 * Writes one event to the outbox and returns its id, or null when no subscription of the tenant
 * receives its type (nothing written). The data is checked against the catalogue
 * schema and stored as parsed, so receivers get exactly the documented fields; a producer bug throws
 * here (rolling back the producer's transaction) instead of reaching customers malformed.
 */
export async function enqueueEvent<T extends WebhookEventType>(tx: OutboxWriter, input: EnqueueEventInput<T>): Promise<string | null> {
  const schema = eventDataSchemas[input.type];
  if (!schema) throw new Error(`Unknown webhook event type ${JSON.stringify(input.type)}`);
  const parsed = schema.safeParse(input.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid ${input.type} event data at ${issue?.path.join(".") || "(data)"}: ${issue?.message ?? "invalid"}`);
  }
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO "OutboxEvent" ("id", "tenantId", "type", "data", "createdAt")
    SELECT gen_random_uuid()::text, ev."tenantId", ev."type", ev."data", now()
    FROM (SELECT ${input.tenantId}::text AS "tenantId", ${input.type}::text AS "type", ${JSON.stringify(parsed.data)}::jsonb AS "data") ev
    WHERE ${Prisma.raw(subscribedSql('ev."tenantId"', 'ev."type"'))}
    RETURNING "id"`;
  return rows[0]?.id ?? null;
}

/**
 * SQL: subscription `s` receives events of type `type` (an SQL expression): active, and naming the
 * type or `*`. The one matching rule of the outbox writers and the fan-out.
 */
export function receivesSql(s: string, type: string): string {
  return `${s}."isActive" AND (${type} = ANY(${s}."events") OR '*' = ANY(${s}."events"))`;
}

/** SQL: tenant `tenantId` (an SQL expression) has a subscription that receives `type`. */
export function subscribedSql(tenantId: string, type: string): string {
  return `EXISTS (SELECT 1 FROM "WebhookSubscription" sub WHERE sub."tenantId" = ${tenantId} AND ${receivesSql("sub", type)})`;
}
