"use client";
// The danger zone (owners): deleting the workspace, confirmed by typing its slug. DELETE
// /api/tenants/:id stops the platform fee, cancels the unpaid invoice and takes the gateway URL
// down (404); afterwards the dashboard goes back to /dashboard with a toast saying so.
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";
import { useApiMutation } from "@/app/dashboard/_components/use-api-mutation.ts";

type Deleted = { slug: string; deletedAt: string; canceledCycles: number };

export function DangerZone({ tenantId, slug }: { tenantId: string; slug: string }) {
  const uid = useId();
  const toast = useToast();
  const router = useRouter();
  const [typed, setTyped] = useState("");
  const matches = typed.trim() === slug;
  const remove = useApiMutation({
    mutationFn: () => apiFetch<Deleted>(`/tenants/${tenantId}`, { method: "DELETE" }),
    onSuccess: (deleted) => {
      toast.success(
        `Workspace ${deleted.slug} deleted${deleted.canceledCycles ? "; its unpaid platform fee invoice was canceled" : ""}. Its gateway address now answers 404.`,
      );
      // Only a navigation: refreshing the current route would render this workspace's page, now a 404, and could win.
      router.replace("/dashboard");
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (matches) remove.mutate();
  }
  return (
    <section aria-labelledby={`${uid}-heading`} className="card flex flex-col gap-4 border-danger/40">
      <h2 id={`${uid}-heading`} className="text-lg font-semibold text-danger">
        Danger zone
      </h2>
      <div className="text-sm">
        <p className="font-medium">Delete this workspace</p>
        <ul className="mt-1 list-disc pl-5 text-muted">
          <li>The gateway address stops answering (404), the directory stops listing it and every endpoint is unpublished.</li>
          <li>The platform fee stops; an unpaid fee invoice is canceled.</li>
          <li>API keys are revoked, webhooks disabled, the wallet&apos;s credentials erased, and every member loses access.</li>
          <li>
            The slug <span className="font-mono">{slug}</span> stays reserved: nobody else can take this gateway address. This cannot be undone.
          </li>
        </ul>
      </div>
      <form onSubmit={submit} className="flex flex-col gap-2" noValidate>
        <label htmlFor={`${uid}-confirm`} className="text-sm">
          Type <span className="font-mono font-semibold">{slug}</span> to confirm
        </label>
        <div className="flex flex-wrap gap-2">
          <input
            id={`${uid}-confirm`}
            className="input-field max-w-xs font-mono"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
          <button type="submit" className="btn-danger" disabled={!matches || remove.isPending}>
            {remove.isPending ? "Deleting…" : "Delete workspace"}
          </button>
        </div>
      </form>
    </section>
  );
}
