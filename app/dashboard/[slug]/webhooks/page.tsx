// /dashboard/<slug>/webhooks: subscriptions with their delivery logs. The list and the event
// catalogue are loaded here; each log loads when opened (and only then).
import type { Metadata } from "next";
import { RETRY_DELAYS_MS } from "@/lib/webhooks/deliver.ts";
import { eventDescriptions, WEBHOOK_EVENT_TYPES } from "@/lib/events/catalogue.ts";
import { listWebhooks } from "@/lib/webhooks/list-webhooks.ts";
import { webhookListResponseSchema } from "@/lib/webhooks/schemas.ts";
import { requireWorkspace } from "@/app/dashboard/session.ts";
import { WebhooksPanel, type EventChoice } from "./webhooks-panel.tsx";

export const metadata: Metadata = { title: "Webhooks" };

/** "10 s, 1 min and 5 min": the sender's retry delays, as the page states them. */
const retryWaits = RETRY_DELAYS_MS.map((ms) => (ms < 60_000 ? `${ms / 1000} s` : `${ms / 60_000} min`));
const retrySchedule = `${retryWaits.slice(0, -1).join(", ")} and ${retryWaits.at(-1)}`;

export default async function WebhooksPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { ctx, tenant, role } = await requireWorkspace(slug);
  const initial = webhookListResponseSchema.parse({ webhooks: await listWebhooks({ prisma: ctx.db.prisma, tenantId: tenant.id }) });
  const events: EventChoice[] = WEBHOOK_EVENT_TYPES.map((type) => ({ type, description: eventDescriptions[type] }));
  return (
    <div className="flex flex-col gap-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Webhooks</h1>
        <p className="mt-1 text-sm text-muted">
          We POST signed JSON to your HTTPS endpoint when something happens: a payment settles, a session starts or ends, an endpoint goes down, your node
          cannot receive. A failed delivery is tried {RETRY_DELAYS_MS.length} more times (after {retrySchedule}); after that you can retry it here.
        </p>
      </header>
      <WebhooksPanel tenantId={tenant.id} initial={initial} events={events} isOwner={role === "owner"} />
    </div>
  );
}
