"use client";
// One subscription: its URL and events, an active switch (optimistic), send test, rotate secret
// (new secret shown once), delete behind a confirmation, and its delivery log on demand.
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { DeliveryResponse, WebhookResponse } from "@/lib/webhooks/schemas.ts";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { ConfirmGroup } from "@/app/dashboard/_components/confirm-group.tsx";
import { ShownOnce } from "@/app/dashboard/_components/shown-once.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";
import { DeliveryLog, deliveriesKey } from "./delivery-log.tsx";
import { webhooksKey } from "./webhooks-query-key.ts";

type Props = { tenantId: string; webhook: WebhookResponse; isOwner: boolean };
type List = { webhooks: WebhookResponse[] };

const ownerOnly = "Only workspace owners can change webhooks";

export function WebhookCard({ tenantId, webhook, isOwner }: Props) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const key = webhooksKey(tenantId);
  const headingId = useId();
  const logId = useId();
  const [confirm, setConfirm] = useState<"delete" | "rotate" | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [logOpen, setLogOpen] = useState(false);

  /** Applies a change to the cached list at once; returns the snapshot to roll back to. */
  async function optimistic(change: (list: List) => List) {
    await queryClient.cancelQueries({ queryKey: key });
    const previous = queryClient.getQueryData<List>(key);
    if (previous) queryClient.setQueryData(key, change(previous));
    return { previous };
  }
  /** Puts the snapshot back after a failed change (useApiMutation shows the error). */
  const rollback = (_err: Error, _vars: unknown, context?: { previous?: List }) => {
    if (context?.previous) queryClient.setQueryData(key, context.previous);
  };

  const setActive = useApiMutation({
    mutationFn: (isActive: boolean) => apiFetch<WebhookResponse>(`/tenants/${tenantId}/webhooks/${webhook.id}`, { method: "PATCH", body: { isActive } }),
    onMutate: (isActive) => optimistic((list) => ({ webhooks: list.webhooks.map((w) => (w.id === webhook.id ? { ...w, isActive } : w)) })),
    onError: rollback,
    onSuccess: (updated) => queryClient.setQueryData<List>(key, (list) => list && { webhooks: list.webhooks.map((w) => (w.id === updated.id ? updated : w)) }),
  });
  const remove = useApiMutation({
    mutationFn: () => apiFetch(`/tenants/${tenantId}/webhooks/${webhook.id}`, { method: "DELETE" }),
    onMutate: () => optimistic((list) => ({ webhooks: list.webhooks.filter((w) => w.id !== webhook.id) })),
    onError: rollback,
    onSuccess: () => toast.success("Webhook deleted"),
  });
  const rotate = useApiMutation({
    mutationFn: () => apiFetch<{ id: string; secret: string }>(`/tenants/${tenantId}/webhooks/${webhook.id}/rotate-secret`, { method: "POST" }),
    onSuccess: (rotated) => {
      setConfirm(null);
      setSecret(rotated.secret);
      toast.success("Secret rotated: deliveries are signed with the new secret from now on");
    },
  });
  const sendTest = useApiMutation({
    mutationFn: () => apiFetch<{ delivery: DeliveryResponse }>(`/tenants/${tenantId}/webhooks/${webhook.id}/test`, { method: "POST" }),
    onSuccess: () => {
      toast.success("Test event queued: watch it in the delivery log");
      setLogOpen(true);
      void queryClient.invalidateQueries({ queryKey: deliveriesKey(tenantId, webhook.id) });
    },
  });

  const events = webhook.events.includes("*") ? ["all events"] : webhook.events;
  return (
    <article aria-labelledby={headingId} className="card flex flex-col gap-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <h3 id={headingId} className="break-all font-mono text-sm font-medium">
            {webhook.url}
          </h3>
          <ul className="mt-2 flex flex-wrap gap-1.5" aria-label="Events">
            {events.map((e) => (
              <li key={e} className="rounded-md bg-surface-subtle px-2 py-0.5 font-mono text-xs text-muted">
                {e}
              </li>
            ))}
          </ul>
        </div>
        <div className="flex items-center gap-2 text-sm" title={isOwner ? undefined : ownerOnly}>
          <button
            type="button"
            role="switch"
            aria-checked={webhook.isActive}
            aria-label={`Active: ${webhook.url}`}
            disabled={!isOwner || setActive.isPending}
            onClick={() => setActive.mutate(!webhook.isActive)}
            className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border transition-colors focus-visible:ring-2 focus-visible:ring-accent-ring focus-visible:outline-none disabled:opacity-60 ${
              webhook.isActive ? "border-success bg-success" : "border-line-strong bg-surface-subtle"
            }`}
          >
            <span
              aria-hidden
              className={`inline-block size-4 rounded-full bg-surface shadow transition-transform ${webhook.isActive ? "translate-x-6" : "translate-x-1"}`}
            />
          </button>
          <span aria-hidden>{webhook.isActive ? "Active" : "Paused"}</span>
        </div>
      </div>

      {secret ? (
        <ShownOnce title="New signing secret" secret={secret} copyLabel="Copy new signing secret" onDismiss={() => setSecret(null)}>
          <p className="text-sm">The previous secret no longer verifies new deliveries: update your receiver now.</p>
        </ShownOnce>
      ) : null}

      <div className="flex flex-wrap items-center gap-2">
        <button
          type="button"
          className="btn-secondary py-1.5"
          onClick={() => sendTest.mutate()}
          disabled={sendTest.isPending || !webhook.isActive}
          title={webhook.isActive ? undefined : "Activate the webhook to send a test"}
        >
          {sendTest.isPending ? "Sending…" : "Send test event"}
        </button>
        <button type="button" className="btn-secondary py-1.5" aria-expanded={logOpen} aria-controls={logId} onClick={() => setLogOpen((open) => !open)}>
          {logOpen ? "Hide deliveries" : "Show deliveries"}
        </button>
        {confirm === null ? (
          <>
            <button
              type="button"
              className="btn-secondary py-1.5"
              onClick={() => setConfirm("rotate")}
              disabled={!isOwner}
              title={isOwner ? undefined : ownerOnly}
            >
              Rotate secret
            </button>
            <button
              type="button"
              className="btn-danger py-1.5"
              onClick={() => setConfirm("delete")}
              disabled={!isOwner}
              title={isOwner ? undefined : ownerOnly}
            >
              Delete
            </button>
          </>
        ) : null}
      </div>

      {confirm === "rotate" ? (
        <ConfirmGroup
          label="Confirm secret rotation"
          confirmText="Yes, rotate secret"
          pendingText="Rotating…"
          pending={rotate.isPending}
          onConfirm={() => rotate.mutate()}
          onCancel={() => setConfirm(null)}
        >
          Rotate now? The current secret stops verifying new deliveries at once.
        </ConfirmGroup>
      ) : null}
      {confirm === "delete" ? (
        <ConfirmGroup
          label="Confirm deletion"
          confirmText="Yes, delete webhook"
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirm(null)}
        >
          Delete this webhook and its delivery log? Queued deliveries are dropped.
        </ConfirmGroup>
      ) : null}

      <div id={logId} hidden={!logOpen}>
        {logOpen ? <DeliveryLog tenantId={tenantId} webhookId={webhook.id} /> : null}
      </div>
    </article>
  );
}
