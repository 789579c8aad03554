"use client";
// Shown when a page fails to render (for instance the database is unreachable). The details stay
// in the server log; the reader gets a retry and the digest to quote in a report.
import Link from "next/link";
import { useEffect } from "react";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  return (
    <div className="mx-auto max-w-2xl px-4 py-20 text-center sm:px-6 sm:py-28" role="alert">
      <p className="font-mono text-sm font-medium text-accent">Error</p>
      <h1 className="mt-3 text-3xl font-semibold tracking-tight">Something went wrong on our side</h1>
      <p className="mt-4 leading-7 text-muted">The page could not be loaded. No payment was made or taken by this page. Please try again in a moment.</p>
      {error.digest ? (
        <p className="mt-3 text-xs text-muted">
          Reference: <code className="font-mono">{error.digest}</code>
        </p>
      ) : null}
      <div className="mt-8 flex justify-center gap-3 text-sm">
        <button type="button" onClick={reset} className="rounded-lg bg-foreground px-4 py-2 font-medium text-background hover:opacity-90">
          Try again
        </button>
        <Link href="/" className="rounded-lg border border-line px-4 py-2 font-medium hover:border-line-strong">
          Home
        </Link>
      </div>
    </div>
  );
}
