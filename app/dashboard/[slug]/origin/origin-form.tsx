"use client";
// Origin URL form (PATCH /api/tenants/:id) and "Test connection" (POST …/origin/test): one signed
// probe from the server to the SAVED origin, with status and latency. Refused targets (private
// addresses in production) come back as a 422 on originUrl and show under the field. Members see the
// origin read-only (the API refuses their changes: the origin receives the gateway secret).
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { OriginTestResponse } from "@/lib/tenants/schemas.ts";
import { apiFetch, type FieldErrors } from "@/app/dashboard/_components/api-client.ts";
import { Field } from "@/app/dashboard/_components/field.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";

export function OriginForm({
  tenantId,
  initialOriginUrl,
  allowPrivate,
  isOwner,
}: {
  tenantId: string;
  initialOriginUrl: string | null;
  allowPrivate: boolean;
  isOwner: boolean;
}) {
  const toast = useToast();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState(initialOriginUrl ?? "");
  const [value, setValue] = useState(initialOriginUrl ?? "");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [result, setResult] = useState<OriginTestResponse | null>(null);
  const dirty = value.trim() !== saved;

  const save = useApiMutation({
    mutationFn: (originUrl: string | null) => apiFetch<{ originUrl: string | null }>(`/tenants/${tenantId}`, { method: "PATCH", body: { originUrl } }),
    onSuccess: (tenant) => {
      setSaved(tenant.originUrl ?? "");
      setValue(tenant.originUrl ?? "");
      setResult(null);
      queryClient.setQueryData(["tenant", tenantId], tenant);
      toast.success(tenant.originUrl ? "Origin saved" : "Origin removed");
      // The overview's checklist and other server-rendered parts read the new origin.
      router.refresh();
    },
    onFieldErrors: setErrors,
  });

  const test = useApiMutation({
    mutationFn: () => apiFetch<OriginTestResponse>(`/tenants/${tenantId}/origin/test`, { method: "POST" }),
    onMutate: () => setResult(null),
    onSuccess: (r) => setResult(r),
    onFieldErrors: setErrors,
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    save.mutate(value.trim() === "" ? null : value.trim());
  }

  return (
    <div className="flex flex-col gap-4">
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field
          id="origin-url"
          label="Origin URL"
          error={errors.originUrl}
          hint={
            <>
              Your API&apos;s base address, e.g. <span className="font-mono">https://api.example.com</span>. A path prefix is kept: the gateway calls{" "}
              <span className="font-mono">&lt;origin&gt;/v1/…</span>.{allowPrivate ? " Private and local addresses are allowed on this install." : ""}
              {isOwner ? "" : " Only workspace owners can change it: the origin receives the gateway secret."}
            </>
          }
        >
          {(control) => (
            <input
              {...control}
              type="url"
              inputMode="url"
              className="input-field font-mono"
              placeholder="https://api.example.com"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              readOnly={!isOwner}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </Field>
        <div className="flex flex-wrap items-center gap-2">
          {isOwner ? (
            <button type="submit" className="btn-primary" disabled={save.isPending || !dirty}>
              {save.isPending ? "Saving…" : "Save origin"}
            </button>
          ) : null}
          <button
            type="button"
            className="btn-secondary"
            disabled={test.isPending || dirty || saved === ""}
            onClick={() => {
              setErrors({});
              test.mutate();
            }}
          >
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
          {dirty && saved !== "" ? <span className="text-xs text-muted">Save to test the new address.</span> : null}
        </div>
      </form>
      <div aria-live="polite">
        {result ? (
          <div
            role="status"
            aria-label="Connection test result"
            className={`rounded-lg border px-4 py-3 text-sm ${result.ok ? "border-success/40 bg-success-soft" : "border-danger/40 bg-danger-soft"}`}
          >
            <p className={`font-medium ${result.ok ? "text-success" : "text-danger"}`}>
              {result.ok ? "Reachable" : "Not reachable"}
              {result.statusCode !== null ? ` · HTTP ${result.statusCode}` : ""}
              {result.latencyMs !== null ? ` · ${result.latencyMs} ms` : ""}
            </p>
            <p className="mt-1 text-muted">
              Signed probe:{" "}
              <span className="font-mono">
                {result.method} {result.path}
              </span>{" "}
              with <span className="font-mono">X-Hub-Probe: 1</span>
              {result.error ? ` · ${result.error}` : ""}
            </p>
            {result.ok && result.statusCode !== null && result.statusCode >= 400 ? (
              <p className="mt-1 text-muted">
                The origin answered, so it is up; a 4xx may just mean the probe lacks real arguments (or the signature was refused: check your secrets).
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
    </div>
  );
}
