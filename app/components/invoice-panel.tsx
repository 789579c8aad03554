"use client";
// A Lightning invoice to pay, as try-it and the dashboard's billing page show it: the amount, a QR
// code and the copyable BOLT11 string for a phone wallet (the page learns of the payment by
// itself), and the in-browser ways to pay: WebLN and, with the dev node on, the dev wallet. A
// pasted preimage is try-it's last resort for wallets that pay but whose provider does not report
// preimages (the billing page asks the platform's wallet instead, so it has none).
import { QRCodeSVG } from "qrcode.react";
import { useId, useState } from "react";
import { formatSats } from "@/lib/pricing/describe-price.ts";
import { paymentHashOf } from "@l402-hub/sdk/client";
import type { VisitorPayment } from "@/lib/try-it/visitor-wallet.ts";

type InvoicePanelProps = {
  /** The invoice on screen and how paying it goes (the visitor wallet's view). */
  payment: VisitorPayment;
  hasWebln: boolean;
  devWallet: boolean;
  onPayWithWebln: () => void;
  onPayWithDevWallet: () => void;
  onPreimage: (preimage: string) => void;
  onCancel: () => void;
  /** Who is paid, after "Pay N sats": try-it's default is the provider's wallet. */
  payee?: string;
  /** What the page does once a scanned invoice is paid (shown while waiting). */
  waitingHint?: string;
  /** Offer pasting a preimage (try-it); false where the payment is checked with the payee's wallet. */
  allowPreimage?: boolean;
};

export function InvoicePanel({
  payment,
  hasWebln,
  devWallet,
  onPayWithWebln,
  onPayWithDevWallet,
  onPreimage,
  onCancel,
  payee = "to the provider's wallet",
  waitingHint = "Scan with any Lightning wallet. This page notices the payment and finishes the call by itself.",
  allowPreimage = true,
}: InvoicePanelProps) {
  const uid = useId();
  const [copied, setCopied] = useState(false);
  const [pasted, setPasted] = useState("");
  const [pasteProblem, setPasteProblem] = useState<string | null>(null);
  const { invoice: toPay, channel } = payment;
  const paying = channel.kind === "webln" || channel.kind === "dev";
  const amount = formatSats(toPay.amountSats);

  async function submitPreimage() {
    const value = pasted.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(value)) return setPasteProblem("A preimage is 64 hexadecimal characters.");
    if (toPay.paymentHash && (await paymentHashOf(value)) !== toPay.paymentHash) return setPasteProblem("This preimage does not belong to this invoice.");
    setPasteProblem(null);
    onPreimage(value);
  }

  return (
    <div role="group" aria-label="Lightning invoice" className="rounded-xl border border-line bg-surface p-4">
      <p className="text-sm">
        Pay <span className="font-semibold">{amount}</span>
        {toPay.creditSats !== null ? <span className="text-muted"> of prepaid credit</span> : null} {payee}.
      </p>
      <div className="mt-3 grid gap-4 sm:grid-cols-[auto_minmax(0,1fr)]">
        <a
          href={`lightning:${toPay.invoice}`}
          className="mx-auto block w-fit rounded-lg bg-white p-2 sm:mx-0"
          aria-label={`Open the invoice for ${amount} in a Lightning wallet`}
        >
          <QRCodeSVG value={`lightning:${toPay.invoice.toUpperCase()}`} size={176} level="M" role="img" aria-label="QR code of the Lightning invoice" />
        </a>
        <div className="min-w-0 space-y-3">
          <div>
            <label htmlFor={`${uid}-invoice`} className="text-xs text-muted">
              Invoice (BOLT11)
            </label>
            <div className="mt-1 flex gap-2">
              <input
                id={`${uid}-invoice`}
                readOnly
                value={toPay.invoice}
                onFocus={(e) => e.currentTarget.select()}
                className="min-w-0 flex-1 rounded-lg border border-line-strong bg-surface-subtle px-2 py-1.5 font-mono text-xs"
              />
              <button
                type="button"
                onClick={() =>
                  navigator.clipboard?.writeText(toPay.invoice).then(
                    () => setCopied(true),
                    () => setCopied(false),
                  )
                }
                className="shrink-0 rounded-lg border border-line-strong px-3 py-1.5 text-xs font-medium hover:bg-surface-subtle"
              >
                {copied ? "Copied" : "Copy invoice"}
              </button>
            </div>
          </div>
          <p className="text-xs text-muted" aria-live="polite">
            {channel.kind === "webln"
              ? "Waiting for your WebLN wallet…"
              : channel.kind === "dev"
                ? "Paying with the dev wallet…"
                : channel.kind === "failed"
                  ? channel.message
                  : waitingHint}
          </p>
          <div className="flex flex-wrap gap-2">
            {hasWebln ? (
              <button
                type="button"
                disabled={paying}
                onClick={onPayWithWebln}
                className="rounded-lg bg-accent px-3 py-1.5 text-sm font-semibold text-white hover:opacity-90 disabled:opacity-50 dark:text-zinc-950"
              >
                Pay with WebLN wallet
              </button>
            ) : null}
            {devWallet ? (
              <button
                type="button"
                disabled={paying}
                onClick={onPayWithDevWallet}
                className="rounded-lg border border-line-strong px-3 py-1.5 text-sm font-medium hover:bg-surface-subtle disabled:opacity-50"
              >
                Pay with dev wallet
              </button>
            ) : null}
            <button type="button" onClick={onCancel} className="rounded-lg px-3 py-1.5 text-sm text-muted hover:text-foreground">
              Cancel
            </button>
          </div>
          {allowPreimage ? (
            <details open={channel.kind === "failed" && channel.canPaste} className="text-xs">
              <summary className="cursor-pointer text-muted">Paid, but the page does not continue? Paste the preimage</summary>
              <div className="mt-2 flex flex-wrap items-start gap-2">
                <label htmlFor={`${uid}-preimage`} className="sr-only">
                  Preimage from your wallet
                </label>
                <input
                  id={`${uid}-preimage`}
                  value={pasted}
                  onChange={(e) => setPasted(e.target.value)}
                  placeholder="64 hex characters"
                  aria-invalid={pasteProblem ? true : undefined}
                  aria-describedby={pasteProblem ? `${uid}-preimage-problem` : undefined}
                  className="min-w-0 flex-1 rounded-lg border border-line-strong bg-surface-subtle px-2 py-1.5 font-mono text-xs"
                />
                <button
                  type="button"
                  onClick={() => void submitPreimage()}
                  className="rounded-lg border border-line-strong px-3 py-1.5 font-medium hover:bg-surface-subtle"
                >
                  Use preimage
                </button>
              </div>
              {pasteProblem ? (
                <p id={`${uid}-preimage-problem`} className="mt-1 text-rose-700 dark:text-rose-300">
                  {pasteProblem}
                </p>
              ) : null}
            </details>
          ) : null}
        </div>
      </div>
    </div>
  );
}
