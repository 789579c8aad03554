// Workspace switcher: a disclosure (native <details>, keyboard and screen-reader friendly without
// script) listing the user's workspaces and a link to create another.
import Link from "next/link";
import type { WorkspaceSummary } from "@/lib/workspaces/schemas.ts";

export function WorkspaceSwitcher({ current, workspaces }: { current: { slug: string; name: string }; workspaces: WorkspaceSummary[] }) {
  return (
    <details className="group relative">
      <summary className="flex cursor-pointer list-none items-center gap-2 rounded-lg border border-line-strong bg-surface px-3 py-2 text-sm font-medium shadow-sm hover:bg-surface-subtle [&::-webkit-details-marker]:hidden">
        <span className="sr-only">Switch workspace, current: </span>
        <span className="max-w-48 truncate">{current.name}</span>
        <span aria-hidden className="text-muted transition-transform group-open:rotate-180">
          ▾
        </span>
      </summary>
      <div className="absolute left-0 z-20 mt-2 w-72 rounded-xl border border-line bg-surface p-1.5 shadow-lg">
        <ul aria-label="Your workspaces">
          {workspaces.map((w) => (
            <li key={w.id}>
              <Link
                href={`/dashboard/${w.slug}`}
                aria-current={w.slug === current.slug ? "page" : undefined}
                className="flex items-center justify-between gap-2 rounded-md px-3 py-2 text-sm hover:bg-surface-subtle aria-[current=page]:font-semibold"
              >
                <span className="truncate">{w.name}</span>
                <span className="shrink-0 text-xs text-muted">{w.role}</span>
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-1 border-t border-line pt-1">
          <Link href="/dashboard/new" className="block rounded-md px-3 py-2 text-sm font-medium text-accent hover:bg-surface-subtle">
            + New workspace
          </Link>
        </div>
      </div>
    </details>
  );
}
