// /directory: every listed API, with search, tag chips, sort and pagination, all plain links and
// GET forms so the page works fully without JavaScript.
import type { Metadata } from "next";
import Link from "next/link";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { listDirectoryTags } from "@/lib/directory/list-tags.ts";
import { parseDirectoryQueryLenient, type DirectoryQuery } from "@/lib/directory/schemas.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { ApiCard } from "@/app/components/api-card.tsx";
import { directoryHref, type DirectoryLinkState } from "@/app/components/directory-href.ts";
import { EmptyState } from "@/app/components/empty-state.tsx";
import { Pagination } from "@/app/components/pagination.tsx";
import { SearchForm } from "@/app/components/search-form.tsx";

// Reads the database on every request; `next build` must not need one.
export const dynamic = "force-dynamic";

/** Cards per page when the URL does not say (the JSON API's default of 50 is long for a grid). */
const pageSize = 24;
/** Tag chips shown before the rest fold away under "More tags". */
const visibleTags = 12;

type PageProps = { searchParams: Promise<Record<string, string | string[] | undefined>> };

async function readQuery(searchParams: PageProps["searchParams"]): Promise<DirectoryQuery> {
  return parseDirectoryQueryLenient(await searchParams, { limit: pageSize });
}

function heading(query: DirectoryQuery): string {
  if (query.search && query.tag) return `“${query.search}” in #${query.tag}`;
  if (query.search) return `Results for “${query.search}”`;
  if (query.tag) return `APIs tagged #${query.tag}`;
  return "API directory";
}

export async function generateMetadata({ searchParams }: PageProps): Promise<Metadata> {
  const { config } = await getServerContext();
  const query = await readQuery(searchParams);
  const title = query.search || query.tag ? heading(query) : "API directory";
  const description = query.tag
    ? `Pay-per-call APIs tagged ${query.tag}, payable per request over Lightning (L402).`
    : "Browse pay-per-call HTTP APIs you can pay per request over Lightning (L402): prices, pricing models and uptime.";
  const url = `${config.siteUrl}${directoryHref({ tag: query.tag, page: query.page }, { limit: pageSize })}`;
  return {
    title,
    description,
    alternates: { canonical: url },
    openGraph: { title: `${title} · L402 Hub`, description, url },
    // Search result pages are endless and thin; tag and page views are real listings.
    robots: query.search ? { index: false, follow: true } : undefined,
  };
}

export default async function DirectoryPage({ searchParams }: PageProps) {
  const { config, db } = await getServerContext();
  const query = await readQuery(searchParams);
  const [result, tagCounts] = await Promise.all([listDirectory({ prisma: db.prisma, config, ...query }), listDirectoryTags({ prisma: db.prisma })]);
  const lastPage = Math.max(1, Math.ceil(result.total / query.limit));
  const state: DirectoryLinkState = { search: query.search, tag: query.tag, sort: query.sort, limit: query.limit };
  const href = (change: DirectoryLinkState) => directoryHref({ ...state, page: undefined, ...change }, { limit: pageSize });
  const first = (query.page - 1) * query.limit + 1;
  const last = first + result.entries.length - 1;
  const activeTag = query.tag?.toLowerCase();
  const shownTags = tagCounts.slice(0, visibleTags);
  const moreTags = tagCounts.slice(visibleTags);
  // Keep the selected tag visible even when it is not among the most used ones.
  if (activeTag && !shownTags.some((t) => t.tag === activeTag)) {
    const selected = tagCounts.find((t) => t.tag === activeTag);
    if (selected) shownTags.push(selected);
  }

  const chip = (tag: string | undefined, label: string, count?: number) => {
    const current = (tag ?? undefined) === activeTag;
    return (
      <li key={tag ?? "all"}>
        <Link
          href={href({ tag })}
          aria-current={current ? "page" : undefined}
          className={`inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-sm transition-colors ${
            current ? "border-foreground bg-foreground text-background" : "border-line bg-surface text-muted hover:border-line-strong hover:text-foreground"
          }`}
        >
          {label}
          {count !== undefined ? (
            <span className={`text-xs tabular-nums ${current ? "opacity-70" : "text-muted/80"}`}>
              <span className="sr-only">(</span>
              {count}
              <span className="sr-only"> APIs)</span>
            </span>
          ) : null}
        </Link>
      </li>
    );
  };

  return (
    <div className="mx-auto max-w-6xl px-4 pt-10 sm:px-6 sm:pt-14">
      <header className="max-w-2xl">
        <h1 className="text-3xl font-semibold tracking-tight">{heading(query)}</h1>
        <p className="mt-2 text-muted">HTTP APIs you pay per call with Lightning. No accounts or keys: each request carries its own payment.</p>
        <p className="mt-2 text-sm text-muted">
          Run your own L402 gateway?{" "}
          <Link href="/list-your-api" className="font-medium text-accent hover:underline">
            List your L402 API
          </Link>{" "}
          here for free.
        </p>
      </header>

      <div className="mt-8 max-w-2xl">
        <SearchForm defaultValue={query.search} keep={{ tag: query.tag, sort: query.sort === "relevance" ? undefined : query.sort }} />
      </div>

      {tagCounts.length ? (
        <nav aria-label="Filter by tag" className="mt-6">
          <ul className="flex flex-wrap gap-2">
            {chip(undefined, "All")}
            {shownTags.map((t) => chip(t.tag, t.tag, t.count))}
          </ul>
          {moreTags.length ? (
            <details className="mt-3 text-sm">
              <summary className="cursor-pointer text-muted hover:text-foreground">More tags ({moreTags.length})</summary>
              <ul className="mt-3 flex flex-wrap gap-2">{moreTags.map((t) => chip(t.tag, t.tag, t.count))}</ul>
            </details>
          ) : null}
        </nav>
      ) : null}

      <div className="mt-8 flex flex-wrap items-center justify-between gap-3 border-b border-line pb-3">
        <p className="text-sm text-muted" role="status">
          {result.total === 0
            ? "No APIs found"
            : result.entries.length === 0
              ? `Page ${query.page} is past the end (${result.total} ${result.total === 1 ? "API" : "APIs"})`
              : result.total === result.entries.length
                ? `${result.total} ${result.total === 1 ? "API" : "APIs"}`
                : `Showing ${first}–${last} of ${result.total} APIs`}
        </p>
        <nav aria-label="Sort" className="flex items-center gap-1 text-sm">
          <span className="mr-1 text-muted">Sort</span>
          {(["relevance", "recent"] as const).map((sort) => (
            <Link
              key={sort}
              href={href({ sort })}
              aria-current={query.sort === sort ? "true" : undefined}
              className={`rounded-md px-2.5 py-1 ${query.sort === sort ? "bg-surface-subtle font-medium text-foreground ring-1 ring-line" : "text-muted hover:text-foreground"}`}
            >
              {sort === "relevance" ? (query.search ? "Best match" : "Name") : "Newest"}
            </Link>
          ))}
        </nav>
      </div>

      <div className="mt-6">
        {result.entries.length ? (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {result.entries.map((entry) => (
              <li key={`${entry.isExternal ? "external" : "hosted"}:${entry.slug}`}>
                <ApiCard entry={entry} headingLevel={2} />
              </li>
            ))}
          </ul>
        ) : result.total > 0 ? (
          <EmptyState
            title="Nothing on this page"
            action={
              <Link href={href({})} className="rounded-lg border border-line px-4 py-2 text-sm font-medium hover:border-line-strong">
                Back to the first page
              </Link>
            }
          />
        ) : query.search || query.tag ? (
          <EmptyState
            title="No APIs match"
            action={
              <Link href="/directory" className="rounded-lg border border-line px-4 py-2 text-sm font-medium hover:border-line-strong">
                Clear search and filters
              </Link>
            }
          >
            Try fewer or different words: search looks at names, descriptions, tags and endpoint paths.
          </EmptyState>
        ) : (
          <EmptyState title="No APIs are listed yet">
            An API appears here as soon as its provider connects a Lightning wallet and publishes a first endpoint.
          </EmptyState>
        )}
      </div>

      <Pagination page={query.page} lastPage={lastPage} hrefFor={(page) => directoryHref({ ...state, page }, { limit: pageSize })} />
    </div>
  );
}
