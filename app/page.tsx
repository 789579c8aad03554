// Home: what the hub is, a search box, the most used and the most recently listed APIs, and how paying works.
import type { Metadata } from "next";
import Link from "next/link";
import { endpointUrl } from "@/lib/directory/call-example.ts";
import { listDirectory } from "@/lib/directory/list-directory.ts";
import { listTopApis, topWindowDays } from "@/lib/directory/top-apis.ts";
import type { DirectoryEntry, EndpointEntry } from "@/lib/directory/schemas.ts";
import { describePrice } from "@/lib/pricing/describe-price.ts";
import { getServerContext } from "@/lib/server-context.ts";
import { ApiCard } from "./components/api-card.tsx";
import { CodeBlock } from "./components/code-block.tsx";
import { EmptyState } from "./components/empty-state.tsx";
import { PaymentFlow } from "./components/payment-flow.tsx";
import { ArrowRightIcon } from "./components/icons.tsx";
import { SearchForm } from "./components/search-form.tsx";

// Reads the database on every request; `next build` must not need one.
export const dynamic = "force-dynamic";

const recentCount = 6;

export async function generateMetadata(): Promise<Metadata> {
  const { config } = await getServerContext();
  return { alternates: { canonical: `${config.siteUrl}/` }, openGraph: { url: `${config.siteUrl}/` } };
}

/** The endpoint the payment walkthrough shows: the cheapest per-request one among these APIs. */
function walkthroughTarget(entries: DirectoryEntry[]): { entry: DirectoryEntry; endpoint: EndpointEntry } | null {
  let best: { entry: DirectoryEntry; endpoint: EndpointEntry } | null = null;
  for (const entry of entries) {
    for (const endpoint of entry.endpoints) {
      if (endpoint.pricingModel !== "per_request" || endpoint.path.includes("{")) continue;
      if (!best || endpoint.priceSats < best.endpoint.priceSats) best = { entry, endpoint };
    }
  }
  return best;
}

/** A terminal transcript of one paid call; illustrative macaroon and invoice, real address. */
function paymentTranscript(target: ReturnType<typeof walkthroughTarget>): string {
  const url = target ? endpointUrl(target.entry.gatewayDomain, target.endpoint) : "https://<api>.example/v1/resource";
  const method = target && target.endpoint.method !== "GET" ? `-X ${target.endpoint.method} ` : "";
  const response = target && Object.keys(target.endpoint.exampleResponse).length ? JSON.stringify(target.endpoint.exampleResponse, null, 2) : '{ "ok": true }';
  return [
    `$ curl -i ${method}'${url}'`,
    "HTTP/1.1 402 Payment Required",
    'WWW-Authenticate: L402 macaroon="AgEEbHNhdAJCAAC…", invoice="lnbc10n1pj…"',
    "",
    "# pay the invoice with any Lightning wallet, note the preimage",
    "",
    `$ curl ${method}'${url}' \\`,
    `    -H 'Authorization: L402 <macaroon>:<preimage>'`,
    response,
  ].join("\n");
}

const steps = [
  {
    title: "Call the endpoint",
    body: (
      <>
        A paid endpoint answers <code className="font-mono text-[0.9em]">402 Payment Required</code> with a Lightning invoice and a macaroon in the{" "}
        <code className="font-mono text-[0.9em]">WWW-Authenticate</code> header.
      </>
    ),
  },
  {
    title: "Pay the invoice",
    body: <>Use any Lightning wallet. The sats go straight to the provider&apos;s node; paying gives you the preimage.</>,
  },
  {
    title: "Retry with the proof",
    body: (
      <>
        Send <code className="font-mono text-[0.9em] break-all">Authorization: L402 &lt;macaroon&gt;:&lt;preimage&gt;</code> and get the response. Session
        pricing returns a token for the next calls.
      </>
    ),
  },
];

export default async function HomePage() {
  const { config, db } = await getServerContext();
  const [recent, mostUsed] = await Promise.all([
    listDirectory({ prisma: db.prisma, config, page: 1, limit: recentCount, sort: "recent" }),
    listTopApis({ prisma: db.prisma, config, limit: recentCount, usedOnly: true }),
  ]);
  const target = walkthroughTarget(recent.entries);

  return (
    <>
      <section className="relative overflow-hidden border-b border-line">
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-0 bg-[radial-gradient(60rem_28rem_at_50%_-8rem,var(--accent-soft),transparent)]"
        />
        <div className="relative mx-auto grid max-w-6xl gap-12 px-4 pt-14 pb-14 sm:px-6 sm:pt-20 sm:pb-20 lg:grid-cols-[minmax(0,7fr)_minmax(0,5fr)] lg:items-center">
          <div>
            <p className="text-sm font-medium text-accent">Lightning-native APIs · L402</p>
            <h1 className="mt-3 max-w-3xl text-4xl font-semibold tracking-tight text-balance sm:text-5xl">Pay-per-call APIs, settled over Lightning.</h1>
            <p className="mt-5 max-w-2xl text-base leading-7 text-pretty text-muted sm:text-lg sm:leading-8">
              L402 Hub lists HTTP APIs you can call without an account or an API key. A paid request answers with a Lightning invoice; pay it from any wallet
              and retry with the proof. Payments go directly to each provider&apos;s own wallet, so the hub never holds your sats, and agents can pay the same
              way people do.
            </p>
            <div className="mt-8 max-w-xl">
              <SearchForm size="large" id="home-search" />
            </div>
            <ul className="mt-5 flex flex-wrap gap-x-5 gap-y-2 text-sm text-muted">
              {["No sign-up", "Any Lightning wallet", "Non-custodial", `${recent.total} ${recent.total === 1 ? "API" : "APIs"} listed`].map((fact) => (
                <li key={fact} className="flex items-center gap-2">
                  <span aria-hidden="true" className="size-1 rounded-full bg-accent-ring" />
                  {fact}
                </li>
              ))}
            </ul>
          </div>
          <div className="hidden sm:block">
            <PaymentFlow
              method={target?.endpoint.method ?? "GET"}
              path={target?.endpoint.path ?? "/v1/resource"}
              priceSats={target?.endpoint.priceSats ?? 10}
            />
          </div>
        </div>
      </section>

      {mostUsed.length ? (
        <section aria-labelledby="featured-heading" className="mx-auto max-w-6xl px-4 pt-14 sm:px-6">
          <h2 id="featured-heading" className="text-xl font-semibold tracking-tight">
            Most used
          </h2>
          <p className="mt-1 text-sm text-muted">The APIs that answered the most paid and free calls in the last {topWindowDays} days.</p>
          <ul className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {mostUsed.map((entry) => (
              <li key={entry.slug}>
                <ApiCard entry={entry} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="recent-heading" className="mx-auto max-w-6xl px-4 pt-14 sm:px-6">
        <div className="flex items-end justify-between gap-4">
          <div>
            <h2 id="recent-heading" className="text-xl font-semibold tracking-tight">
              Recently listed
            </h2>
            <p className="mt-1 text-sm text-muted">The newest APIs in the directory.</p>
          </div>
          {recent.total > 0 ? (
            <Link href="/directory" className="inline-flex shrink-0 items-center gap-1 text-sm font-medium text-accent hover:underline">
              Browse the directory <ArrowRightIcon />
            </Link>
          ) : null}
        </div>
        <div className="mt-6">
          {recent.entries.length ? (
            <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
              {recent.entries.map((entry) => (
                <li key={entry.slug}>
                  <ApiCard entry={entry} />
                </li>
              ))}
            </ul>
          ) : (
            <EmptyState title="No APIs are listed yet">
              An API appears here as soon as its provider connects a Lightning wallet and publishes a first endpoint.
            </EmptyState>
          )}
        </div>
      </section>

      <section aria-labelledby="how-heading" className="mx-auto max-w-6xl px-4 pt-20 sm:px-6">
        <div className="grid gap-10 lg:grid-cols-[minmax(0,5fr)_minmax(0,7fr)] lg:gap-14">
          <div>
            <h2 id="how-heading" className="text-xl font-semibold tracking-tight">
              How paying works
            </h2>
            <p className="mt-1 text-sm text-muted">
              L402 puts HTTP&apos;s <code className="font-mono">402 Payment Required</code> to work.
              {target ? (
                <>
                  {" "}
                  Try it on{" "}
                  <Link href={`/directory/${target.entry.slug}`} className="font-medium text-accent hover:underline">
                    {target.entry.name}
                  </Link>{" "}
                  ({describePrice(target.endpoint).toLowerCase()}).
                </>
              ) : null}
            </p>
            <ol className="mt-8 space-y-6">
              {steps.map((step, i) => (
                <li key={step.title} className="grid grid-cols-[2rem_1fr] gap-3">
                  <span
                    aria-hidden="true"
                    className="flex size-7 items-center justify-center rounded-full border border-line-strong text-xs font-semibold tabular-nums"
                  >
                    {i + 1}
                  </span>
                  <div>
                    <h3 className="text-sm font-semibold">{step.title}</h3>
                    <p className="mt-1 text-sm leading-6 text-muted">{step.body}</p>
                  </div>
                </li>
              ))}
            </ol>
          </div>
          <CodeBlock caption="Terminal" code={paymentTranscript(target)} copyable={false} className="self-start" />
        </div>
      </section>
    </>
  );
}
