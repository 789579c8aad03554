// Site header: product name and the sections that exist.
import Link from "next/link";
import { LogoMark } from "./logo.tsx";
import { NavLinks } from "./nav-links.tsx";

export function SiteHeader() {
  return (
    <header className="sticky top-0 z-30 border-b border-line bg-background/85 backdrop-blur supports-[backdrop-filter]:bg-background/70">
      <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
        <Link href="/" className="flex shrink-0 items-center gap-2.5 rounded-md font-semibold tracking-tight whitespace-nowrap">
          <LogoMark />
          <span>L402 Hub</span>
        </Link>
        <nav aria-label="Main" className="min-w-0">
          <NavLinks />
        </nav>
      </div>
    </header>
  );
}
