"use client";
// The billing page's live part: where the workspace stands (free, trial, active, suspended), the
// cycle under way with its projected fee and each tier's share (the pure fee function, so the
// breakdown is the one the invoice will use), the invoice to pay and past cycles, older ones a page
// at a time. Paying goes through the try-it visitor wallet and invoice panel (WebLN, QR code, dev
// wallet); the page then asks POST …/billing/check, so a suspension lifts at once.
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { z } from "zod";
import { computeCycleFee, USAGE_FEE_CAP_PERCENT, type UsageTierName } from "@/lib/billing/fee.ts";
import type { billingCheckResponseSchema, billingResponseSchema, cycleListResponseSchema } from "@/lib/billing/schemas.ts";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import { createVisitorWallet, type VisitorPayment, type VisitorWallet } from "@/lib/try-it/visitor-wallet.ts";
import { InvoicePanel } from "@/app/components/invoice-panel.tsx";
import { useBrowserValue } from "@/app/components/use-browser-value.ts";
import { apiFetch } from "@/app/dashboard/_components/api-client.ts";
import { formatUtcDay, formatUtcDayAndTime } from "@/app/dashboard/_components/billing-dates.ts";
import { StatCard } from "@/app/dashboard/_components/stat-card.tsx";
import { billingQueryKey } from "@/app/dashboard/_components/suspension-banner.tsx";
import { useToast } from "@/app/dashboard/_components/toasts.tsx";

type Billing = z.output<typeof billingResponseSchema>;
type CycleList = z.output<typeof cycleListResponseSchema>;
type Cycle = CycleList["cycles"][number];
type BillingCheck = z.output<typeof billingCheckResponseSchema>;

/** The invoice being paid. */
type FeeInvoice = { paymentRequest: string; amountSats: number };

const count = new Intl.NumberFormat("en-US");

const tierLabel: Record<UsageTierName, string> = {
  free: "First 500 requests",
  tier_2_sats: "Requests 501 to 50,000",
  tier_1_sat: "Requests 50,001 to 500,000",
  tier_half_sat: "Requests above 500,000",
};

const statusLabel: Record<Cycle["status"], string> = {
  open: "Under way",
  invoiced: "Invoiced, unpaid",
  paid: "Paid",
  no_charge: "No charge",
  canceled: "Canceled",
};

const statusStyle: Record<Cycle["status"], string> = {
  open: "border-accent/40 bg-accent-soft text-accent",
  invoiced: "border-danger/40 bg-danger-soft text-danger",
  paid: "border-success/40 bg-success-soft text-success",
  no_charge: "border-line-strong bg-surface-subtle text-muted",
  canceled: "border-line-strong bg-surface-subtle text-muted",
};

/** Query keys of the page (the payment invalidates both). */
const billingKey = billingQueryKey;
const cyclesKey = (tenantId: string) => ["billing-cycles", tenantId] as const;

/** How often the page asks whether a shown invoice was paid from another wallet (QR code). */
const PAYMENT_POLL_MS = 4_000;

export function BillingPanel({
  tenantId,
  slug,
  exempt,
  isOwner,
  devWallet,
  initialBilling,
  initialCycles,
}: {
  tenantId: string;
  slug: string;
  /** The install's own API (demo, hosted examples): never billed. */
  exempt: boolean;
  /** Owners may ask the platform wallet at once; members wait for the worker's pass (about a minute). */
  isOwner: boolean;
  devWallet: boolean;
  initialBilling: Billing;
  initialCycles: CycleList;
}) {
  const billing = useQuery({
    queryKey: billingKey(tenantId),
    queryFn: ({ signal }) => apiFetch<Billing>(`/tenants/${tenantId}/billing`, { signal }),
    initialData: initialBilling,
    // Money state: asked again whenever the page is opened (the frame's client cache may be older).
    staleTime: 0,
  });
  const view = billing.data;
  const payments = useFeePayment({ tenantId, isOwner, devWallet });

  return (
    <div className="flex flex-col gap-8">
      <section aria-labelledby="state-heading" className="flex flex-col gap-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="state-heading" className="text-lg font-semibold">
            Plan
          </h2>
          <p role="status" className="text-xs text-muted">
            {billing.isFetching ? "Refreshing…" : ""}
          </p>
        </div>
        {billing.isError ? (
          <p role="alert" className="text-sm text-danger">
            Could not refresh the billing state: {billing.error.message}{" "}
            <button type="button" className="underline" onClick={() => void billing.refetch()}>
              Try again
            </button>
          </p>
        ) : null}
        <dl className="grid gap-3 sm:grid-cols-3">
          <StatCard label="Status" value={statusWords(view.status, exempt)} hint={statusHint(view, exempt)} />
          {view.trialEndsAt ? (
            <StatCard
              label={view.status === "trial" ? "Trial ends" : "Billed since"}
              value={formatUtcDay(view.trialEndsAt)}
              hint={formatUtcDayAndTime(view.trialEndsAt)}
            />
          ) : null}
          {view.currentCycle ? (
            <StatCard
              label="Current cycle"
              value={`${formatUtcDay(view.currentCycle.startsAt)} – ${formatUtcDay(view.currentCycle.endsAt)}`}
              hint="30 days, in UTC"
            />
          ) : null}
        </dl>
      </section>

      {view.outstandingInvoice ? (
        <section aria-labelledby="invoice-heading" className="card flex flex-col gap-3 border-danger/40">
          <h2 id="invoice-heading" className="text-lg font-semibold">
            Invoice to pay
          </h2>
          <p className="text-sm">
            {formatSats(view.outstandingInvoice.amountSats)}, due {formatUtcDayAndTime(view.outstandingInvoice.dueAt)}.{" "}
            {view.status === "suspended"
              ? "It is overdue: the workspace is suspended until it is paid."
              : "Unpaid after the due date, the workspace is suspended until it is paid."}
          </p>
          <PayInvoice invoice={view.outstandingInvoice} payments={payments} />
        </section>
      ) : null}

      {view.currentCycle ? (
        <CurrentCycle cycle={view.currentCycle} />
      ) : view.status === "free" ? (
        <section className="rounded-2xl border border-dashed border-line-strong bg-surface-subtle px-6 py-8 text-center text-sm text-muted">
          {exempt
            ? "This workspace is one of the install's own APIs: it is never billed."
            : "Free while empty: the one-month trial starts when you publish your first priced endpoint, and billing follows it."}
        </section>
      ) : (
        <section className="rounded-2xl border border-dashed border-line-strong bg-surface-subtle px-6 py-8 text-center text-sm text-muted">
          No cycle yet: the first one starts when the trial ends{view.trialEndsAt ? `, on ${formatUtcDay(view.trialEndsAt)}` : ""}.
        </section>
      )}

      <PastCycles tenantId={tenantId} slug={slug} initial={initialCycles} payments={payments} />
    </div>
  );
}

function statusWords(status: Billing["status"], exempt: boolean): string {
  if (status === "free") return exempt ? "Exempt" : "Free while empty";
  return { trial: "Free trial", active: "Active", suspended: "Suspended" }[status];
}

function statusHint(view: Billing, exempt: boolean): string {
  switch (view.status) {
    case "free":
      return exempt ? "The install's own API is never billed" : "No endpoint published yet";
    case "trial":
      return view.trialEndsAt ? `Until ${formatUtcDay(view.trialEndsAt)}` : "";
    case "active":
      return "Billed every 30 days";
    case "suspended":
      return "The gateway answers 403 until the invoice is paid";
  }
}

/** The cycle under way: figures so far, the projected fee and how the usage tiers share it. */
function CurrentCycle({ cycle }: { cycle: NonNullable<Billing["currentCycle"]> }) {
  const fee = computeCycleFee({ requests: cycle.requests, earningsSats: cycle.earningsSats });
  const largest = Math.max(1, ...fee.tiers.map((t) => t.requests));
  return (
    <section aria-labelledby="cycle-heading" className="flex flex-col gap-3">
      <h2 id="cycle-heading" className="text-lg font-semibold">
        This cycle so far
      </h2>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <StatCard label="Served requests" value={count.format(cycle.requests)} hint="2xx answers, not refunded" />
        <StatCard label="Earnings" value={formatSats(cycle.earningsSats)} hint="Settled invoices" />
        <StatCard label="Usage fee cap" value={formatSats(fee.capSats)} hint={`${USAGE_FEE_CAP_PERCENT}% of earnings`} />
        <StatCard
          label="Projected fee"
          value={formatSats(cycle.projectedFeeSats)}
          hint={cycle.requests === 0 ? "No traffic, no invoice" : "If the cycle ended now"}
        />
      </dl>
      <div className="card overflow-x-auto p-0">
        <table className="w-full text-sm">
          <caption className="px-4 pt-3 text-left text-xs text-muted">
            Each usage tier&apos;s share of this cycle&apos;s requests and what it adds to the fee (before the cap).
          </caption>
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted">
              <th scope="col" className="px-4 py-2 font-medium">
                Tier
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Requests
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                <span className="sr-only">Share of requests</span>
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Each
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Sats
              </th>
            </tr>
          </thead>
          <tbody>
            {fee.tiers.map((tier) => (
              <tr key={tier.tier} className="border-b border-line last:border-0">
                <th scope="row" className="px-4 py-2 text-left font-normal">
                  {tierLabel[tier.tier]}
                </th>
                <td className="px-4 py-2 text-right tabular-nums">{count.format(tier.requests)}</td>
                <td className="w-1/4 px-4 py-2" aria-hidden="true">
                  <div className="h-2 rounded-full bg-surface-subtle">
                    <div className="h-2 rounded-full bg-accent" style={{ width: `${(tier.requests / largest) * 100}%` }} />
                  </div>
                </td>
                <td className="px-4 py-2 text-right tabular-nums">{tier.satsEach === 0 ? "free" : `${tier.satsEach} ${tier.satsEach > 1 ? "sats" : "sat"}`}</td>
                <td className="px-4 py-2 text-right tabular-nums">{count.format(tier.sats)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot className="text-sm">
            <tr className="border-t border-line">
              <th scope="row" colSpan={4} className="px-4 py-2 text-left font-normal">
                Usage fee{fee.capApplied ? ` (capped at ${USAGE_FEE_CAP_PERCENT}% of earnings, from ${formatSats(fee.uncappedUsageFeeSats)})` : ""}
              </th>
              <td className="px-4 py-2 text-right tabular-nums">{count.format(fee.usageFeeSats)}</td>
            </tr>
            <tr>
              <th scope="row" colSpan={4} className="px-4 py-2 text-left font-normal">
                Base fee{fee.baseFeeSats === 0 ? " (none without traffic)" : ""}
              </th>
              <td className="px-4 py-2 text-right tabular-nums">{count.format(fee.baseFeeSats)}</td>
            </tr>
            <tr className="font-semibold">
              <th scope="row" colSpan={4} className="px-4 py-2 text-left">
                Projected fee
              </th>
              <td className="px-4 py-2 text-right tabular-nums">{count.format(fee.amountSats)}</td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
  );
}

/** Closed and current cycles, newest first, a page at a time as the API pages them. */
function PastCycles({ tenantId, slug, initial, payments }: { tenantId: string; slug: string; initial: CycleList; payments: FeePayments }) {
  const cycles = useInfiniteQuery({
    queryKey: cyclesKey(tenantId),
    queryFn: ({ pageParam, signal }) =>
      apiFetch<CycleList>(`/tenants/${tenantId}/billing/cycles${pageParam ? `?before=${encodeURIComponent(pageParam)}` : ""}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
    staleTime: 0,
  });
  const rows = cycles.data?.pages.flatMap((p) => p.cycles) ?? [];
  return (
    <section aria-labelledby="cycles-heading" className="flex flex-col gap-3">
      <h2 id="cycles-heading" className="text-lg font-semibold">
        Cycles and invoices
      </h2>
      {cycles.isError ? (
        <p role="alert" className="text-sm text-danger">
          Could not load the cycles: {cycles.error.message}{" "}
          <button type="button" className="underline" onClick={() => void cycles.refetch()}>
            Try again
          </button>
        </p>
      ) : null}
      {rows.length === 0 ? (
        <p className="rounded-2xl border border-dashed border-line-strong bg-surface-subtle px-6 py-8 text-center text-sm text-muted">
          No cycles yet. The first starts when {slug}&apos;s trial ends; each closes after 30 days with an invoice if it had traffic.
        </p>
      ) : (
        <div className="card overflow-x-auto p-0">
          <table className="w-full text-sm">
            <caption className="sr-only">Billing cycles, newest first</caption>
            <thead>
              <tr className="border-b border-line text-left text-xs text-muted">
                <th scope="col" className="px-4 py-2 font-medium">
                  Cycle
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium">
                  Requests
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium">
                  Earnings
                </th>
                <th scope="col" className="px-4 py-2 text-right font-medium">
                  Fee
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Status
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((cycle) => (
                <tr key={cycle.startsAt} className="border-b border-line align-top last:border-0">
                  <th scope="row" className="px-4 py-2 text-left font-normal whitespace-nowrap">
                    {formatUtcDay(cycle.startsAt)} – {formatUtcDay(cycle.endsAt)}
                  </th>
                  <td className="px-4 py-2 text-right tabular-nums">{count.format(cycle.requests)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatSats(cycle.earningsSats)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">
                    {formatSats(cycle.amountSats)}
                    <span className="block text-xs text-muted">
                      {count.format(cycle.baseFeeSats)} base + {count.format(cycle.usageFeeSats)} usage
                      {cycle.status === "open" ? " so far" : ""}
                    </span>
                  </td>
                  <td className="px-4 py-2">
                    <span className={`inline-block rounded-full border px-2 py-0.5 text-xs font-medium ${statusStyle[cycle.status]}`}>
                      {statusLabel[cycle.status]}
                    </span>
                    {cycle.status === "invoiced" && cycle.paymentRequest ? (
                      <div className="mt-2">
                        <PayInvoice invoice={{ paymentRequest: cycle.paymentRequest, amountSats: cycle.amountSats }} payments={payments} compact />
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cycles.hasNextPage ? (
        <button type="button" className="btn-secondary self-start" disabled={cycles.isFetchingNextPage} onClick={() => void cycles.fetchNextPage()}>
          {cycles.isFetchingNextPage ? "Loading…" : "Load older cycles"}
        </button>
      ) : null}
    </section>
  );
}

/** The "Pay" button of one invoice, and the invoice panel while that invoice is being paid. */
function PayInvoice({ invoice, payments, compact = false }: { invoice: FeeInvoice; payments: FeePayments; compact?: boolean }) {
  const open = payments.paying?.paymentRequest === invoice.paymentRequest;
  if (open && payments.payment && !compact) {
    return (
      <div className="flex flex-col gap-2">
        <InvoicePanel
          payment={payments.payment}
          hasWebln={payments.hasWebln}
          devWallet={payments.devWallet}
          onPayWithWebln={() => payments.wallet?.payWithWebln()}
          onPayWithDevWallet={() => payments.wallet?.payWithDevWallet()}
          onPreimage={() => undefined}
          onCancel={payments.cancel}
          payee="to the platform"
          waitingHint="Scan with any Lightning wallet. This page notices the payment by itself."
          allowPreimage={false}
        />
        {payments.confirming ? (
          <p role="status" className="text-sm text-muted">
            Paid. Confirming with the platform&apos;s wallet…
          </p>
        ) : null}
      </div>
    );
  }
  if (open && compact) return <p className="text-xs text-muted">Being paid above.</p>;
  return (
    <button
      type="button"
      className={compact ? "btn-secondary py-1 text-xs" : "btn-primary self-start"}
      disabled={payments.paying !== null || !payments.wallet}
      onClick={() => payments.pay(invoice)}
      aria-label={compact ? `Pay ${formatSats(invoice.amountSats)}` : undefined}
    >
      {compact ? "Pay" : `Pay ${formatSats(invoice.amountSats)}`}
    </button>
  );
}

type FeePayments = {
  /** The invoice being paid, or null. */
  paying: FeeInvoice | null;
  /** The invoice panel's view of it. */
  payment: VisitorPayment | null;
  wallet: VisitorWallet | null;
  hasWebln: boolean;
  devWallet: boolean;
  /** The wallet paid; the page is waiting for the platform to record it. */
  confirming: boolean;
  pay: (invoice: FeeInvoice) => void;
  cancel: () => void;
};

/**
 * Paying a fee invoice: the try-it visitor wallet shows it (WebLN at once when present, the dev
 * wallet, a QR code for any other wallet) and resolves when an in-browser wallet paid; meanwhile
 * the page polls whether the invoice is still outstanding, which catches a scanned payment too.
 * Owners poll POST …/billing/check (records the payment and lifts a suspension at once); members
 * poll GET …/billing (the worker records it within a minute). Then the page and its frame (the
 * suspension banner) refresh.
 */
function useFeePayment({ tenantId, isOwner, devWallet }: { tenantId: string; isOwner: boolean; devWallet: boolean }): FeePayments {
  const toast = useToast();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [payment, setPayment] = useState<VisitorPayment | null>(null);
  const [paying, setPaying] = useState<FeeInvoice | null>(null);
  const [confirming, setConfirming] = useState(false);
  // Browser-safe to make during render: it touches nothing of the browser until a payment starts.
  const [wallet] = useState<VisitorWallet>(() => createVisitorWallet({ devPayUrl: devWallet ? "/api/dev/lightning/pay" : null, onChange: setPayment }));
  const hasWebln = useBrowserValue(() => typeof (window as { webln?: unknown }).webln === "object" && (window as { webln?: unknown }).webln !== null, false);
  const current = useRef<AbortController | null>(null);

  // Leaving the page ends a payment in progress (its polling too).
  useEffect(() => () => current.current?.abort(new Error("left the page")), []);

  /** Whether `invoice` is no longer outstanding (paid and recorded), asking the way the caller may. */
  async function settled(invoice: FeeInvoice, signal: AbortSignal): Promise<boolean> {
    const view = isOwner
      ? (await apiFetch<BillingCheck>(`/tenants/${tenantId}/billing/check`, { method: "POST", signal })).billing
      : await apiFetch<Billing>(`/tenants/${tenantId}/billing`, { signal });
    queryClient.setQueryData(billingKey(tenantId), view);
    return view.outstandingInvoice?.paymentRequest !== invoice.paymentRequest;
  }

  /** Polls until `invoice` is seen settled (true) or the payment is over (false); the first ask after `firstMs`. */
  async function waitUntilSettled(invoice: FeeInvoice, signal: AbortSignal, firstMs: number): Promise<boolean> {
    for (let wait = firstMs; !signal.aborted; wait = PAYMENT_POLL_MS) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      if (signal.aborted) return false;
      try {
        if (await settled(invoice, signal)) return true;
      } catch {
        // A rate limit or a blip: ask again at the next round.
      }
    }
    return false;
  }

  function finish(controller: AbortController) {
    if (current.current !== controller) return;
    current.current = null;
    setPaying(null);
    setPayment(null);
    setConfirming(false);
  }

  async function runPayment(open: VisitorWallet, invoice: FeeInvoice, controller: AbortController) {
    const { signal } = controller;
    let paid = false;
    // A wallet that is not in this browser (a phone scanning the QR code) is seen by polling.
    const polling = waitUntilSettled(invoice, signal, PAYMENT_POLL_MS).then((seen) => {
      if (!seen) return;
      paid = true;
      controller.abort(new Error("paid"));
    });
    try {
      await open.pay({ invoice: invoice.paymentRequest, amountSats: invoice.amountSats, signal });
      // Paid in this browser (WebLN, dev wallet): ask at once, then as the polling does.
      setConfirming(true);
      paid = paid || (await waitUntilSettled(invoice, signal, 0));
    } catch {
      // Canceled, or the polling saw it paid and ended the wallet's payment.
    }
    controller.abort(new Error("done"));
    await polling;
    finish(controller);
    if (!paid) return;
    toast.success("Invoice paid. The workspace is active.");
    await Promise.all([queryClient.invalidateQueries({ queryKey: cyclesKey(tenantId) }), queryClient.invalidateQueries({ queryKey: billingKey(tenantId) })]);
    // The frame's suspension banner is rendered on the server.
    router.refresh();
  }

  function pay(invoice: FeeInvoice) {
    if (!wallet) return;
    current.current?.abort(new Error("replaced"));
    const controller = new AbortController();
    current.current = controller;
    setPaying(invoice);
    void runPayment(wallet, invoice, controller);
  }

  return {
    paying,
    payment,
    wallet,
    hasWebln,
    devWallet,
    confirming,
    pay,
    cancel: () => {
      const controller = current.current;
      controller?.abort(new Error("canceled"));
      if (controller) finish(controller);
    },
  };
}
