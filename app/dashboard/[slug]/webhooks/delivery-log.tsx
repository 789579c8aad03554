"use client";
// A subscription's delivery log: newest first, 20 at a time with "Load older deliveries", refreshed
// every 2 s while any shown delivery is still pending or in flight; failed ones can be retried.
import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { DeliveryListResponse, DeliveryResponse } from "@/lib/webhooks/schemas.ts";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";

const PAGE_SIZE = 20;

/** The query key of one subscription's delivery pages. */
export const deliveriesKey = (tenantId: string, webhookId: string) => ["webhook-deliveries", tenantId, webhookId] as const;

const statusStyle: Record<DeliveryResponse["status"], string> = {
  succeeded: "border-success/40 bg-success-soft text-success",
  failed: "border-danger/40 bg-danger-soft text-danger",
  pending: "border-line-strong bg-surface-subtle text-muted",
  delivering: "border-accent/40 bg-accent-soft text-accent",
};

const time = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });

export function DeliveryLog({ tenantId, webhookId }: { tenantId: string; webhookId: string }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const key = deliveriesKey(tenantId, webhookId);
  const query = useInfiniteQuery({
    queryKey: key,
    queryFn: ({ pageParam, signal }) =>
      apiFetch<DeliveryListResponse>(
        `/tenants/${tenantId}/webhooks/${webhookId}/deliveries?limit=${PAGE_SIZE}${pageParam ? `&before=${encodeURIComponent(pageParam)}` : ""}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    staleTime: 0,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending" || d.status === "delivering")) ? 2_000 : false),
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) =>
      apiFetch<{ delivery: DeliveryResponse }>(`/tenants/${tenantId}/webhooks/deliveries/${deliveryId}/retry`, { method: "POST" }),
    onSuccess: () => {
      toast.success("Delivery queued again");
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (err) => toast.error(err.message),
  });

  if (query.isPending)
    return (
      <p className="text-sm text-muted" role="status">
        Loading deliveries…
      </p>
    );
  if (query.isError) {
    return (
      <p className="text-sm text-danger" role="alert">
        Could not load deliveries: {query.error.message}{" "}
        <button type="button" className="underline" onClick={() => void query.refetch()}>
          Try again
        </button>
      </p>
    );
  }
  const deliveries = query.data.pages.flatMap((p) => p.deliveries);
  if (deliveries.length === 0) return <p className="text-sm text-muted">No deliveries yet. Send a test event to see one here.</p>;

  return (
    <div className="flex flex-col gap-3">
      <div className="overflow-x-auto">
        <table className="w-full min-w-[40rem] text-left text-sm">
          <caption className="sr-only">Deliveries, newest first</caption>
          <thead className="text-xs text-muted">
            <tr className="border-b border-line">
              <th scope="col" className="py-2 pr-3 font-medium">
                Time
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Event
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Status
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                HTTP
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Attempts
              </th>
              <th scope="col" className="py-2 pr-3 font-medium">
                Next retry / error
              </th>
              <th scope="col" className="py-2 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-line">
            {deliveries.map((d) => (
              <tr key={d.id} className="align-top">
                <td className="py-2 pr-3 whitespace-nowrap">
                  <time dateTime={d.createdAt}>{time(d.createdAt)}</time>
                </td>
                <td className="py-2 pr-3 font-mono text-xs">{d.event}</td>
                <td className="py-2 pr-3">
                  <span className={`inline-block rounded-md border px-2 py-0.5 text-xs font-medium ${statusStyle[d.status]}`}>{d.status}</span>
                </td>
                <td className="py-2 pr-3 font-mono">{d.responseStatus ?? "—"}</td>
                <td className="py-2 pr-3">{d.attempts}</td>
                <td className="max-w-xs py-2 pr-3 text-xs">
                  {d.status === "pending" && d.nextAttemptAt && d.attempts > 0 ? (
                    <p>
                      Next retry <time dateTime={d.nextAttemptAt}>{time(d.nextAttemptAt)}</time>
                    </p>
                  ) : null}
                  {d.lastError ? <p className="break-words text-danger">{d.lastError}</p> : null}
                  {d.status === "succeeded" && d.deliveredAt ? (
                    <p className="text-muted">
                      Delivered <time dateTime={d.deliveredAt}>{time(d.deliveredAt)}</time>
                    </p>
                  ) : null}
                </td>
                <td className="py-2 text-right">
                  {d.status === "failed" ? (
                    <button
                      type="button"
                      className="btn-secondary py-1 text-xs"
                      onClick={() => retry.mutate(d.id)}
                      disabled={retry.isPending && retry.variables === d.id}
                      aria-label={`Retry delivery of ${d.event} from ${time(d.createdAt)}`}
                    >
                      Retry
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm">
        {query.hasNextPage ? (
          <button type="button" className="btn-secondary py-1.5" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : "Load older deliveries"}
          </button>
        ) : (
          <span className="text-muted">{deliveries.length === 1 ? "1 delivery" : `All ${deliveries.length} deliveries`} shown.</span>
        )}
        <button type="button" className="text-accent underline" onClick={() => void query.refetch()}>
          Refresh
        </button>
      </div>
    </div>
  );
}
