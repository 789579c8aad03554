"use client";
// Primary navigation; marks the current section with aria-current (rendered on the server too).
import Link from "next/link";
import { usePathname } from "next/navigation";

const links = [
  // The logo links home too, so narrow screens drop this entry to fit the others.
  { href: "/", label: "Home", matches: (p: string) => p === "/", wideOnly: true },
  { href: "/directory", label: "Directory", matches: (p: string) => p === "/directory" || p.startsWith("/directory/") },
  { href: "/docs", label: "Docs", matches: (p: string) => p === "/docs" || p.startsWith("/docs/") },
  { href: "/dashboard", label: "Dashboard", matches: (p: string) => p === "/dashboard" || p.startsWith("/dashboard/") || p === "/signin" },
];

export function NavLinks() {
  const pathname = usePathname() ?? "/";
  return (
    <ul className="flex items-center gap-1 text-sm">
      {links.map((link) => {
        const current = link.matches(pathname);
        return (
          <li key={link.href} className={"wideOnly" in link ? "hidden sm:block" : undefined}>
            <Link
              href={link.href}
              aria-current={current ? "page" : undefined}
              className={`rounded-md px-2 py-2 font-medium sm:px-3 transition-colors hover:bg-surface-subtle hover:text-foreground ${
                current ? "text-foreground" : "text-muted"
              }`}
            >
              {link.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
