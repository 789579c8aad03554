// Shown above every page of a suspended workspace (app/dashboard/[slug]/layout.tsx): why the
// gateway refuses its calls (an unpaid platform fee invoice) and where to pay it. Paying on the
// billing page reactivates the workspace at once and refreshes this frame, which removes it.
import Link from "next/link";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import type { Suspension } from "@/lib/billing/get-billing.ts";
import { formatUtcDay } from "./billing-dates.ts";

export function SuspensionBanner({ suspension, billingHref }: { suspension: Suspension | null; billingHref: string }) {
  return (
    <section aria-labelledby="suspension-heading" className="mb-6 rounded-xl border border-danger/40 bg-danger-soft px-4 py-3 text-sm text-danger">
      <h2 id="suspension-heading" className="font-semibold">
        This workspace is suspended
      </h2>
      <p className="mt-1">
        {suspension ? (
          <>
            The platform fee invoice of {formatSats(suspension.amountSats)} has been unpaid since it was due on {formatUtcDay(suspension.dueAt)}.{" "}
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
