"use client";
// Origin secrets (owners): both values with copy buttons, the previous pair while its grace period
// lasts, rotation behind an explicit confirmation, and verification snippets for these secrets.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { OriginSecretsResponse } from "@/lib/tenants/schemas.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { verificationSnippets } from "./snippets.ts";

const tabs = [
  { id: "express", label: "Node / Express" },
  { id: "next", label: "Next.js" },
  { id: "python", label: "Python" },
] as const;

export function SecretsPanel({ tenantId, initialSecrets, graceHours }: { tenantId: string; initialSecrets: OriginSecretsResponse; graceHours: number }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [tab, setTab] = useState<(typeof tabs)[number]["id"]>("express");
  const secrets = useQuery({
    queryKey: ["secrets", tenantId],
    queryFn: () => apiFetch<OriginSecretsResponse>(`/tenants/${tenantId}/secrets`),
    initialData: initialSecrets,
  }).data;
  const rotate = useMutation({
    mutationFn: () => apiFetch<OriginSecretsResponse>(`/tenants/${tenantId}/secrets/rotate`, { method: "POST" }),
    onSuccess: (next) => {
      queryClient.setQueryData(["secrets", tenantId], next);
      setConfirming(false);
      toast.success("Secrets rotated: update your origin before the previous pair expires");
    },
    onError: (err) => toast.error(err.message),
  });
  const snippets = verificationSnippets(secrets);
  const validUntil = secrets.previous ? new Date(secrets.previous.validUntil) : null;

  return (
    <section aria-labelledby="secrets-heading" className="card flex flex-col gap-5">
      <div>
        <h2 id="secrets-heading" className="text-lg font-semibold">
          Secrets
        </h2>
        <p className="mt-1 text-sm text-muted">
          Every forwarded request carries <span className="font-mono">X-Gateway-Secret</span> and an HMAC-SHA256 signature in{" "}
          <span className="font-mono">X-Gateway-Signature</span> (with timestamp and nonce). Keep both secrets on your origin only.
        </p>
      </div>
      <div className="grid gap-3">
        <div>
          <h3 className="mb-1.5 text-sm font-medium">Gateway secret</h3>
          <CodeBlock code={secrets.gatewaySecret} copyLabel="Copy gateway secret" wrap />
        </div>
        <div>
          <h3 className="mb-1.5 text-sm font-medium">HMAC secret</h3>
          <CodeBlock code={secrets.hmacSecret} copyLabel="Copy HMAC secret" wrap />
        </div>
      </div>
      {secrets.previous && validUntil ? (
        <div role="note" aria-label="Previous secrets" className="rounded-lg border border-accent/40 bg-accent-soft px-4 py-3 text-sm">
          <p className="font-medium">
            Previous secrets stay valid until <time dateTime={secrets.previous.validUntil}>{validUntil.toUTCString()}</time>
          </p>
          <p className="mt-1 text-muted">The gateway signs with the new pair now; accept both on your origin until then, then remove the previous pair.</p>
          <div className="mt-3 grid gap-2">
            <CodeBlock code={secrets.previous.gatewaySecret} copyLabel="Copy previous gateway secret" wrap />
            <CodeBlock code={secrets.previous.hmacSecret} copyLabel="Copy previous HMAC secret" wrap />
          </div>
        </div>
      ) : null}
      <div className="flex flex-col gap-2">
        <h3 className="text-sm font-medium">Rotate</h3>
        <p className="text-sm text-muted">
          Rotation makes a new pair. The current pair becomes “previous” and your origin should keep accepting it for {graceHours} hours (the grace period)
          while you deploy the new one.
        </p>
        {confirming ? (
          <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Confirm rotation">
            <span className="text-sm">Rotate now? Update your origin within {graceHours} hours.</span>
            <button type="button" className="btn-danger" onClick={() => rotate.mutate()} disabled={rotate.isPending} autoFocus>
              {rotate.isPending ? "Rotating…" : "Yes, rotate secrets"}
            </button>
            <button type="button" className="btn-secondary" onClick={() => setConfirming(false)} disabled={rotate.isPending}>
              Cancel
            </button>
          </div>
        ) : (
          <div>
            <button type="button" className="btn-secondary" onClick={() => setConfirming(true)}>
              Rotate secrets
            </button>
          </div>
        )}
      </div>
      <div className="flex flex-col gap-3">
        <h3 className="text-sm font-medium">Verify requests on your origin</h3>
        <CodeBlock code={snippets.env} caption="Environment" copyLabel="Copy environment variables" />
        <div role="tablist" aria-label="Verification snippet language" className="flex flex-wrap gap-1">
          {tabs.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              id={`snippet-tab-${t.id}`}
              aria-selected={tab === t.id}
              aria-controls="snippet-panel"
              onClick={() => setTab(t.id)}
              onKeyDown={(e) => {
                if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
                const i = tabs.findIndex((x) => x.id === tab);
                const next = tabs[(i + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
                setTab(next.id);
                document.getElementById(`snippet-tab-${next.id}`)?.focus();
              }}
              tabIndex={tab === t.id ? 0 : -1}
              className="rounded-md px-3 py-1.5 text-sm font-medium text-muted aria-selected:bg-surface-subtle aria-selected:text-foreground"
            >
              {t.label}
            </button>
          ))}
        </div>
        <div id="snippet-panel" role="tabpanel" aria-labelledby={`snippet-tab-${tab}`}>
          <CodeBlock code={snippets[tab]} caption={tabs.find((t) => t.id === tab)!.label} copyLabel="Copy snippet" />
        </div>
        <p className="text-xs text-muted">The full rules and test vectors are in docs/origin-verification.md of this project.</p>
      </div>
    </section>
  );
}
