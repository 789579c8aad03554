"use client";
// An inline "are you sure?": what will happen, a danger button that does it, and Cancel.
import type { ReactNode } from "react";

export function ConfirmGroup({
  label,
  children,
  confirmText,
  pendingText,
  pending,
  onConfirm,
  onCancel,
}: {
  /** The group's accessible name, e.g. "Confirm deletion". */
  label: string;
  /** What confirming does. */
  children: ReactNode;
  confirmText: string;
  /** The confirm button's text while the action runs (default: confirmText). */
  pendingText?: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div role="group" aria-label={label} className="flex flex-wrap items-center gap-2 text-sm">
      <span>{children}</span>
      <button type="button" className="btn-danger py-1.5" onClick={onConfirm} disabled={pending} autoFocus>
        {pending ? (pendingText ?? confirmText) : confirmText}
      </button>
      <button type="button" className="btn-secondary py-1.5" onClick={onCancel} disabled={pending}>
        Cancel
      </button>
    </div>
  );
}
