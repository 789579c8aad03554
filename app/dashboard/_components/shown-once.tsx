"use client";
// A secret the server returns exactly once (webhook signing secret, API key): shown with a copy
// button and a plain warning, focused when it appears so keyboard and screen-reader users land on it,
// and gone for good when dismissed.
import { useEffect, useRef, type ReactNode } from "react";
import { CodeBlock } from "@/app/components/code-block.tsx";

export type ShownOnceProps = {
  /** Heading, e.g. "Signing secret of https://…". */
  title: string;
  secret: string;
  copyLabel: string;
  /** Extra content under the secret (usage example). */
  children?: ReactNode;
  onDismiss: () => void;
};

export function ShownOnce({ title, secret, copyLabel, children, onDismiss }: ShownOnceProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div
      ref={ref}
      tabIndex={-1}
      role="region"
      aria-label={title}
      className="flex flex-col gap-3 rounded-lg border border-accent/40 bg-accent-soft px-4 py-4 outline-none focus-visible:ring-2 focus-visible:ring-accent-ring"
    >
      <div>
        <h3 className="font-semibold">{title}</h3>
        <p className="mt-1 text-sm">
          <strong>Copy it now: you will not see it again.</strong> We keep only what we need to check it; if you lose it, make a new one.
        </p>
      </div>
      <CodeBlock code={secret} copyLabel={copyLabel} wrap />
      {children}
      <div>
        <button type="button" className="btn-secondary" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
