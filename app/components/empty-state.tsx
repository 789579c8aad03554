// A friendly "nothing here" panel with what to do next.
import type { ReactNode } from "react";

export function EmptyState({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="rounded-2xl border border-dashed border-line-strong bg-surface-subtle px-6 py-12 text-center">
      <h2 className="text-base font-semibold">{title}</h2>
      {children ? <div className="mx-auto mt-2 max-w-md text-sm leading-6 text-muted">{children}</div> : null}
      {action ? <div className="mt-6 flex justify-center">{action}</div> : null}
    </div>
  );
}
