// /directory/:slug: one API in full: for an API the hub hosts, a free live candle chart and verdict
// card when it has the endpoints for them (lib/try-it/market-preview.ts), then its gateway address, endpoints with prices in words, parameters,
// examples, how to call it with curl, its 7-day health history, the badge embed snippet, the MCP
// client config and the OpenAPI document. An external listing (`isExternal`: a self-hosted L402
// gateway listed by its operator) shows its declared endpoints and its own gateway address, marked
// as independently operated, without try-it, MCP config, OpenAPI link or health history: those
// come from a hosted gateway (docs/listings-directory.md says why).
import type { Metadata } from "next";
import Link from "next/link";
import { notFound, permanentRedirect } from "next/navigation";
import { cache, type ReactNode } from "react";
import { callExample, pickCallExampleEndpoint } from "@/lib/directory/call-example.ts";
import { loadListedDocumentedApi } from "@/lib/directory/discovery.ts";
import { getDirectoryEntry } from "@/lib/directory/get-directory-entry.ts";
import { loadHealthHistory } from "@/lib/directory/health-history.ts";
import { buildMcpConfig } from "@/lib/directory/mcp-config.ts";
import { describePriceRange, describePricingModels } from "@/lib/pricing/describe-price.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { findBasemapPath } from "@/lib/try-it/basemap-source.ts";
import { findPreviewPaths } from "@/lib/try-it/market-preview.ts";
import { CodeBlock } from "@/app/components/code-block.tsx";
import { CandleChart } from "@/app/components/market/candle-chart.tsx";
import { VerdictCard } from "@/app/components/market/verdict-card.tsx";
import { EndpointCard, endpointAnchor } from "@/app/components/endpoint-card.tsx";
import { ExternalBadge } from "@/app/components/external-badge.tsx";
import { HealthIndicator, formatUptime } from "@/app/components/health-indicator.tsx";
import { HealthSparkline } from "@/app/components/health-sparkline.tsx";
import { MethodBadge } from "@/app/components/method-badge.tsx";
import { TagList } from "@/app/components/tag-list.tsx";
import { TryIt } from "@/app/components/try-it/try-it.tsx";

// Reads the database on every request; `next build` must not need one.
export const dynamic = "force-dynamic";

type PageProps = { params: Promise<{ slug: string }> };

/** From this many endpoints on, a linked index precedes the endpoint details. */
const indexThreshold = 4;

/** One query per request, shared by generateMetadata and the page. */
const loadApi = cache(async (slug: string) => {
  const { config, db } = await getServerContext();
  const entry = await getDirectoryEntry({ prisma: db.prisma, config, slug });
  return { config, entry };
});

export async function generateMetadata({ params }: PageProps): Promise<Metadata> {
  const { slug } = await params;
  const { config, entry } = await loadApi(slug);
  if (!entry) return { title: "API not found", robots: { index: false } };
  const description =
    entry.description || `${entry.name}: ${entry.endpointCount} pay-per-call ${entry.endpointCount === 1 ? "endpoint" : "endpoints"} over Lightning (L402).`;
  const url = `${config.siteUrl}/directory/${entry.slug}`;
  return {
    title: entry.name,
    description,
    alternates: { canonical: url },
    openGraph: { type: "website", title: `${entry.name} · L402 Hub`, description, url },
    twitter: { card: "summary", title: entry.name, description },
  };
}

export default async function ApiPage({ params }: PageProps) {
  const { slug } = await params;
  const { config, entry } = await loadApi(slug);
  if (!entry) notFound();
  // A slug typed in another case finds the API; send the reader to its one canonical address.
  if (entry.slug !== slug) permanentRedirect(`/directory/${entry.slug}`);
  const { db } = await getServerContext();
  const external = entry.isExternal;
  const tenant = external ? null : await db.prisma.tenant.findUnique({ where: { slug: entry.slug }, select: { id: true } });
  const [history, documented] = await Promise.all([
    tenant ? loadHealthHistory({ prisma: db.prisma, tenantId: tenant.id }) : Promise.resolve([]),
    external ? Promise.resolve(null) : loadListedDocumentedApi({ prisma: db.prisma, config, slug: entry.slug }),
  ]);
  const mcpConfig = documented ? JSON.stringify(buildMcpConfig({ config, api: documented }), null, 2) : null;
  const openApiUrl = `${entry.gatewayDomain}/.well-known/openapi.json`;
  const badgeUrl = `${config.apiUrl}/badge/${entry.slug}.svg`;
  const badgeMarkdown = `[![L402: ${entry.name}](${badgeUrl})](${config.siteUrl}/directory/${entry.slug})`;

  const example = pickCallExampleEndpoint(entry.endpoints);
  const basemapPath = findBasemapPath(entry.endpoints);
  // The free chart and verdict card: only for an API the hub itself hosts (lib/previews).
  const previews = !external && config.hostedExamples.includes(entry.slug) ? findPreviewPaths(entry.endpoints) : null;
  const signedIn = await isSignedIn();
  const paid = entry.endpoints.filter((e) => e.pricingModel !== null).length;
  const free = entry.endpointCount - paid;
  const { quality } = entry;

  return (
    <div className="mx-auto max-w-6xl px-4 pt-8 sm:px-6 sm:pt-10">
      <nav aria-label="Breadcrumb" className="text-sm text-muted">
        <ol className="flex items-center gap-2">
          <li>
            <Link href="/directory" className="hover:text-foreground">
              Directory
            </Link>
          </li>
          <li aria-hidden="true">/</li>
          <li aria-current="page" className="truncate text-foreground">
            {entry.name}
          </li>
        </ol>
      </nav>

      <header className="mt-6 max-w-3xl">
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <h1 className="text-3xl font-semibold tracking-tight text-balance sm:text-4xl">{entry.name}</h1>
          <HealthIndicator quality={quality} className="text-sm" />
          {external ? <ExternalBadge /> : null}
        </div>
        {entry.description ? <p className="mt-4 text-lg leading-8 text-pretty text-muted">{entry.description}</p> : null}
        {entry.tags.length ? <TagList tags={entry.tags} linked className="mt-5" /> : null}
        {external ? (
          <p
            role="note"
            className="mt-5 rounded-2xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm leading-6 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
          >
            <strong className="font-semibold">Independently operated.</strong> This API runs on its own L402 gateway, listed here by its operator. L402 Hub does
            not run it, does not see its payments and cannot refund them; its endpoints and prices are what the operator declared and our automated review
            checked. The hub only checks that the gateway answers.
          </p>
        ) : null}
      </header>

      <section aria-labelledby="gateway-heading" className="mt-8 max-w-xl">
        <h2 id="gateway-heading" className="text-sm font-semibold">
          Gateway address
        </h2>
        <p className="mt-1 text-sm text-muted">Every endpoint path below is relative to this address{external ? ", the operator's own gateway" : ""}.</p>
        <CodeBlock code={entry.gatewayDomain} copyLabel="Copy gateway address" wrap className="mt-3" />
      </section>

      <div className="mt-12 grid gap-12 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0 space-y-14">
          {previews?.candles || previews?.verdict ? (
            <div className="space-y-6">
              {previews.candles ? <CandleChart slug={entry.slug} apiName={entry.name} /> : null}
              {previews.verdict ? <VerdictCard slug={entry.slug} verdictPath={previews.verdict} /> : null}
            </div>
          ) : null}
          <section aria-labelledby="endpoints-heading">
            <h2 id="endpoints-heading" className="text-xl font-semibold tracking-tight">
              Endpoints
            </h2>
            {entry.endpointCount >= indexThreshold ? (
              <ul className="mt-4 divide-y divide-line rounded-2xl border border-line bg-surface-subtle text-sm">
                {entry.endpoints.map((endpoint) => (
                  <li key={endpointAnchor(endpoint)}>
                    <a href={`#${endpointAnchor(endpoint)}`} className="flex items-center gap-3 px-4 py-2.5 hover:bg-surface">
                      <MethodBadge method={endpoint.method} />
                      <code className="min-w-0 flex-1 truncate font-mono text-[13px]">{endpoint.path}</code>
                      <span className="hidden text-muted sm:inline">{endpoint.title}</span>
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
            <div className="mt-6 space-y-6">
              {entry.endpoints.map((endpoint) => (
                <EndpointCard key={endpointAnchor(endpoint)} endpoint={endpoint}>
                  {external ? null : (
                    <TryIt
                      endpoint={endpoint}
                      gatewayBase={entry.gatewayDomain}
                      devWallet={config.lightningDevNode}
                      signedIn={signedIn}
                      basemapPath={basemapPath}
                    />
                  )}
                </EndpointCard>
              ))}
            </div>
          </section>

          {example ? (
            <section aria-labelledby="call-heading">
              <h2 id="call-heading" className="text-xl font-semibold tracking-tight">
                How to call it
              </h2>
              <p className="mt-2 max-w-2xl text-sm leading-6 text-muted">
                {example.pricingModel === null
                  ? "This endpoint is free: call it like any HTTP API."
                  : "No account or key needed. The first call returns a Lightning invoice; pay it with any wallet, then repeat the call with the proof of payment."}
              </p>
              <CodeBlock caption="Shell" code={callExample(entry.gatewayDomain, example)} copyLabel="Copy curl example" className="mt-4" />
            </section>
          ) : null}

          {external ? null : (
            <section aria-labelledby="agents-heading">
              <h2 id="agents-heading" className="text-xl font-semibold tracking-tight">
                Use it from an agent
              </h2>
              <p className="mt-2 max-w-2xl text-sm leading-6 text-muted">
                Paste this into your MCP client&apos;s configuration: it starts an MCP server (the <code className="font-mono">@l402-hub/sdk</code> package,
                through <code className="font-mono">npx</code>; Node 20+) that offers each endpoint as a tool and pays for calls from the wallet in its{" "}
                <code className="font-mono">env</code>, within the budget. The{" "}
                <a href={openApiUrl} className="font-medium text-accent hover:underline">
                  OpenAPI document
                </a>{" "}
                describes the same endpoints with their prices.
              </p>
              {mcpConfig ? <CodeBlock caption="MCP config" code={mcpConfig} copyLabel="Copy MCP config" className="mt-4" /> : null}
            </section>
          )}

          <section aria-labelledby="badge-heading">
            <h2 id="badge-heading" className="text-xl font-semibold tracking-tight">
              Badge
            </h2>
            <div className="mt-3 flex flex-wrap items-center gap-4">
              {/* eslint-disable-next-line @next/next/no-img-element -- an SVG from our own API, sized by itself */}
              <img src={`/api/badge/${entry.slug}.svg`} alt={`L402 badge of ${entry.name}`} height={20} />
            </div>
            <p className="mt-3 text-sm text-muted">Show the price and health of this API in a README:</p>
            <CodeBlock caption="Markdown" code={badgeMarkdown} copyLabel="Copy badge markdown" wrap className="mt-2" />
          </section>
        </div>
        <aside aria-label="About this API" className="space-y-4 lg:sticky lg:top-20 lg:self-start">
          <h2 className="text-sm font-semibold">At a glance</h2>
          <dl className="divide-y divide-line rounded-2xl border border-line bg-surface text-sm">
            <Fact term="Price">{describePriceRange(entry.endpoints)}</Fact>
            <Fact term="Pricing">{describePricingModels(entry.endpoints).join(", ")}</Fact>
            <Fact term="Endpoints">
              {entry.endpointCount}
              {paid && free ? ` (${paid} paid, ${free} free)` : ""}
            </Fact>
            {external ? <Fact term="Operated by">Its provider (external)</Fact> : null}
            <Fact term="Uptime, 7 days">{quality.uptimePercentage === null ? "Not checked yet" : formatUptime(quality.uptimePercentage)}</Fact>
            <Fact term="Avg. response">{quality.avgResponseTimeMs === null ? "—" : `${quality.avgResponseTimeMs} ms`}</Fact>
            {entry.walletPubkey ? (
              <div className="px-4 py-3">
                <dt className="text-muted">Provider node</dt>
                <dd className="mt-1 font-mono text-xs leading-5 break-all" title="Public key of the provider's Lightning node">
                  {entry.walletPubkey}
                </dd>
              </div>
            ) : null}
          </dl>
          {external ? null : (
            <>
              <section aria-labelledby="history-heading" className="rounded-2xl border border-line bg-surface px-4 py-3">
                <h2 id="history-heading" className="text-sm font-semibold">
                  Health, last 7 days
                </h2>
                <div className="mt-2">
                  <HealthSparkline buckets={history} />
                </div>
              </section>
              <p className="text-sm">
                <a href={openApiUrl} className="font-medium text-accent hover:underline">
                  OpenAPI document
                </a>
              </p>
            </>
          )}
          <p className="text-xs leading-5 text-muted">Payments go straight to the provider&apos;s wallet. L402 Hub never holds funds.</p>
        </aside>
      </div>
    </div>
  );
}

/** Whether the visitor is signed in (the free try needs it); an unconfigured auth counts as no. */
async function isSignedIn(): Promise<boolean> {
  try {
    const { getSignedInUserId } = await import("@/lib/auth/next-auth.ts");
    return (await getSignedInUserId()) !== null;
  } catch {
    return false;
  }
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline justify-between gap-4 px-4 py-3">
      <dt className="text-muted">{term}</dt>
      <dd className="text-right font-medium tabular-nums">{children}</dd>
    </div>
  );
}
