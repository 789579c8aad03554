"use client";
// Shown above every page of a suspended workspace (app/dashboard/[slug]/layout.tsx): why the
// gateway refuses its calls (an unpaid platform fee invoice) and where to pay it. The frame is
// rendered once and kept across the dashboard's client navigations, so the banner follows the
// billing view (GET …/billing, refreshed with the billing page's query): it appears when a suspension happens
// while the dashboard is open (checked on every page and every minute) and goes the moment the billing page records
// the payment. The server's answer is shown until the first fetch.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect } from "react";
import type { z } from "zod";
import type { billingResponseSchema } from "@/lib/billing/schemas.ts";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import { apiFetch } from "./api-client.ts";
import { formatUtcDay } from "./billing-dates.ts";

type Billing = z.output<typeof billingResponseSchema>;

/** What the banner says: the unpaid invoice, when known. */
export type SuspensionNotice = { amountSats: number; dueAt: string } | null;

/**
 * The billing view's query key (the billing page's); the banner's own query sits below it, so
 * invalidating the page's key refreshes the banner too (the page seeds its query with the server's
 * data, which a shared query would ignore once the banner had created it).
 */
export const billingQueryKey = (tenantId: string) => ["billing", tenantId] as const;

export function SuspensionBanner({
  tenantId,
  billingHref,
  initial,
}: {
  tenantId: string;
  billingHref: string;
  /** Where the server found the workspace: suspended (and for which invoice) or not. */
  initial: { suspended: boolean; notice: SuspensionNotice };
}) {
  const billing = useQuery({
    queryKey: [...billingQueryKey(tenantId), "banner"],
    queryFn: ({ signal }) => apiFetch<Billing>(`/tenants/${tenantId}/billing`, { signal }),
    refetchInterval: 60_000,
  });
  // Asked again on every page of the dashboard: a suspension shows on the next page visited.
  const pathname = usePathname();
  const { refetch } = billing;
  useEffect(() => {
    void refetch();
  }, [pathname, refetch]);
  const suspended = billing.data ? billing.data.status === "suspended" : initial.suspended;
  if (!suspended) return null;
  const notice: SuspensionNotice = billing.data
    ? billing.data.outstandingInvoice && { amountSats: billing.data.outstandingInvoice.amountSats, dueAt: billing.data.outstandingInvoice.dueAt }
    : initial.notice;
  return (
    <section aria-labelledby="suspension-heading" className="mb-6 rounded-xl border border-danger/40 bg-danger-soft px-4 py-3 text-sm text-danger">
      <h2 id="suspension-heading" className="font-semibold">
        This workspace is suspended
      </h2>
      <p className="mt-1">
        {notice ? (
          <>
            The platform fee invoice of {formatSats(notice.amountSats)} has been unpaid since it was due on {formatUtcDay(notice.dueAt)}.{" "}
          </>
        ) : (
          <>A platform fee invoice is unpaid. </>
        )}
        Until it is paid the gateway answers 403 to every call and the directory hides your API. Paying reactivates it at once.
      </p>
      <p className="mt-2">
        <Link href={billingHref} className="font-semibold underline">
          Pay the invoice on the billing page
        </Link>
      </p>
    </section>
  );
}
