// Page links for a list: previous, numbered pages with gaps, next. Plain links, no JavaScript.
import Link from "next/link";
import { ArrowLeftIcon, ArrowRightIcon } from "./icons.tsx";
import { pageWindow } from "./page-window.ts";

export type PaginationProps = {
  page: number;
  lastPage: number;
  /** Builds the link of a page number. */
  hrefFor: (page: number) => string;
};

const item = "inline-flex h-9 min-w-9 items-center justify-center gap-1 rounded-lg px-3 text-sm";

export function Pagination({ page, lastPage, hrefFor }: PaginationProps) {
  if (lastPage <= 1) return null;
  return (
    <nav aria-label="Pagination" className="mt-10 flex items-center justify-between gap-2">
      {page > 1 ? (
        <Link href={hrefFor(page - 1)} rel="prev" className={`${item} border border-line hover:border-line-strong`}>
          <ArrowLeftIcon /> Previous
        </Link>
      ) : (
        <span className={`${item} border border-line text-muted opacity-50`} aria-hidden="true">
          <ArrowLeftIcon /> Previous
        </span>
      )}
      <ol className="hidden items-center gap-1 sm:flex">
        {pageWindow(page, lastPage).map((n, i) =>
          n === null ? (
            <li key={`gap-${i}`} className="px-1 text-muted" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={n}>
              <Link
                href={hrefFor(n)}
                aria-current={n === page ? "page" : undefined}
                aria-label={`Page ${n}`}
                className={`${item} tabular-nums ${n === page ? "bg-foreground font-medium text-background" : "hover:bg-surface-subtle"}`}
              >
                {n}
              </Link>
            </li>
          ),
        )}
      </ol>
      <span className="text-sm text-muted sm:hidden">
        Page {page} of {lastPage}
      </span>
      {page < lastPage ? (
        <Link href={hrefFor(page + 1)} rel="next" className={`${item} border border-line hover:border-line-strong`}>
          Next <ArrowRightIcon />
        </Link>
      ) : (
        <span className={`${item} border border-line text-muted opacity-50`} aria-hidden="true">
          Next <ArrowRightIcon />
        </span>
      )}
    </nav>
  );
}
