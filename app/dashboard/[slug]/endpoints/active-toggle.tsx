"use client";
// Activate or deactivate an endpoint from the list: the switch flips at once (optimistic) and flips
// back with a toast if the API refuses; the server-rendered list is refreshed after success.
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { EndpointResponse } from "@/lib/endpoints/schemas.ts";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";

export function ActiveToggle({ tenantId, endpointId, label, initialActive }: { tenantId: string; endpointId: string; label: string; initialActive: boolean }) {
  const toast = useToast();
  const router = useRouter();
  const [active, setActive] = useState(initialActive);
  const toggle = useMutation({
    mutationFn: (isActive: boolean) => apiFetch<EndpointResponse>(`/tenants/${tenantId}/endpoints/${endpointId}`, { method: "PATCH", body: { isActive } }),
    onMutate: (isActive) => {
      const previous = active;
      setActive(isActive);
      return { previous };
    },
    onSuccess: (saved) => {
      toast.success(`${label} ${saved.isActive ? "activated" : "deactivated"}`);
      router.refresh();
    },
    onError: (err, _isActive, context) => {
      setActive(context?.previous ?? initialActive);
      toast.error(err.message);
    },
  });
  return (
    <button
      type="button"
      role="switch"
      aria-checked={active}
      aria-label={`${label} active`}
      disabled={toggle.isPending}
      onClick={() => toggle.mutate(!active)}
      className={`inline-flex items-center gap-2 rounded-full border px-2 py-0.5 text-xs font-medium disabled:opacity-60 ${active ? "border-success/40 bg-success-soft text-success" : "border-line-strong text-muted"}`}
    >
      <span aria-hidden className={`inline-block size-2 rounded-full ${active ? "bg-success" : "bg-line-strong"}`} />
      {active ? "Active" : "Inactive"}
    </button>
  );
}
