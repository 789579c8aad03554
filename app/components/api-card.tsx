// One API in a grid: what it does, what it costs, whether it is up. The whole card is one link
// (the title's link stretches over it), so keyboard and screen-reader users meet one stop per card.
import Link from "next/link";
import type { DirectoryEntry } from "@/lib/directory/schemas.ts";
import { describePriceRange, describePricingModels } from "@/lib/pricing/describe-price.ts";
import { ExternalBadge } from "./external-badge.tsx";
import { HealthIndicator } from "./health-indicator.tsx";
import { TagList } from "./tag-list.tsx";

export function ApiCard({ entry, headingLevel = 3 }: { entry: DirectoryEntry; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const models = describePricingModels(entry.endpoints);
  return (
    <article className="group relative flex h-full flex-col rounded-2xl border border-line bg-surface p-5 shadow-xs transition hover:border-line-strong hover:shadow-md">
      <div className="flex items-start justify-between gap-3">
        <Heading className="text-base font-semibold tracking-tight">
          <Link
            href={`/directory/${entry.slug}`}
            className="rounded-sm after:absolute after:inset-0 after:rounded-2xl after:content-[''] focus-visible:outline-none focus-visible:after:outline-2 focus-visible:after:outline-offset-2 focus-visible:after:outline-accent-ring"
          >
            {entry.name}
          </Link>
        </Heading>
        <span className="mt-0.5 shrink-0 font-mono text-xs text-muted">{entry.slug}</span>
      </div>
      <div className="mt-1.5 flex flex-wrap items-center gap-2">
        <HealthIndicator quality={entry.quality} />
        {entry.isExternal ? <ExternalBadge /> : null}
      </div>
      <p className="mt-3 line-clamp-3 text-sm leading-6 text-muted">{entry.description || "No description yet."}</p>
      {entry.tags.length ? <TagList tags={entry.tags} className="mt-4" /> : null}
      <div className="mt-auto pt-5">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 border-t border-line pt-4 text-xs">
          <dt className="text-muted">Price</dt>
          <dd className="text-right font-medium tabular-nums">{describePriceRange(entry.endpoints)}</dd>
          <dt className="text-muted">Pricing</dt>
          <dd className="text-right">{models.join(", ")}</dd>
          <dt className="text-muted">Endpoints</dt>
          <dd className="text-right tabular-nums">{entry.endpointCount}</dd>
        </dl>
      </div>
    </article>
  );
}
