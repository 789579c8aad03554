"use client";
// Buying prepaid credit from try-it (per_request APIs): the amount, and a button that buys it with
// the call. Spent on this API's per_request endpoints during the visit; never refunded.
import { useState } from "react";

type CreditPurchaseProps = {
  /** Prefix of the input's id (useId of the panel). */
  uid: string;
  /** The amount offered first. */
  initialSats: number;
  disabled: boolean;
  onBuy: (sats: number) => void;
};

export function CreditPurchase({ uid, initialSats, disabled, onBuy }: CreditPurchaseProps) {
  const [amount, setAmount] = useState(String(initialSats));
  const valid = /^[1-9][0-9]*$/.test(amount.trim());
  return (
    <details className="rounded-lg border border-line bg-surface px-3 py-2 text-sm">
      <summary className="cursor-pointer font-medium">Buy prepaid credit</summary>
      <p className="mt-2 text-muted">
        Pay once and spend it on this API&apos;s per-request endpoints during this visit; each call burns its own price. Unused credit is not refunded.
      </p>
      <div className="mt-2 flex flex-wrap items-end gap-2">
        <div>
          <label htmlFor={`${uid}-credit`} className="block text-xs text-muted">
            Credit in sats
          </label>
          <input
            id={`${uid}-credit`}
            inputMode="numeric"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
            className="mt-1 w-32 rounded-lg border border-line-strong bg-surface px-3 py-1.5 font-mono text-sm"
          />
        </div>
        <button
          type="button"
          disabled={disabled || !valid}
          onClick={() => onBuy(Number(amount.trim()))}
          className="rounded-lg border border-line-strong px-3 py-1.5 text-sm font-medium hover:bg-surface-subtle disabled:opacity-50"
        >
          Buy credit and send
        </button>
      </div>
    </details>
  );
}
