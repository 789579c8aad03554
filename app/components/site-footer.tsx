// Site footer: what the hub is in one line, and the promise that matters when money moves.
import Link from "next/link";
import { LogoMark } from "./logo.tsx";

export function SiteFooter() {
  return (
    <footer className="mt-24 border-t border-line bg-surface-subtle">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 text-sm sm:grid-cols-[1fr_auto] sm:px-6">
        <div className="max-w-md space-y-3">
          <div className="flex items-center gap-2 font-semibold">
            <LogoMark className="size-5" />
            L402 Hub
          </div>
          <p className="text-muted">
            Pay-per-call HTTP APIs over Lightning. Non-custodial: every payment goes straight to the provider&apos;s own wallet, and the hub never holds your
            sats.
          </p>
        </div>
        <nav aria-label="Footer">
          <ul className="flex gap-6 text-muted sm:flex-col sm:gap-2 sm:text-right">
            <li>
              <Link href="/" className="hover:text-foreground">
                Home
              </Link>
            </li>
            <li>
              <Link href="/directory" className="hover:text-foreground">
                API directory
              </Link>
            </li>
            <li>
              <Link href="/list-your-api" className="hover:text-foreground">
                List your L402 API
              </Link>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
