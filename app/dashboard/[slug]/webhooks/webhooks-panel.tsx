"use client";
// Webhook subscriptions: create (URL checked by the server's SSRF rules, shown on the field; events
// from the catalogue), the signing secret shown once, and one card per subscription. Owners manage
// subscriptions; members can send tests and read (and retry) deliveries, as the API allows.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import type { WebhookResponse } from "@/lib/webhooks/schemas.ts";
import { apiFetch, listFieldError, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { ShownOnce } from "@/app/dashboard/_components/shown-once.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";
import { WebhookCard } from "./webhook-card.tsx";
import { webhooksKey } from "./webhooks-query-key.ts";

/** One event of the catalogue as the picker shows it. */
export type EventChoice = { type: string; description: string };

type Props = { tenantId: string; initial: { webhooks: WebhookResponse[] }; events: EventChoice[]; isOwner: boolean };

export function WebhooksPanel({ tenantId, initial, events, isOwner }: Props) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const key = webhooksKey(tenantId);
  const webhooks = useQuery({
    queryKey: key,
    queryFn: () => apiFetch<{ webhooks: WebhookResponse[] }>(`/tenants/${tenantId}/webhooks`),
    initialData: initial,
  }).data.webhooks;
  const [url, setUrl] = useState("");
  const [all, setAll] = useState(false);
  const [picked, setPicked] = useState<string[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [formOpen, setFormOpen] = useState(false);

  const create = useApiMutation({
    mutationFn: () =>
      apiFetch<WebhookResponse & { secret: string }>(`/tenants/${tenantId}/webhooks`, {
        method: "POST",
        body: { url: url.trim(), events: all ? ["*"] : picked },
      }),
    onSuccess: (webhook) => {
      const { secret, ...listed } = webhook;
      queryClient.setQueryData<{ webhooks: WebhookResponse[] }>(key, (prev) => ({ webhooks: [...(prev?.webhooks ?? []), listed] }));
      setCreated({ url: webhook.url, secret });
      setUrl("");
      setPicked([]);
      setAll(false);
      setFormOpen(false);
      toast.success("Webhook created");
    },
    onFieldErrors: (fields) => {
      // The picker has one error slot for every event (the API names a bad one `events.2`).
      const eventsError = listFieldError(fields, "events");
      setErrors(eventsError ? { ...fields, events: eventsError } : fields);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    if (!all && picked.length === 0) {
      setErrors({ events: "Pick at least one event, or all events" });
      return;
    }
    create.mutate();
  }

  const toggle = (type: string) => setPicked((list) => (list.includes(type) ? list.filter((t) => t !== type) : [...list, type]));
  const showForm = isOwner && (formOpen || webhooks.length === 0);

  return (
    <div className="flex flex-col gap-6">
      {created ? (
        <ShownOnce title="Signing secret of your new webhook" secret={created.secret} copyLabel="Copy signing secret" onDismiss={() => setCreated(null)}>
          <p className="text-sm">
            Verify each delivery to <span className="break-all font-mono">{created.url}</span> with this secret: our SDK&apos;s webhook verifier checks the
            signature and timestamp (see{" "}
            <Link href="/docs#webhooks" className="text-accent underline">
              Verify webhooks
            </Link>
            ).
          </p>
        </ShownOnce>
      ) : null}

      {webhooks.length === 0 ? (
        <section aria-labelledby="webhooks-empty-heading" className="card flex flex-col gap-2">
          <h2 id="webhooks-empty-heading" className="text-lg font-semibold">
            No webhooks yet
          </h2>
          <p className="text-sm text-muted">
            Webhooks let your systems react without polling: credit an account when an invoice settles, provision access when a session starts, page someone
            when an endpoint becomes unreachable. Each delivery is signed so you can check it came from us.
          </p>
          <p className="text-sm">
            <Link href="/docs#webhooks" className="text-accent underline">
              How to receive and verify webhooks
            </Link>
          </p>
          {!isOwner ? <p className="text-sm text-muted">Only workspace owners can create webhooks.</p> : null}
        </section>
      ) : (
        <section aria-labelledby="webhooks-list-heading" className="flex flex-col gap-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="webhooks-list-heading" className="text-lg font-semibold">
              Subscriptions
            </h2>
            {isOwner && !formOpen ? (
              <button type="button" className="btn-primary" onClick={() => setFormOpen(true)}>
                Add webhook
              </button>
            ) : null}
          </div>
          {!isOwner ? (
            <p className="text-sm text-muted">Only owners can add, change or delete webhooks; you can send tests and read and retry deliveries.</p>
          ) : null}
          <ul className="flex flex-col gap-3" aria-label="Webhooks">
            {webhooks.map((w) => (
              <li key={w.id}>
                <WebhookCard tenantId={tenantId} webhook={w} isOwner={isOwner} />
              </li>
            ))}
          </ul>
        </section>
      )}

      {showForm ? (
        <form onSubmit={submit} noValidate aria-labelledby="webhook-create-heading" className="card flex flex-col gap-4">
          <h2 id="webhook-create-heading" className="text-lg font-semibold">
            Add a webhook
          </h2>
          <Field
            id="webhook-url"
            label="Endpoint URL"
            error={errors.url}
            hint="HTTPS only. Private and internal addresses are refused, now and at every delivery."
          >
            {(control) => (
              <input
                {...control}
                type="url"
                inputMode="url"
                className="input-field"
                placeholder="https://example.com/webhooks/l402"
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                autoComplete="off"
              />
            )}
          </Field>
          <fieldset className="flex flex-col gap-2" aria-describedby={errors.events ? "webhook-events-error" : undefined} aria-invalid={Boolean(errors.events)}>
            <legend className="text-sm font-medium">Events</legend>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-0.5" checked={all} onChange={(e) => setAll(e.target.checked)} />
              <span>
                <span className="font-medium">All events</span>
                <span className="block text-muted">Every event below, and any added later.</span>
              </span>
            </label>
            <div className="grid gap-2 sm:grid-cols-2">
              {events.map((e) => (
                <label key={e.type} className={`flex items-start gap-2 text-sm ${all ? "opacity-60" : ""}`}>
                  <input
                    type="checkbox"
                    className="mt-0.5"
                    checked={all || picked.includes(e.type)}
                    disabled={all}
                    onChange={() => toggle(e.type)}
                    aria-describedby={`event-${e.type}-desc`}
                  />
                  <span>
                    <span className="font-mono text-[13px]">{e.type}</span>
                    <span id={`event-${e.type}-desc`} className="block text-muted">
                      {e.description}
                    </span>
                  </span>
                </label>
              ))}
            </div>
            {errors.events ? (
              <p id="webhook-events-error" className="text-sm text-danger">
                {errors.events}
              </p>
            ) : null}
          </fieldset>
          <div className="flex flex-wrap gap-2">
            <button type="submit" className="btn-primary" disabled={create.isPending || url.trim() === ""}>
              {create.isPending ? "Creating…" : "Create webhook"}
            </button>
            {webhooks.length > 0 ? (
              <button type="button" className="btn-secondary" onClick={() => setFormOpen(false)} disabled={create.isPending}>
                Cancel
              </button>
            ) : null}
          </div>
        </form>
      ) : null}
    </div>
  );
}
