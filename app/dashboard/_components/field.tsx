// A labelled form control with its hint and inline error, wired for screen readers
// (aria-invalid, aria-describedby). The control itself is passed in with the ids it needs.
import type { ReactNode } from "react";

export type FieldProps = {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string;
  /** Live status next to the label (e.g. the slug check). */
  status?: ReactNode;
  children: (control: { id: string; "aria-invalid": boolean; "aria-describedby"?: string }) => ReactNode;
};

export function Field({ id, label, hint, error, status, children }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-baseline justify-between gap-3">
        <label htmlFor={id} className="text-sm font-medium">
          {label}
        </label>
        {status}
      </div>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": describedBy })}
      {error ? (
        <p id={errorId} className="text-sm text-danger">
          {error}
        </p>
      ) : null}
      {hint ? (
        <p id={hintId} className="text-xs text-muted">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
