"use client";
// The three steps of paying from try-it (1. Invoice, 2. Paying, 3. Loading), the current one marked
// for screen readers (aria-current="step") and the done ones ticked.
import type { PaymentStep } from "@/lib/try-it/try-it-run.ts";

const steps: { step: PaymentStep; label: string }[] = [
  { step: "invoice", label: "Invoice" },
  { step: "paying", label: "Paying" },
  { step: "loading", label: "Loading" },
];

export function PaymentSteps({ current }: { current: PaymentStep }) {
  const at = steps.findIndex((s) => s.step === current);
  return (
    <ol aria-label="Payment steps" className="flex flex-wrap gap-2 text-xs">
      {steps.map(({ step, label }, i) => {
        const state = i < at ? "done" : i === at ? "current" : "next";
        return (
          <li
            key={step}
            aria-current={state === "current" ? "step" : undefined}
            className={`rounded-full px-2.5 py-1 font-medium ${
              state === "current"
                ? "bg-accent-soft text-accent"
                : state === "done"
                  ? "bg-emerald-50 text-emerald-800 dark:bg-emerald-400/10 dark:text-emerald-300"
                  : "text-muted"
            }`}
          >
            {i + 1}. {label}
            {state === "done" ? " ✓" : ""}
          </li>
        );
      })}
    </ol>
  );
}
