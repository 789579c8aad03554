// The L402 round trip at a glance (home page hero): ask, pay, retry. Real path and price when an
// API is listed, so the picture matches what the reader will see.
import type { ReactNode } from "react";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import { BoltIcon } from "./icons.tsx";
import { MethodBadge } from "./method-badge.tsx";

type PaymentFlowProps = { method: string; path: string; priceSats: number };

const statusPill = {
  pending: "bg-amber-100 text-amber-900 dark:bg-amber-400/15 dark:text-amber-300",
  ok: "bg-emerald-100 text-emerald-900 dark:bg-emerald-400/15 dark:text-emerald-300",
} as const;

function Step({ n, children, status, tone, note }: { n: number; children: ReactNode; status: string; tone: keyof typeof statusPill; note: string }) {
  return (
    <li className="rounded-xl border border-line bg-surface px-4 py-3">
      <div className="flex items-center gap-3">
        <span className="sr-only">Step {n}:</span>
        <div className="flex min-w-0 flex-1 items-center gap-2.5">{children}</div>
        <span className={`shrink-0 rounded-md px-2 py-0.5 font-mono text-xs font-semibold ${statusPill[tone]}`}>{status}</span>
      </div>
      <p className="mt-1.5 text-xs text-muted">{note}</p>
    </li>
  );
}

export function PaymentFlow({ method, path, priceSats }: PaymentFlowProps) {
  return (
    <figure className="rounded-2xl border border-line bg-surface-subtle p-3 shadow-xl shadow-black/5 dark:shadow-black/40">
      <figcaption className="px-2 pt-1 pb-3 text-xs font-medium text-muted">One paid call, end to end</figcaption>
      <ol className="space-y-2">
        <Step n={1} status="402" tone="pending" note={`Payment Required: a ${formatSats(priceSats)} invoice and a macaroon`}>
          <MethodBadge method={method} />
          <code className="truncate font-mono text-[13px]">{path}</code>
        </Step>
        <Step n={2} status="paid" tone="ok" note="Any Lightning wallet; the preimage is the receipt">
          <BoltIcon className="size-4 shrink-0 text-accent" />
          <span className="truncate text-sm">Pay {formatSats(priceSats)} to the provider</span>
        </Step>
        <Step n={3} status="200" tone="ok" note="Authorization: L402 <macaroon>:<preimage>">
          <MethodBadge method={method} />
          <code className="truncate font-mono text-[13px]">{path}</code>
        </Step>
      </ol>
    </figure>
  );
}
