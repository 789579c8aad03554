// 404 for any unknown address, including an API slug that is not (or no longer) listed.
import type { Metadata } from "next";
import Link from "next/link";
import { SearchForm } from "./components/search-form.tsx";

export const metadata: Metadata = { title: "Not found", robots: { index: false } };

export default function NotFound() {
  return (
    <div className="mx-auto max-w-2xl px-4 py-20 text-center sm:px-6 sm:py-28">
      <p className="font-mono text-sm font-medium text-accent">404</p>
      <h1 className="mt-3 text-3xl font-semibold tracking-tight">This page does not exist</h1>
      <p className="mt-4 leading-7 text-muted">
        If you followed a link to an API, it may have been renamed or unlisted by its provider. Search the directory for it instead.
      </p>
      <div className="mx-auto mt-8 max-w-md text-left">
        <SearchForm id="not-found-search" />
      </div>
      <div className="mt-8 flex justify-center gap-3 text-sm">
        <Link href="/directory" className="rounded-lg bg-foreground px-4 py-2 font-medium text-background hover:opacity-90">
          Browse the directory
        </Link>
        <Link href="/" className="rounded-lg border border-line px-4 py-2 font-medium hover:border-line-strong">
          Home
        </Link>
      </div>
    </div>
  );
}
