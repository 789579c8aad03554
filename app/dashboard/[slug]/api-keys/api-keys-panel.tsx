"use client";
// API keys: create (the key shown once, with a curl example that uses it), the list with prefix,
// dates and revocation state, and revoke behind a confirmation (optimistic). Creating and revoking
// are owner-only in the API; members see the buttons disabled with the reason.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { ApiKeyCreated, ApiKeyResponse } from "@/lib/api-keys/schemas.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { apiFetch, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { ShownOnce } from "@/app/dashboard/_components/shown-once.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";

type List = { apiKeys: ApiKeyResponse[] };
type Props = { tenantId: string; apiUrl: string; initial: List; isOwner: boolean };

const ownerOnly = "Only workspace owners can create and revoke API keys.";
const date = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

export function ApiKeysPanel({ tenantId, apiUrl, initial, isOwner }: Props) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const key = ["api-keys", tenantId];
  const apiKeys = useQuery({ queryKey: key, queryFn: () => apiFetch<List>(`/tenants/${tenantId}/api-keys`), initialData: initial }).data.apiKeys;
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<ApiKeyCreated | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const create = useApiMutation({
    mutationFn: () => apiFetch<ApiKeyCreated>(`/tenants/${tenantId}/api-keys`, { method: "POST", body: { name } }),
    onSuccess: (k) => {
      queryClient.setQueryData<List>(key, (prev) => ({
        apiKeys: [{ id: k.id, name: k.name, prefix: k.prefix, createdAt: k.createdAt, lastUsedAt: null, revokedAt: null }, ...(prev?.apiKeys ?? [])],
      }));
      setCreated(k);
      setName("");
      toast.success(`API key “${k.name}” created`);
    },
    onFieldErrors: setErrors,
  });
  const revoke = useApiMutation({
    mutationFn: (id: string) => apiFetch(`/tenants/${tenantId}/api-keys/${id}`, { method: "DELETE" }),
    onMutate: async (id) => {
      setConfirming(null);
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<List>(key);
      const now = new Date().toISOString();
      if (previous) queryClient.setQueryData<List>(key, { apiKeys: previous.apiKeys.map((k) => (k.id === id ? { ...k, revokedAt: k.revokedAt ?? now } : k)) });
      return { previous };
    },
    onError: (_err, _id, context) => {
      if (context?.previous) queryClient.setQueryData(key, context.previous);
    },
    onSuccess: () => toast.success("API key revoked: it stops working on its next request"),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    create.mutate();
  }

  return (
    <div className="flex flex-col gap-6">
      {created ? (
        <ShownOnce title={`Your new API key “${created.name}”`} secret={created.key} copyLabel="Copy API key" onDismiss={() => setCreated(null)}>
          <CodeBlock
            caption="Try it"
            copyLabel="Copy curl example"
            code={`curl ${apiUrl}/tenants/${tenantId} \\\n  -H "Authorization: Bearer ${created.key}"`}
          />
        </ShownOnce>
      ) : null}

      <section aria-labelledby="api-key-create-heading" className="card flex flex-col gap-4">
        <h2 id="api-key-create-heading" className="text-lg font-semibold">
          Create a key
        </h2>
        {isOwner ? null : <p className="text-sm text-muted">{ownerOnly} Ask an owner for a key.</p>}
        <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-[1fr_auto] sm:items-start" aria-label="Create an API key">
          <Field id="api-key-name" label="Name" error={errors.name} hint="Where it will be used, e.g. “CI” or “billing script”.">
            {(control) => (
              <input
                {...control}
                className="input-field"
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={100}
                autoComplete="off"
                disabled={!isOwner}
              />
            )}
          </Field>
          <button
            type="submit"
            className="btn-primary sm:mt-6"
            disabled={!isOwner || create.isPending || name.trim() === ""}
            title={isOwner ? undefined : ownerOnly}
          >
            {create.isPending ? "Creating…" : "Create key"}
          </button>
        </form>
      </section>

      <section aria-labelledby="api-keys-heading" className="flex flex-col gap-3">
        <h2 id="api-keys-heading" className="text-lg font-semibold">
          Keys
        </h2>
        {apiKeys.length === 0 ? (
          <p className="text-sm text-muted">No keys yet. The dashboard itself needs none; create one for scripts and CI.</p>
        ) : (
          <div className="card overflow-x-auto p-0">
            <table className="w-full min-w-[36rem] text-left text-sm">
              <caption className="sr-only">API keys, newest first</caption>
              <thead className="text-xs text-muted">
                <tr className="border-b border-line">
                  <th scope="col" className="px-4 py-2 font-medium">
                    Name
                  </th>
                  <th scope="col" className="px-4 py-2 font-medium">
                    Prefix
                  </th>
                  <th scope="col" className="px-4 py-2 font-medium">
                    Created
                  </th>
                  <th scope="col" className="px-4 py-2 font-medium">
                    Last used
                  </th>
                  <th scope="col" className="px-4 py-2 font-medium">
                    State
                  </th>
                  <th scope="col" className="px-4 py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {apiKeys.map((k) => (
                  <tr key={k.id} className={k.revokedAt ? "text-muted" : ""}>
                    <th scope="row" className="px-4 py-2.5 font-medium">
                      {k.name}
                    </th>
                    <td className="px-4 py-2.5 font-mono text-xs">{k.prefix}…</td>
                    <td className="px-4 py-2.5 whitespace-nowrap">
                      <time dateTime={k.createdAt}>{date(k.createdAt)}</time>
                    </td>
                    <td className="px-4 py-2.5 whitespace-nowrap">{k.lastUsedAt ? <time dateTime={k.lastUsedAt}>{date(k.lastUsedAt)}</time> : "Never"}</td>
                    <td className="px-4 py-2.5 whitespace-nowrap">
                      {k.revokedAt ? (
                        <span>
                          Revoked <time dateTime={k.revokedAt}>{date(k.revokedAt)}</time>
                        </span>
                      ) : (
                        <span className="text-success">Active</span>
                      )}
                    </td>
                    <td className="px-4 py-2.5 text-right whitespace-nowrap">
                      {k.revokedAt ? null : confirming === k.id ? (
                        <span role="group" aria-label={`Confirm revoking ${k.name}`} className="inline-flex items-center gap-2">
                          <button type="button" className="btn-danger py-1" onClick={() => revoke.mutate(k.id)} autoFocus>
                            Yes, revoke
                          </button>
                          <button type="button" className="btn-secondary py-1" onClick={() => setConfirming(null)}>
                            Cancel
                          </button>
                        </span>
                      ) : (
                        <button
                          type="button"
                          className="btn-danger py-1"
                          onClick={() => setConfirming(k.id)}
                          disabled={!isOwner}
                          title={isOwner ? undefined : ownerOnly}
                          aria-label={`Revoke ${k.name}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
