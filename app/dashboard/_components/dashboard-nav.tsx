"use client";
// The workspace's section navigation (from dashboardSections), current page marked.
import Link from "next/link";
import { usePathname } from "next/navigation";
import { dashboardSections, sectionHref } from "./sections.ts";

export function DashboardNav({ slug }: { slug: string }) {
  const pathname = usePathname() ?? "";
  return (
    <nav aria-label="Workspace">
      <ul className="flex gap-1 overflow-x-auto text-sm lg:flex-col lg:overflow-visible">
        {dashboardSections.map((section) => {
          const href = sectionHref(slug, section.id)!;
          const current = section.segment ? pathname === href || pathname.startsWith(`${href}/`) : pathname === href;
          return (
            <li key={section.id} className="shrink-0">
              <Link
                href={href}
                aria-current={current ? "page" : undefined}
                className={`block rounded-md px-3 py-2 font-medium transition-colors hover:bg-surface-subtle ${current ? "bg-surface-subtle text-foreground" : "text-muted"}`}
              >
                {section.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
